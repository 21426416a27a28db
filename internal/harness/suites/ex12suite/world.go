package ex12suite

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/suites/ex12suite/agreed"
)

const (
	ms = time.Millisecond

	web = "deployments/web"
	api = "deployments/api"

	auditor sim.NodeID = "auditor"
)

// The chapter's network, stated once: clients sit next to the servers, and
// the servers 150–200ms from the agreed log (the story's followers).
var (
	clientLink = [2]time.Duration{ms, 2 * ms}
	logLink    = sim.Link{Min: 150 * ms, Max: 200 * ms}
)

// requestTimeout is how long a client waits for an answer: longer than a
// write takes (a round trip to the log, then the entry's way back) when
// nothing is lost.
const requestTimeout = 2 * time.Second

// world is one scene of the chapter and what its writers saw.
type world struct {
	*scene.Scene
	// events is each audited server's whole history, as a watch from 0
	// returned it.
	events map[sim.NodeID][]kube.Event
	// counter is the key whose replicas the writers add to, its replicas
	// when it was created, and every increment asked of it.
	counter string
	initial int64
	incs    []check.Increment

	story      *storyRun
	noop       *noopRun
	behind     *behindRun
	lostAnswer *lostAnswerRun
	late       *lateRun
	heal       *healRun
}

// newWorld builds a scene of three of the learner's servers, link from the
// agreed log, with the log's node.
func newWorld(seed int64, impl Impl, link sim.Link) *world {
	s := scene.New(seed, impl.Serve, scene.Servers(3), scene.Latency(clientLink[0], clientLink[1]),
		scene.RequestTimeout(requestTimeout))
	s.W.AddNode(agreed.Node, agreed.Serve)
	for _, id := range s.Servers {
		s.W.SetLinks(id, agreed.Node, link)
	}
	s.ShowMessages(func(e sim.Event) bool {
		// The client's requests show as its notes; of the log's messages,
		// the proposals.
		_, propose := e.Msg.(agreed.ProposeRequest)
		return propose
	})
	return &world{Scene: s}
}

// play has the auditor read every server at audit (auditAt) and runs the
// world to its end, 5s after the audit at the latest.
func (w *world) play(audit time.Duration) *world {
	w.auditAt(audit)
	w.Run(audit + 5*time.Second)
	return w
}

// auditAt reads every server's whole history at the time given (a watch of
// deployments from 0), then stops the world.
func (w *world) auditAt(at time.Duration) {
	w.W.AddNode(auditor, func(p *sim.Proc) {
		p.Sleep(at)
		w.events = map[sim.NodeID][]kube.Event{}
		for _, id := range w.Servers {
			if !w.W.Up(id) {
				continue
			}
			reply, err := p.Call(id, kube.WatchRequest{Kind: "deployments"}, requestTimeout)
			if evs, ok := reply.([]kube.Event); err == nil && (ok || reply == nil) {
				w.events[id] = evs
				p.Logf("%s holds %d changes", id, len(evs))
			}
		}
		w.Audited, w.AuditedAt = true, p.Now()
		w.W.Stop()
	})
}

// changes is a server's history as the checkers take it: each object's
// Value, so that a change of either field of a deployment is a change.
func changes(evs []kube.Event) []check.Change {
	out := make([]check.Change, 0, len(evs))
	for _, ev := range evs {
		out = append(out, check.Change{Version: ev.Object.ResourceVersion, Key: ev.Object.Key(),
			Value: ev.Object.Value(), Deleted: ev.Type == kube.Deleted})
	}
	return out
}

// longest is the longest audited history: the one history, when the servers
// hold prefixes of one.
func (w *world) longest() []kube.Event {
	var out []kube.Event
	for _, id := range w.Servers {
		if evs := w.events[id]; len(evs) > len(out) {
			out = evs
		}
	}
	return out
}

// longestServer is the server whose audited history is the longest.
func (w *world) longestServer() sim.NodeID {
	var id sim.NodeID
	n := -1
	for _, s := range w.Servers {
		if evs, ok := w.events[s]; ok && len(evs) > n {
			id, n = s, len(evs)
		}
	}
	return id
}

// increment adds by to the counter's replicas through the learner's
// GuaranteedUpdate and records what it reported. It is recorded pending
// when it begins: one still running when the suite reads the histories
// may have taken effect.
func (w *world) increment(impl Impl, p *sim.Proc, api *kube.Client, by int) error {
	i := len(w.incs)
	w.incs = append(w.incs, check.Increment{Client: string(p.Node()), Delta: int64(by), Call: p.Now(), Outcome: check.Pending})
	_, err := impl.Update(api, w.counter, func(o *kube.Object) { o.Replicas += by })
	w.incs[i].Return, w.incs[i].Outcome = p.Now(), outcomeOf(err)
	return err
}

// outcomeOf is what an error of GuaranteedUpdate tells its caller: done,
// not done (Conflict, NotFound, or a server that was never reached), or not
// known.
func outcomeOf(err error) check.Outcome {
	switch {
	case err == nil:
		return check.OK
	case errors.Is(err, kube.ErrConflict):
		return check.Conflict
	case errors.Is(err, kube.ErrNotFound):
		return check.NotFound
	}
	return check.Indefinite
}

// ran is the first judge of every check: the world ran to its end.
func ran(w *world) *suite.Failure { return scene.Ran(w.Scene) }

// unaudited: the suite could read no server's history.
func unaudited(w *world) *suite.Failure {
	if len(w.events) > 0 {
		return nil
	}
	return &suite.Failure{Name: "history-unread", Clause: course.OneHistory, At: w.W.Now(),
		Story: fmt.Sprintf("at %s the suite could read no server's history (a watch of deployments from resourceVersion 0): every server was down or did not answer within %s",
			suite.FormatTime(w.W.Now()), suite.FormatTime(requestTimeout))}
}

// oneHistory: every server applied the same changes in the same order.
func oneHistory(w *world) *suite.Failure {
	hs := map[string][]check.Change{}
	for id, evs := range w.events {
		hs[string(id)] = changes(evs)
	}
	v := check.OneHistory(hs)
	if v == nil {
		return nil
	}
	v.Story += ": the servers applied one agreed log and decided its entries differently, so a decision rests on something besides the entries before it"
	return scene.Violated(v)
}

// counted: the counter's changes are each one increment, and its final
// value is the acknowledged increments plus some of the unknown ones. Each
// change is told with the write that made it, as the writers recorded it.
func counted(w *world) *suite.Failure {
	if w.counter == "" {
		return nil
	}
	var cs []check.Change
	created, prevRV := false, int64(0)
	used := map[check.OpID]bool{}
	for _, ev := range w.longest() {
		if ev.Object.Key() != w.counter {
			continue
		}
		if !created && ev.Type == kube.Added {
			created, prevRV = true, ev.Object.ResourceVersion
			continue
		}
		c := check.Change{Version: ev.Object.ResourceVersion, Key: w.counter, Value: ev.Object.Replicas, Deleted: ev.Type == kube.Deleted}
		c.By = w.writersOf(ev, prevRV, used)
		if len(c.By) == 1 && c.By[0].Told != 0 {
			c.At = c.By[0].Told
		}
		cs = append(cs, c)
		prevRV = ev.Object.ResourceVersion
	}
	// An acknowledged write answered with a change's version that made
	// none of its own (no change took it) wrote the value already there.
	ops := w.History.Operations()
	for _, op := range ops {
		if op.Input.Key != w.counter || used[op.ID] || op.Result.Outcome != check.OK ||
			(op.Input.Kind != check.KindCompareAndSet && op.Input.Kind != check.KindWrite) {
			continue
		}
		for i := range cs {
			if cs[i].Version == op.Result.Version {
				cs[i].Unchanged = append(cs[i].Unchanged, writerOf(ops, op))
			}
		}
	}
	v := check.Counter(w.counter, w.initial, w.incs, cs)
	if v == nil {
		return nil
	}
	if v.At == 0 {
		// No record tells when the decisive change was made: the failure
		// is at the audit, the read of the histories that shows it.
		v.At = w.AuditedAt
	}
	v.Details += fmt.Sprintf("the suite read these changes at %s, from %s's history (a watch of deployments from rv 0)", suite.FormatTime(w.AuditedAt), w.longestServer())
	return scene.Violated(v)
}

// writersOf are the writes that may have made the change ev of the counter,
// whose version before it was prevRV: the update acknowledged with ev's
// version, else the unanswered updates that wrote ev's value on a
// precondition ev met (or none), not already taken by an earlier change.
// A write found alone is taken (used), so that a later change with the
// same value looks elsewhere.
func (w *world) writersOf(ev kube.Event, prevRV int64, used map[check.OpID]bool) []check.Writer {
	ops := w.History.Operations()
	var maybe []check.Operation
	for _, op := range ops {
		if op.Input.Key != w.counter || (op.Input.Kind != check.KindCompareAndSet && op.Input.Kind != check.KindWrite && op.Input.Kind != check.KindDelete) || used[op.ID] {
			continue
		}
		if op.Result.Outcome == check.OK && op.Result.Version == ev.Object.ResourceVersion {
			used[op.ID] = true
			return []check.Writer{writerOf(ops, op)}
		}
		deletes := op.Input.Kind == check.KindDelete
		if !op.Indefinite() || deletes != (ev.Type == kube.Deleted) || (!deletes && fmt.Sprint(op.Input.Value) != fmt.Sprint(ev.Object.Value())) {
			continue
		}
		if op.Input.IfVersion != 0 && op.Input.IfVersion != prevRV {
			continue
		}
		maybe = append(maybe, op)
	}
	if len(maybe) == 1 {
		used[maybe[0].ID] = true
	}
	var out []check.Writer
	for _, op := range maybe {
		out = append(out, writerOf(ops, op))
	}
	return out
}

// writerOf is op as a counter's story tells its writer: who sent it, when,
// when it was told done, and its client's last read of the key before it.
func writerOf(ops []check.Operation, op check.Operation) check.Writer {
	wr := check.Writer{Client: op.Client, Sent: op.Call}
	if op.Result.Outcome == check.OK {
		wr.Told = op.Return
	}
	for _, r := range ops {
		if r.Client == op.Client && r.Input.Kind == check.KindRead && r.Input.Key == op.Input.Key &&
			r.Result.Outcome == check.OK && r.Return <= op.Call && r.Return >= wr.ReadAt {
			wr.ReadAt, wr.ReadVersion, wr.ReadValue = r.Return, r.Result.Version, r.Result.Value
		}
	}
	return wr
}

// clientOn is a recording client for p that sends every request to one of
// servers, for a client that must not talk to the others.
func (w *world) clientOn(p *sim.Proc, servers ...sim.NodeID) *kube.Client {
	return kube.NewClient(p, servers...).Named(string(p.Node())).Record(w.History).Log(w.Requests).WithTimeout(w.Timeout)
}
