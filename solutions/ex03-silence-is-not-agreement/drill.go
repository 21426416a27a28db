// Package ex03 is the chaos drill of chapter ex03, "Silence is not
// agreement" (book/ex03-silence-is-not-agreement.md): the reference
// solution.
//
// The drill the team ran killed a server while nobody wrote, and so could
// not tell two servers that agree from two servers that merely had nothing
// to disagree about. This one makes the cluster talk while it is hurt: a
// writer on each server changes deployments before, during and after each
// fault, and after every acknowledged write reads the key back from each
// server on its own; while a fault is on, a reader on each server reads
// every key again and again; an auditor reads everything from each server
// once the faults are over. Then the drill asks two questions of what the
// clients saw: is there one history that explains every answer
// (check.Linearizable), and do the servers hold the same thing in the end?
package ex03

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suites/ex03suite/drill"
)

// keys are the deployments the writers change: few, so that writes and
// reads of one key meet often.
func keys() []string { return []string{"web", "api", "db"} }

const (
	writeTill = 850 * time.Millisecond  // writers stop here, once the last fault is over
	auditAt   = 2000 * time.Millisecond // the auditor reads every server after that
	runFor    = 3 * time.Second
	// timeout bounds each write: a fault must not stall a writer for long.
	timeout = 200 * time.Millisecond
	// readTimeout bounds each read: a server that does not answer holds a
	// reader up for a moment only, and the reader is back before the fault
	// that follows is over.
	readTimeout = 100 * time.Millisecond
	// hurtPause is how long a writer rests between writes while a fault is
	// on (70 to 90ms when all is well); readPause, how long a reader rests
	// between reads of its key.
	hurtPause = 20 * time.Millisecond
	readPause = 80 * time.Millisecond
	// retryPause is how soon a reader asks again after a refusal or a
	// timeout: a server may refuse only until it gives up on its peer.
	retryPause = 10 * time.Millisecond
)

// window is one fault of the drill: the server it hurts, what begins it at
// from, and what ends it at till.
type window struct {
	server     sim.NodeID
	from, till time.Duration
	begin, end func()
}

// Drill runs the chaos drill on c and returns a finding, an error that tells
// what contradicted what, when the cluster broke the contract, and nil when
// it held. Refusals and timeouts during a fault are honest, not findings.
func Drill(c *drill.Cluster) error {
	h := check.NewHistory()
	servers := c.Servers()
	one, two := servers[:1], servers[1:]

	// The faults, with the writers busy: each server is cut off once and
	// goes down once, and each time it is back, the other one is hurt next,
	// before the cluster has had a quiet moment to set itself right.
	faults := []window{
		{servers[1], 200 * time.Millisecond, 320 * time.Millisecond, func() { c.Partition(two) }, c.Heal},
		{servers[0], 340 * time.Millisecond, 470 * time.Millisecond, func() { c.Crash(servers[0]) }, func() { c.Restart(servers[0]) }},
		{servers[1], 560 * time.Millisecond, 690 * time.Millisecond, func() { c.Crash(servers[1]) }, func() { c.Restart(servers[1]) }},
		{servers[0], 700 * time.Millisecond, 830 * time.Millisecond, func() { c.Partition(one) }, c.Heal},
	}
	for _, f := range faults {
		c.At(f.from, f.begin)
		c.At(f.till, f.end)
	}
	hurt := func(now time.Duration) bool {
		for _, f := range faults {
			if now >= f.from && now < f.till {
				return true
			}
		}
		return false
	}

	// A writer on each server: while one server is hurt, the other keeps
	// taking writes, and a write that one server took alone is what a
	// fault puts at risk.
	for i, s := range servers {
		c.Client(fmt.Sprintf("writer-%d", i+1), func(p *sim.Proc) { write(p, i+1, s, servers, h, hurt) })
	}

	// A reader on each server, for each key, reads it again and again
	// while the other server is hurt: a write a server lost, or never got,
	// shows only until someone overwrites it, and a server that answers
	// from a stale copy may do so only while the other one is away.
	for i, s := range servers {
		c.Client(fmt.Sprintf("reader-%d", i+1), func(p *sim.Proc) {
			api := kube.NewClient(p, s).Record(h).WithTimeout(readTimeout)
			for _, k := range keys() {
				p.Go("read "+k, func(p *sim.Proc) { read(p, api.For(p), s, "deployments/"+k, faults) })
			}
		})
	}

	// The auditor: once every fault is over, what does each server hold?
	held := map[sim.NodeID]map[string]kube.Object{}
	c.Client("auditor", func(p *sim.Proc) {
		p.Sleep(auditAt)
		api := kube.NewClient(p, servers...).Record(h).WithTimeout(timeout)
		for _, s := range servers {
			held[s] = map[string]kube.Object{}
			for _, k := range keys() {
				o, err := api.Pin(s).Get("deployments/"+k, kube.ReadOptions{})
				switch {
				case err == nil:
					held[s][k] = o
				case errors.Is(err, kube.ErrNotFound):
					held[s][k] = kube.Object{} // it answered: no such object
				}
			}
		}
	})

	if err := c.Run(runFor); err != nil {
		return err
	}

	// One history must explain every answer any client got. The cheapest
	// contradiction is looked for first: a read of a value that had been
	// overwritten before the read began.
	if err := staleRead(h); err != nil {
		return err
	}
	if l := check.Linearizable(h, 0); !l.OK() {
		return fmt.Errorf("%s: %s\n%s", l.Violation.Name, l.Violation.Story, l.Violation.Details)
	}
	// And, once it is over, the servers must hold the same thing.
	return compare(servers, held)
}

// write is the writer on server own: it changes a random deployment to a
// value no one has written before, then reads it back from every server,
// until writeTill. While a fault is on and its server takes writes, it
// writes every few milliseconds, when writes matter most; otherwise it
// rests longer.
func write(p *sim.Proc, id int, own sim.NodeID, servers []sim.NodeID, h *check.History, hurt func(time.Duration) bool) {
	api := kube.NewClient(p, servers...).Record(h)
	choices := keys()
	for n := 1; p.Now() < writeTill; n++ {
		key := choices[p.Rand().Intn(len(choices))]
		obj := kube.Object{Kind: "deployments", Name: key, Replicas: id*10000 + n}
		_, err := api.Pin(own).WithTimeout(timeout).Update(obj)
		if errors.Is(err, kube.ErrNotFound) {
			_, err = api.Pin(own).WithTimeout(timeout).Create(obj)
		}
		if err == nil {
			// Read it back from each server on its own, each read in a
			// process of its own, so that a server that does not answer
			// holds up neither the writer nor the other read: a server
			// that has not heard of an acknowledged write shows it here.
			for _, s := range servers {
				p.Go("read back", func(p *sim.Proc) {
					api.For(p).Pin(s).WithTimeout(readTimeout).Get(obj.Key(), kube.ReadOptions{}) //nolint:errcheck // recorded in h
				})
			}
		}
		pause := 70*time.Millisecond + time.Duration(p.Rand().Int63n(int64(20*time.Millisecond)))
		if err == nil && hurt(p.Now()) {
			pause = hurtPause
		}
		p.Sleep(pause)
	}
}

// read reads key from server with api, every readPause, during each fault
// window that hurts the other server; after a refusal or a timeout it asks
// again within retryPause, since a server that holds back at first may
// answer from its own copy once it has given up on its peer.
func read(p *sim.Proc, api *kube.Client, server sim.NodeID, key string, faults []window) {
	for _, f := range faults {
		if f.server == server {
			continue
		}
		if p.Now() < f.from {
			p.Sleep(f.from - p.Now())
		}
		for p.Now() < f.till {
			pause := readPause
			if _, err := api.Get(key, kube.ReadOptions{}); err != nil && !errors.Is(err, kube.ErrNotFound) {
				pause = retryPause
			}
			p.Sleep(pause)
		}
	}
}

// staleRead returns a finding if some read returned a value (or nothing)
// that an acknowledged write had already replaced before the read began:
// the write of the value read was acknowledged before the newer write
// started, and the newer write was acknowledged before (or at the very
// instant) the read started.
// Every value is written once and nothing is deleted, so a value names its
// write. It is a quick part of what check.Linearizable decides in full.
func staleRead(h *check.History) error {
	ops := h.Operations()
	writes := map[string][]check.Operation{}           // acknowledged writes, by key
	byValue := map[string]map[string]check.Operation{} // every write, by key and value
	for _, op := range ops {
		if op.Input.Kind != check.KindWrite && op.Input.Kind != check.KindCreate {
			continue
		}
		if byValue[op.Input.Key] == nil {
			byValue[op.Input.Key] = map[string]check.Operation{}
		}
		byValue[op.Input.Key][fmt.Sprint(op.Input.Value)] = op
		if op.Acknowledged() {
			writes[op.Input.Key] = append(writes[op.Input.Key], op)
		}
	}
	for _, r := range ops {
		if r.Input.Kind != check.KindRead || (r.Result.Outcome != check.OK && r.Result.Outcome != check.NotFound) {
			continue
		}
		read, known := check.Operation{}, false
		if r.Result.Outcome == check.OK {
			if read, known = byValue[r.Input.Key][fmt.Sprint(r.Result.Value)]; !known || !read.Acknowledged() {
				continue // a value whose write had no known end proves nothing
			}
		}
		for _, w := range writes[r.Input.Key] {
			if w.Return <= r.Call && (!known || read.Return < w.Call) {
				saw := "nothing"
				if known {
					saw = fmt.Sprintf("%v, written by %s's %s acknowledged at %s", r.Result.Value, read.Client, read.Input, ms(read.Return))
				}
				return fmt.Errorf("stale-read: %s read %s from %s at %s and got %s; but %s's %s was acknowledged at %s, before the read began",
					r.Client, r.Input.Key, r.Server, ms(r.Call), saw, w.Client, w.Input, ms(w.Return))
			}
		}
	}
	return nil
}

// ms prints a virtual time in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }

// compare returns a finding if two servers that both answered hold
// different things for the same deployment.
func compare(servers []sim.NodeID, held map[sim.NodeID]map[string]kube.Object) error {
	var diffs []string
	for _, k := range keys() {
		var first sim.NodeID
		for _, s := range servers {
			o, ok := held[s][k]
			if !ok {
				continue // it did not answer: honest, not a finding
			}
			if first == "" {
				first = s
				continue
			}
			if f := held[first][k]; f != o {
				diffs = append(diffs, fmt.Sprintf("deployments/%s: %s holds %s, %s holds %s", k, first, show(f), s, show(o)))
			}
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("divergent-servers: after every fault was over, the servers disagree:\n  %s", strings.Join(diffs, "\n  "))
	}
	return nil
}

func show(o kube.Object) string {
	if o.Kind == "" {
		return "nothing"
	}
	return o.String()
}
