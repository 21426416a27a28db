package ex06suite

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The cluster every world of the chapter runs: two API servers, the same
// list on both, in the same order.
var servers = []sim.NodeID{"server-1", "server-2"}

// requestTimeout is how long a client waits for any answer. It is longer
// than a write needs over the slowest link of the chapter (400ms each way),
// so a timeout is rare; when one happens the operation is indefinite.
const requestTimeout = 2 * time.Second

// run is what one world left behind: the client history, what the auditor
// found on each server, and anything that went wrong with the run itself.
type run struct {
	w      *sim.World
	h      *check.History
	faults []check.Fault

	audited   bool                      // the auditor finished
	histories map[string][]check.Change // each server's history, from a watch from rv 0
	states    map[string]map[string]any // each server's objects (replicas by key), from reads with kube.Any
	auditedAt time.Duration

	err      error    // the world's own error: deadlock, panic, stuck process
	problems []string // replies the suite could not understand, or servers it could not audit
}

// addServers boots the learner's server on every server node.
func addServers(w *sim.World, serve Server) {
	for _, id := range servers {
		w.AddNode(id, func(p *sim.Proc) { serve(p, id, slices.Clone(servers)) })
	}
}

// client is one controller inside the world: a kube.Client that records
// every operation in the run's history and sends each request to the server
// the workload picks. It writes its own short notes for the timeline
// ("scale web=5 via server-1", "yes: web=5 rv 2").
type client struct {
	p *sim.Proc
	k *kube.Client
}

func newClient(p *sim.Proc, r *run) client {
	return client{p, kube.NewClient(p, servers...).Named(string(p.Node())).Record(r.h).WithTimeout(requestTimeout).Quiet()}
}

// create creates key with replicas through server.
func (c client) create(server sim.NodeID, key string, replicas int) {
	kind, name := kube.SplitKey(key)
	c.p.Logf("create %s=%d via %s", name, replicas, server)
	c.answer(c.k.Pin(server).Create(kube.Object{Kind: kind, Name: name, Replicas: replicas}))
}

// scale sets the replicas of key through server, unconditionally: kubectl
// scale without --resource-version.
func (c client) scale(server sim.NodeID, key string, replicas int) {
	kind, name := kube.SplitKey(key)
	c.p.Logf("scale %s=%d via %s", name, replicas, server)
	c.answer(c.k.Pin(server).Update(kube.Object{Kind: kind, Name: name, Replicas: replicas}))
}

// get reads key through server, Latest: consistent with every acknowledged
// write.
func (c client) get(server sim.NodeID, key string) {
	c.p.Logf("read %s via %s", short(key), server)
	obj, err := c.k.Pin(server).Get(key, kube.ReadOptions{ResourceVersion: kube.Latest})
	if err == nil {
		c.p.Logf("got %s=%d rv %d", obj.Name, obj.Replicas, obj.ResourceVersion)
		return
	}
	c.answer(obj, err)
}

// answer notes how a write ended.
func (c client) answer(obj kube.Object, err error) {
	var status *kube.StatusError
	switch {
	case err == nil:
		c.p.Logf("yes: %s=%d rv %d", obj.Name, obj.Replicas, obj.ResourceVersion)
	case errors.As(err, &status):
		c.p.Logf("no: %s", status.Reason)
	default:
		c.p.Logf("no: %v", err)
	}
}

// short is a Deployment's name without its kind, for notes: "web".
func short(key string) string {
	_, name := kube.SplitKey(key)
	return name
}

// audit reads, from inside the world, what every server holds: its whole
// history (a watch from resourceVersion 0) and each key's object (a read
// with kube.Any, served from the server's own copy).
func audit(p *sim.Proc, r *run, keys []string) {
	r.histories = map[string][]check.Change{}
	r.states = map[string]map[string]any{}
	for _, id := range servers {
		reply, err := p.Call(id, kube.WatchRequest{Kind: "deployments"}, requestTimeout)
		events, ok := reply.([]kube.Event)
		if err != nil || (!ok && reply != nil) {
			r.problems = append(r.problems, fmt.Sprintf("the suite could not read %s's history (a watch of deployments from resourceVersion 0): %v %T", id, err, reply))
			continue
		}
		changes := make([]check.Change, 0, len(events))
		for _, ev := range events {
			changes = append(changes, check.Change{Version: ev.Object.ResourceVersion, Key: ev.Object.Key(),
				Value: ev.Object.Replicas, Deleted: ev.Type == kube.Deleted})
		}
		r.histories[string(id)] = changes
		p.Logf("%s holds %d changes", id, len(changes))

		state := map[string]any{}
		for _, key := range keys {
			reply, err := p.Call(id, kube.GetRequest{Key: key, Opts: kube.ReadOptions{ResourceVersion: kube.Any}}, requestTimeout)
			switch obj, ok := reply.(kube.Object); {
			case err == nil && ok:
				state[key] = obj.Replicas
			case errors.Is(err, kube.ErrNotFound):
			default:
				r.problems = append(r.problems, fmt.Sprintf("the suite could not read %s from %s: %v %T", key, id, err, reply))
			}
		}
		r.states[string(id)] = state
	}
	r.audited, r.auditedAt = true, p.Now()
	p.World().Stop()
}

// finish runs the world to its end and gathers what the checkers need.
func (r *run) finish(limit time.Duration) {
	r.err = r.w.Run(limit)
	r.faults = suite.Faults(r.w)
	// A change is "accepted" at the moment its client heard yes; the
	// servers do not say when they applied it.
	acked := map[string]time.Duration{}
	for _, op := range r.h.Operations() {
		if op.Acknowledged() {
			acked[fmt.Sprint(op.Input.Key, "=", op.Input.Value)] = op.Return
		}
	}
	for _, changes := range r.histories {
		for i := range changes {
			changes[i].At = acked[fmt.Sprint(changes[i].Key, "=", changes[i].Value)]
		}
	}
}

// longest is the longest of the servers' histories: the final history, when
// they are prefixes of one.
func (r *run) longest() []check.Change {
	var out []check.Change
	for _, id := range servers {
		if h := r.histories[string(id)]; len(h) > len(out) {
			out = h
		}
	}
	return out
}

// writes counts the scale operations of the history, and those acknowledged.
func (r *run) writes() (all, acked int) {
	for _, op := range r.h.Operations() {
		if op.Input.Kind == check.KindWrite {
			all++
			if op.Acknowledged() {
				acked++
			}
		}
	}
	return all, acked
}
