package ex07suite

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The chapter's numbers, stated once. Every story, check title and page
// prints them from here.
const (
	// bound is the chapter's promise: every write and Latest read is
	// answered within it, as the client measures it, yes or no.
	bound = time.Second
	// clientTimeout is how long a client waits before giving up: twice the
	// bound, so a server that breaks the promise is seen breaking it.
	clientTimeout = 2 * bound
	// settle is how long after the last fault ends the cluster may take to
	// be whole again (a heal, a restart): after it, with no fault coming,
	// every write and Latest read must succeed.
	settle = 500 * time.Millisecond
	// sequencer is servers[0], the one server that orders writes.
	sequencer sim.NodeID = "server-1"
)

// Every link between a client and its server and between two servers:
// 2–20 ms, as the chapter's doc tells the learner.
const (
	linkMin = 2 * time.Millisecond
	linkMax = 20 * time.Millisecond
)

// run is one world of the chapter that ran: its scene, and what its faults
// did.
type run struct {
	*scene.Scene
	pl plan
}

// newRun builds a world of n servers running serve, with the chapter's
// links and client timeout.
func newRun(seed int64, serve Server, n int) *run {
	s := scene.New(seed, scene.Boot(serve), scene.Servers(n), scene.Latency(linkMin, linkMax), scene.RequestTimeout(clientTimeout))
	return &run{Scene: s}
}

// play runs the world until the auditor has read keys from every server at
// audit, and plans its faults for the judges.
func (r *run) play(audit time.Duration, keys ...string) *run {
	// Keep what a person follows in a split: each request and its answer,
	// what the servers log, crashes, restarts and faults. Messages between
	// servers are left out: a sequencer's heartbeats would fill the page.
	r.Show(func(e sim.Event) bool {
		return e.Kind == sim.EvNote || e.Kind == sim.EvCrash || e.Kind == sim.EvRestart || e.Kind == sim.EvFault
	})
	r.AuditAt(audit, "deployments", keys...)
	r.Run(audit + 10*time.Second)
	r.pl = newPlan(r.Scene)
	return r
}

// plan is what a world's faults do, moment by moment: which servers can
// reach which, which are up. The judges ask it whether a server could have
// had a majority at a moment, and whether a moment was calm. It reads the
// faults the world declared (a partition, a crash, a slow link), each with
// its own fields, so that what a story says of a fault is what was built.
type plan struct {
	servers []sim.NodeID
	faults  []scene.Fault
}

func newPlan(s *scene.Scene) plan { return plan{servers: s.Servers, faults: s.Declared()} }

// span is when f is in force: from its start until its end (forever, for a
// crash the node never comes back from).
func span(f scene.Fault) (from, until time.Duration) {
	switch f := f.(type) {
	case scene.Partition:
		return f.From, f.From + f.For
	case scene.SlowLink:
		return f.From, f.From + f.For
	case scene.Crash:
		if f.For == 0 {
			return f.At, time.Duration(math.MaxInt64)
		}
		return f.At, f.At + f.For
	}
	panic(fmt.Sprintf("ex07suite: no plan for the fault %s", f))
}

func active(f scene.Fault, t time.Duration) bool {
	from, until := span(f)
	return from <= t && t < until
}

// majority is the fewest servers any two groups of that size share.
func (pl plan) majority() int { return len(pl.servers)/2 + 1 }

// up reports whether node is up at t.
func (pl plan) up(t time.Duration, node sim.NodeID) bool { return !pl.crashedDuring(t, t, node) }

// crashedDuring reports whether node was down at any moment from a to b.
func (pl plan) crashedDuring(a, b time.Duration, node sim.NodeID) bool {
	for _, f := range pl.faults {
		if c, ok := f.(scene.Crash); ok && c.Node == node {
			if from, until := span(f); from <= b && until > a {
				return true
			}
		}
	}
	return false
}

// lastRestart is the last crash of node that it had come back from by t.
func (pl plan) lastRestart(node sim.NodeID, t time.Duration) (scene.Crash, bool) {
	var last scene.Crash
	found := false
	for _, f := range pl.faults {
		if c, ok := f.(scene.Crash); ok && c.Node == node && c.For > 0 && c.At+c.For <= t && (!found || c.At > last.At) {
			last, found = c, true
		}
	}
	return last, found
}

// connected reports whether a and b can reach each other at t: no active
// partition puts them in different groups (nodes in no group are one more
// group).
func (pl plan) connected(t time.Duration, a, b sim.NodeID) bool {
	for _, f := range pl.faults {
		if p, ok := f.(scene.Partition); ok && active(f, t) && group(p.Groups, a) != group(p.Groups, b) {
			return false
		}
	}
	return true
}

func group(groups [][]sim.NodeID, id sim.NodeID) int {
	return slices.IndexFunc(groups, func(g []sim.NodeID) bool { return slices.Contains(g, id) })
}

// reachable counts the servers up and connected to the sequencer at t, the
// sequencer included (zero if it is down).
func (pl plan) reachable(t time.Duration) int {
	if !pl.up(t, sequencer) {
		return 0
	}
	n := 0
	for _, id := range pl.servers {
		if pl.up(t, id) && pl.connected(t, sequencer, id) {
			n++
		}
	}
	return n
}

// majorityFor reports whether server could have had a majority behind it at
// t: it is up and connected to the sequencer, which is up and connected to
// a majority of the servers.
func (pl plan) majorityFor(t time.Duration, server sim.NodeID) bool {
	return pl.up(t, server) && pl.connected(t, server, sequencer) && pl.reachable(t) >= pl.majority()
}

// majorityDuring reports whether server could have had a majority at any
// moment from call to ret.
func (pl plan) majorityDuring(call, ret time.Duration, server sim.NodeID) bool {
	if pl.majorityFor(call, server) {
		return true
	}
	for _, f := range pl.faults {
		from, until := span(f)
		for _, t := range []time.Duration{from, until} {
			if t > call && t <= ret && pl.majorityFor(t, server) {
				return true
			}
		}
	}
	return false
}

// slowTo is the slow link between server and the sequencer in force at t,
// or nil.
func (pl plan) slowTo(t time.Duration, server sim.NodeID) *scene.SlowLink {
	for _, f := range pl.faults {
		if sl, ok := f.(scene.SlowLink); ok && active(f, t) && server != sequencer &&
			(sl.A == sequencer && sl.B == server || sl.B == sequencer && sl.A == server) {
			return &sl
		}
	}
	return nil
}

// describeLink says what a link's delays are: "405–418ms".
func describeLink(l sim.Link) string {
	if l.Min == l.Max {
		return suite.FormatTime(l.Min)
	}
	return strings.TrimSuffix(suite.FormatTime(l.Min), "ms") + "–" + suite.FormatTime(l.Max)
}

// calm reports whether t is a moment of the chapter's liveness promise: no
// fault active from settle before t to bound after it, and the sequencer
// up.
func (pl plan) calm(t time.Duration) bool {
	for _, f := range pl.faults {
		if from, until := span(f); from <= t+bound && until > t-settle {
			return false
		}
	}
	return true
}

// healed is when the last fault ended.
func (pl plan) healed() time.Duration {
	var at time.Duration
	for _, f := range pl.faults {
		_, until := span(f)
		at = max(at, until)
	}
	return at
}

// cutOff describes how server stood at t, for stories: "cut off from
// server-1 (partition server-3 controller-b | the rest from 1000ms for
// 2000ms)", or "" when it could reach a majority.
func (pl plan) cutOff(t time.Duration, server sim.NodeID) string {
	if pl.majorityFor(t, server) {
		return ""
	}
	var why []string
	for _, f := range pl.faults {
		if _, slow := f.(scene.SlowLink); !slow && active(f, t) {
			why = append(why, f.String())
		}
	}
	because := strings.Join(why, "; ")
	switch {
	case !pl.up(t, sequencer):
		return fmt.Sprintf("the sequencer %s was down (%s)", sequencer, because)
	case !pl.connected(t, server, sequencer):
		return fmt.Sprintf("cut off from the sequencer %s (%s)", sequencer, because)
	case server == sequencer:
		return fmt.Sprintf("the sequencer with only %d of %d servers on its side (%s)", pl.reachable(t), len(pl.servers), because)
	}
	return fmt.Sprintf("with only %d of %d servers on the sequencer's side (%s)", pl.reachable(t), len(pl.servers), because)
}

// ctl is one controller inside a world: its process, and a kube.Client
// pinned to its server that writes one short note per request for the
// timeline (note) in place of its own. The scene's log keeps the requests
// themselves, for the judges.
type ctl struct {
	*sim.Proc
	*kube.Client
}

// controller adds a client node, name, that runs f as a controller working
// through server.
func (r *run) controller(name string, server sim.NodeID, f func(c ctl)) {
	r.Client(name, func(p *sim.Proc, api *kube.Client) { f(ctl{Proc: p, Client: api.Pin(server).Noted(note)}) })
}

// The read modes a controller reads with: Latest, and Any ("0").
var (
	latest = kube.ReadOptions{ResourceVersion: kube.Latest}
	anyRV  = kube.ReadOptions{ResourceVersion: kube.Any}
)

// deployment is the Deployment at key with replicas, and resourceVersion rv
// (a precondition, if not zero): kubectl scale [--resource-version].
func deployment(key string, replicas int, rv int64) kube.Object {
	kind, name := kube.SplitKey(key)
	return kube.Object{Kind: kind, Name: name, Replicas: replicas, ResourceVersion: rv}
}

// note is a controller's note of q: what it asked and what it heard
// ("web=5 → yes rv 2", "get web → Unavailable").
func note(q kube.Request) string {
	var heard string
	switch reply := q.Reply.(type) {
	case kube.List:
		heard = fmt.Sprintf("%d items rv %d", len(reply.Items), reply.ResourceVersion)
	case kube.Object:
		heard = fmt.Sprintf("yes rv %d", reply.ResourceVersion)
		if _, read := q.Ask.(kube.GetRequest); read {
			heard = fmt.Sprintf("%d rv %d", reply.Replicas, reply.ResourceVersion)
		}
	}
	if q.Err != nil {
		heard = reason(q.Err)
	}
	return what(q.Ask) + " → " + heard
}

// what names a request as the timeline and the stories do: "web=5 if rv 3",
// "create web=5", "delete web", "get web", "get(0) web", "list", "list(0)".
func what(ask any) string {
	ifRV := func(rv int64) string {
		if rv == 0 {
			return ""
		}
		return fmt.Sprintf(" if rv %d", rv)
	}
	mode := func(opts kube.ReadOptions) string {
		if opts.ResourceVersion == kube.Any {
			return "(0)"
		}
		return ""
	}
	switch a := ask.(type) {
	case kube.CreateRequest:
		return fmt.Sprintf("create %s=%d", a.Object.Name, a.Object.Replicas)
	case kube.UpdateRequest:
		return fmt.Sprintf("%s=%d", a.Object.Name, a.Object.Replicas) + ifRV(a.Object.ResourceVersion)
	case kube.DeleteRequest:
		return "delete " + short(a.Key) + ifRV(a.ResourceVersion)
	case kube.GetRequest:
		return "get" + mode(a.Opts) + " " + short(a.Key)
	case kube.ListRequest:
		return "list" + mode(a.Opts)
	}
	return fmt.Sprint(ask)
}

// reason is an error's API reason: "Unavailable", "Timeout", "NotFound".
func reason(err error) string {
	var status kube.StatusError
	if errors.As(err, &status) {
		return status.Reason
	}
	return err.Error()
}

// refused reports whether err is an answer that says neither yes nor a
// definite no: Unavailable, Timeout, or a failure to reach the server.
func refused(err error) bool {
	return err != nil && !errors.Is(err, kube.ErrNotFound) && !errors.Is(err, kube.ErrAlreadyExists) && !errors.Is(err, kube.ErrConflict)
}

// short is a Deployment's name without its kind: "web".
func short(key string) string {
	_, name := kube.SplitKey(key)
	return name
}
