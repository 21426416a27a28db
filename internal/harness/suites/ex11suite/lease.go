package ex11suite

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// clockRead judges the deposed scene's reads by their cause, before
// porcupine tells the contradiction: the first Latest read the cut-off
// leader answered, while it still said it led, from a copy that lacked a
// write a newer leader had committed and acknowledged before the read was
// sent. The leader's clock ran slow while it was cut off, so a leader that
// serves reads on its own authority for as long as its own clock says it
// still leads (a lease, a check-quorum) served them after another was
// elected: "stale-read" of clause 1, told with when it last heard from a
// majority and how its clock ran. It returns nil in every other world.
func clockRead(w *world) *suite.Failure {
	if w.deposedAt == 0 || w.leader == "" {
		return nil
	}
	ops := w.History.Operations()
	var events []sim.Event
	for i := range ops {
		r := &ops[i]
		if r.Input.Kind != check.KindRead || r.Server != string(w.leader) || r.Call < w.deposedAt ||
			r.Result.Outcome != check.OK && r.Result.Outcome != check.NotFound {
			continue
		}
		wr := newerWrite(ops, r)
		if wr == nil {
			continue
		}
		if events == nil {
			events = w.W.Trace().Events()
		}
		answered, ok := answeredAt(events, w.leader, r)
		if !ok {
			continue
		}
		said := w.roleAt(w.leader, answered)
		if said.role != check.Leader {
			continue // it had stepped down: a read it served is told by the checker
		}
		newer := w.newerLeader(w.leader, said.term, wr.Return)
		if newer.server == "" {
			continue
		}
		return clockReadFailure(w, events, r, wr, answered, said, newer)
	}
	return nil
}

// newerWrite is the earliest acknowledged write of r's key that returned
// before r was sent and set a later version than r showed; nil if none.
func newerWrite(ops []check.Operation, r *check.Operation) *check.Operation {
	var best *check.Operation
	for i := range ops {
		o := &ops[i]
		if !o.Input.Kind.Mutates() || o.Input.Kind == check.KindDelete || !o.Acknowledged() || o.Input.Key != r.Input.Key || o.Return >= r.Call {
			continue
		}
		if r.Result.Outcome == check.OK && o.Result.Version <= r.Result.Version {
			continue
		}
		if best == nil || o.Result.Version < best.Result.Version {
			best = o
		}
	}
	return best
}

// answeredAt is when server sent its reply to read r, off the trace.
func answeredAt(events []sim.Event, server sim.NodeID, r *check.Operation) (time.Duration, bool) {
	client := sim.NodeID(r.Client)
	for _, e := range events {
		if e.At > r.Return {
			break
		}
		if e.At >= r.Call && e.Kind == sim.EvReply && e.Node == server && e.Peer == client {
			return e.At, true
		}
	}
	return 0, false
}

// roleAt is the last term and role server said it had at or before at.
func (w *world) roleAt(server sim.NodeID, at time.Duration) roleChange {
	var said roleChange
	for _, r := range w.roles[server] {
		if r.at > at {
			break
		}
		said = r
	}
	return said
}

// leaderSaid is a server that said it led term from at.
type leaderSaid struct {
	server sim.NodeID
	term   int64
	at     time.Duration
}

// newerLeader is the first server other than old that said it led a term
// later than term, at or before by.
func (w *world) newerLeader(old sim.NodeID, term int64, by time.Duration) leaderSaid {
	var first leaderSaid
	for _, id := range w.Servers {
		if id == old {
			continue
		}
		for _, r := range w.roles[id] {
			if r.at > by {
				break
			}
			if r.role == check.Leader && r.term > term && (first.server == "" || r.at < first.at) {
				first = leaderSaid{server: id, term: r.term, at: r.at}
			}
		}
	}
	return first
}

// heardFromMajority is the last time, at or before at, by which server had
// heard from enough other servers to make a majority with itself: the
// arrival at it of their messages or replies, off the trace.
func heardFromMajority(events []sim.Event, servers []sim.NodeID, server sim.NodeID, at time.Duration) time.Duration {
	last := map[sim.NodeID]time.Duration{}
	for _, e := range events {
		if e.At > at {
			break
		}
		if e.Node == server && e.Peer != server && slices.Contains(servers, e.Peer) && (e.Kind == sim.EvRecv || e.Kind == sim.EvRecvReply) {
			last[e.Peer] = e.At
		}
	}
	var times []time.Duration
	for _, t := range last {
		times = append(times, t)
	}
	slices.Sort(times)
	slices.Reverse(times)
	need := len(servers)/2 + 1 - 1 // others, besides itself
	if len(times) < need {
		return 0
	}
	return times[need-1]
}

func clockReadFailure(w *world, events []sim.Event, r, wr *check.Operation, answered time.Duration, said roleChange, newer leaderSaid) *suite.Failure {
	shown := fmt.Sprintf("%s=%v (rv %d)", r.Input.Key, r.Result.Value, r.Result.Version)
	if r.Result.Outcome == check.NotFound {
		shown = "no " + r.Input.Key
	}
	verb, read := "get", "get of "+r.Input.Key
	if r.Input.List != "" {
		verb, read, shown = "list", "list of "+r.Input.List, "a list that held "+shown
	}
	heard := "it had never heard from a majority"
	if t := heardFromMajority(events, w.Servers, w.leader, answered); t > 0 {
		heard = "it had not heard from a majority since " + suite.FormatTime(t)
	}
	rate := strconv.FormatFloat(deposedClock, 'g', -1, 64)
	story := fmt.Sprintf("%s, still saying it was leader of term %d, answered %s's Latest %s at %s from its own copy, %s, "+
		"after a newer leader had committed a write it lacked: %s said it led term %d from %s, and had committed %s, before %s sent its %s at %s. "+
		"%s was cut off from %s on, and %s; its clock ran at %s× all that while, so whatever it timed on its own clock to go on leading "+
		"(a lease, a check-quorum) ran long while the other side elected a leader and committed: a read served on a leader's own clock. "+
		"A Latest read is answered only after a majority has confirmed, since the read arrived, that this server still leads "+
		"(the read through the log, or a read index confirmed by a round of heartbeats); a clock cannot tell a leader it has been deposed",
		w.leader, said.term, r.Client, read, suite.FormatTime(answered), shown,
		newer.server, newer.term, suite.FormatTime(newer.at), scene.TellWrite(wr), r.Client, verb, suite.FormatTime(r.Call),
		w.leader, suite.FormatTime(w.deposedAt), heard, rate)
	details := "the read, and the write it lacked:\n  " + r.String() + "\n  " + wr.String()
	return &suite.Failure{Name: "stale-read", Clause: course.OneHistory, At: answered, Story: story, Ops: []check.OpID{r.ID, wr.ID}, Details: details}
}
