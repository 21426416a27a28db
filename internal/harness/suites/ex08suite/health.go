package ex08suite

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// healthEvery is how often the suite looks at the cluster for the liveness
// check. No fault of the chapter's worlds is shorter.
const healthEvery = 20 * time.Millisecond

// health is what the suite saw of the cluster while the clients worked:
// for each client and server, the moments that server could not have been
// expected to answer that client. It could be expected to whenever the
// leader was up, a majority of the servers (the leader among them) were up
// and connected to it over ordinary links, and the server itself was one
// of them and reachable from the client.
type health struct {
	bad map[[2]sim.NodeID][]time.Duration // (client, server) → moments it was not whole, in order
}

// watchHealth samples the cluster every healthEvery until until.
func (w *world) watchHealth(until time.Duration) {
	w.health = &health{bad: map[[2]sim.NodeID][]time.Duration{}}
	var look func()
	look = func() {
		now := w.W.Now()
		var clients []sim.NodeID
		for _, id := range w.W.Nodes() {
			if !w.IsServer(id) && id != scene.Auditor {
				clients = append(clients, id)
			}
		}
		serving := w.serving(now)
		for _, c := range clients {
			for _, x := range w.Servers {
				if !slices.Contains(serving, x) || !w.W.Connected(c, x) {
					key := [2]sim.NodeID{c, x}
					w.health.bad[key] = append(w.health.bad[key], now)
				}
			}
		}
		if now+healthEvery <= until {
			w.W.After(healthEvery, look)
		}
	}
	w.W.At(0, look)
}

// serving lists the servers that could answer at time t: none if the
// leader is down or cannot reach a majority over ordinary links, else the
// leader and every server up and reachable from it over an ordinary link.
func (w *world) serving(t time.Duration) []sim.NodeID {
	leader := w.Servers[0]
	if !w.W.Up(leader) {
		return nil
	}
	var with []sim.NodeID
	for _, x := range w.Servers {
		if x == leader || (w.W.Up(x) && w.W.Connected(leader, x) && !w.slowAt(leader, x, t)) {
			with = append(with, x)
		}
	}
	if len(with) < w.majority() {
		return nil
	}
	return with
}

// slowAt reports whether a declared slow link joins a and b at time t.
func (w *world) slowAt(a, b sim.NodeID, t time.Duration) bool {
	for _, f := range w.Declared() {
		if s, ok := f.(scene.SlowLink); ok && ((s.A == a && s.B == b) || (s.A == b && s.B == a)) && s.From <= t && t <= s.From+s.For {
			return true
		}
	}
	return false
}

// whole reports whether server could be expected to answer client at every
// moment of [from, to].
func (h *health) whole(client, server sim.NodeID, from, to time.Duration) bool {
	for _, t := range h.bad[[2]sim.NodeID{client, server}] {
		if from <= t && t <= to {
			return false
		}
	}
	return true
}

// stalled finds a request the cluster should have answered and did not:
// one sent in the work, at least calmMargin after the moment its server
// last could not have answered its client (the leader down, no majority up
// and connected to the leader, the server cut off: the health samples),
// and whole until it returned, that got no answer about the store (a
// timeout, Unavailable). A cluster that keeps one history by refusing
// everything fails here.
func stalled(w *world) *suite.Failure {
	var due, failed []check.Operation
	for _, op := range w.History.Operations() {
		if op.Call < workStart || op.Result.Outcome == check.Pending {
			continue // before the work, or still waiting when the world stopped
		}
		if !w.health.whole(sim.NodeID(op.Client), sim.NodeID(op.Server), op.Call-calmMargin, op.Return) {
			continue
		}
		due = append(due, op)
		if op.Indefinite() { // a timeout or an Unavailable: no answer about the store
			failed = append(failed, op)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	first := failed[0]
	lines := make([]string, len(failed))
	for i, op := range failed {
		lines[i] = "  " + op.String()
	}
	return &suite.Failure{
		Name:   "unavailable-while-majority-up",
		Clause: course.OneHistory,
		At:     first.Return,
		Story: fmt.Sprintf("%s's %s through %s at %s got no answer (%s at %s), although for %s before it the leader and a majority of the servers "+
			"had been up and connected, %s among them and reachable. %d of %d such requests failed; "+
			"a cluster keeps one history by agreeing, not by refusing",
			first.Client, first.Input, first.Server, suite.FormatTime(first.Call), first.Result.Outcome,
			suite.FormatTime(first.Return), suite.FormatTime(calmMargin), first.Server, len(failed), len(due)),
		Details: "requests with no answer while the leader and a majority were up and connected:\n" + strings.Join(lines, "\n"),
	}
}
