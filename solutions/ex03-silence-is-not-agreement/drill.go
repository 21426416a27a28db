// Package ex03 is the chaos drill of chapter ex03, "Silence is not
// agreement" (book/ex03-silence-is-not-agreement.md): the reference
// solution.
//
// The drill the team ran killed a server while nobody wrote, and so could
// not tell two servers that agree from two servers that merely had nothing
// to disagree about. This one makes the cluster talk while it is hurt:
// writers change deployments through the load balancer before, during and
// after each fault; after every acknowledged write they read the key back
// from each server on its own; an auditor reads everything from each server
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
var keys = []string{"web", "api", "db"}

const (
	writers   = 2
	writeTill = 1000 * time.Millisecond // writers stop here; the faults are over by then
	auditAt   = 2000 * time.Millisecond // the auditor reads every server after that
	runFor    = 3 * time.Second
	timeout   = 300 * time.Millisecond // per request: a fault must not stall the writers
)

// Drill runs the chaos drill on c and returns a finding, an error that tells
// what contradicted what, when the cluster broke the contract, and nil when
// it held. Refusals and timeouts during a fault are honest, not findings.
func Drill(c *drill.Cluster) error {
	h := check.NewHistory()
	servers := c.Servers()

	for i := 1; i <= writers; i++ {
		c.Client(fmt.Sprintf("writer-%d", i), func(p *sim.Proc) { write(p, i, servers, h) })
	}

	// A reader keeps asking both servers about a key, round after round,
	// before, during and after the faults: a write a server lost is visible
	// only until someone overwrites it, so someone must be looking all the
	// time.
	c.Client("reader", func(p *sim.Proc) {
		api := kube.NewClient(p, servers...).Record(h).WithTimeout(timeout)
		for p.Now() < writeTill {
			k := "deployments/" + keys[p.Rand().Intn(len(keys))]
			for _, s := range servers {
				api.Pin(s).Get(k, kube.ReadOptions{}) //nolint:errcheck // recorded in h
			}
			p.Sleep(80 * time.Millisecond)
		}
	})

	// The auditor: once every fault is over, what does each server hold?
	held := map[sim.NodeID]map[string]kube.Object{}
	c.Client("auditor", func(p *sim.Proc) {
		p.Sleep(auditAt)
		api := kube.NewClient(p, servers...).Record(h).WithTimeout(timeout)
		for _, s := range servers {
			held[s] = map[string]kube.Object{}
			for _, k := range keys {
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

	// The faults, with the writers busy: each server goes down once, and
	// each is cut off from the other once.
	c.At(200*time.Millisecond, func() { c.Crash(servers[0]) })
	c.At(350*time.Millisecond, func() { c.Restart(servers[0]) })
	c.At(420*time.Millisecond, func() { c.Partition(servers[1:]) })
	c.At(540*time.Millisecond, func() { c.Heal() })
	c.At(620*time.Millisecond, func() { c.Crash(servers[1]) })
	c.At(770*time.Millisecond, func() { c.Restart(servers[1]) })
	c.At(820*time.Millisecond, func() { c.Partition(servers[:1]) })
	c.At(940*time.Millisecond, func() { c.Heal() })

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

// write is one writer: it changes a random deployment to a value no one has
// written before, then reads it back from one server, until writeTill.
func write(p *sim.Proc, id int, servers []sim.NodeID, h *check.History) {
	api := kube.NewClient(p, servers...).Record(h).WithTimeout(timeout)
	for n := 1; p.Now() < writeTill; n++ {
		key := keys[p.Rand().Intn(len(keys))]
		obj := kube.Object{Kind: "deployments", Name: key, Replicas: id*10000 + n}
		_, err := api.Update(obj)
		if errors.Is(err, kube.ErrNotFound) {
			_, err = api.Create(obj)
		}
		if err == nil {
			// Read it back from one server, chosen at random: over many
			// writes, each server is asked right after a write it may
			// not have heard of yet.
			s := servers[p.Rand().Intn(len(servers))]
			api.Pin(s).Get(obj.Key(), kube.ReadOptions{}) //nolint:errcheck // recorded in h
		}
		p.Sleep(50*time.Millisecond + time.Duration(p.Rand().Int63n(int64(20*time.Millisecond))))
	}
}

// staleRead returns a finding if some read returned a value (or nothing)
// that an acknowledged write had already replaced before the read began:
// the write of the value read was acknowledged before the newer write
// started, and the newer write was acknowledged before the read started.
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
			if w.Return < r.Call && (!known || read.Return < w.Call) {
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
	for _, k := range keys {
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
