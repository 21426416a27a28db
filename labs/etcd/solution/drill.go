// Package solution is the reference drill of the etcd lab
// (book/lab-etcd.md): ex03's reference drill, pointed at real etcd.
//
// Writers put values no one has written before through the balancer, and
// after every acknowledged put read the key back from one server chosen at
// random; a reader per server keeps asking it about every key; each server in turn is cut
// off from its peers while all this goes on; an auditor reads every key from
// every server once the faults are over. Then the drill asks the two
// questions of ex03: does one history explain every answer
// (check.Linearizable, with etcd's revisions as the versions), and do the
// servers hold the same thing in the end?
package solution

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/labs/etcd/drill"
)

// keys are the values the writers change: few, so that writes and reads of
// one key meet often.
var keys = []string{"deployments/web", "deployments/api", "deployments/db"}

const (
	writers   = 3
	writeTill = 1500 * time.Millisecond // writers stop here; the faults are over by then
	auditAt   = 2000 * time.Millisecond // the auditor reads every server then, when late writes have landed
	runFor    = 3 * time.Second
	isolation = 400 * time.Millisecond
)

// Drill runs the chaos drill on c and returns a finding, an error that
// tells what contradicted what, when the cluster broke the contract, and
// nil when it held. Refusals and timeouts during a fault are honest, not
// findings.
func Drill(c *drill.Cluster) error {
	h := check.NewHistory()
	servers := c.Servers()

	for i := 1; i <= writers; i++ {
		c.Client(fmt.Sprintf("writer-%d", i), func(p *drill.Proc) { write(p, i, servers, h) })
	}
	// A reader per server keeps asking it about every key, before, during
	// and after the faults: a server cut off from the others answers from
	// what it last knew, and someone must be asking it just then.
	for _, s := range servers {
		c.Client("reader-"+s, func(p *drill.Proc) {
			api := drill.NewClient(p, servers...).Pin(s).Record(h)
			for p.Now() < writeTill && !p.Done() {
				for _, k := range keys {
					api.Get(k) //nolint:errcheck // recorded in h
				}
				p.Sleep(5 * time.Millisecond)
			}
		})
	}

	// The auditor: once every fault is over, what does each server hold?
	var mu sync.Mutex
	held := map[string]map[string]string{}
	c.Client("auditor", func(p *drill.Proc) {
		p.Sleep(auditAt)
		api := drill.NewClient(p, servers...).Record(h)
		for _, s := range servers {
			for _, k := range keys {
				o, err := api.Pin(s).Get(k)
				mu.Lock()
				if held[s] == nil {
					held[s] = map[string]string{}
				}
				switch {
				case err == nil:
					held[s][k] = fmt.Sprint(o.Value)
				case errors.Is(err, drill.ErrNotFound):
					held[s][k] = "nothing"
				}
				mu.Unlock()
			}
		}
	})

	// The faults, with the writers busy: each server is cut off from its
	// peers once, one after another.
	at := 200 * time.Millisecond
	for _, s := range servers {
		c.At(at, func() { c.Isolate(s) })
		c.At(at+isolation, func() { c.Rejoin(s) })
		at += isolation + 50*time.Millisecond
		if at+isolation > writeTill {
			break
		}
	}

	if err := c.Run(runFor); err != nil {
		return err
	}
	if l := check.Linearizable(h, 0); !l.OK() {
		return fmt.Errorf("%s: %s\n%s", l.Violation.Name, l.Violation.Story, l.Violation.Details)
	}
	return compare(servers, held)
}

// write is one writer: it puts a value no one has written before to a
// random key through the balancer, then reads the key back from one server
// chosen at random, until writeTill.
func write(p *drill.Proc, id int, servers []string, h *check.History) {
	// A short timeout: a put sent to a server cut off from the others waits
	// for a leader it cannot reach, and the writer must get on with it.
	api := drill.NewClient(p, servers...).Record(h).WithTimeout(150 * time.Millisecond)
	for n := 1; p.Now() < writeTill && !p.Done(); n++ {
		key := keys[p.Rand().IntN(len(keys))]
		if _, err := api.Put(key, id*10000+n); err == nil {
			s := servers[p.Rand().IntN(len(servers))]
			api.Pin(s).Get(key) //nolint:errcheck // recorded in h
		}
		p.Sleep(2*time.Millisecond + time.Duration(p.Rand().Int64N(int64(8*time.Millisecond))))
	}
}

// compare returns a finding if two servers that both answered hold
// different things for the same key.
func compare(servers []string, held map[string]map[string]string) error {
	var diffs []string
	for _, k := range keys {
		first := ""
		for _, s := range servers {
			v, ok := held[s][k]
			if !ok {
				continue // it did not answer: honest, not a finding
			}
			if first == "" {
				first = s
				continue
			}
			if f := held[first][k]; f != v {
				diffs = append(diffs, fmt.Sprintf("%s: %s holds %s, %s holds %s", k, first, f, s, v))
			}
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("divergent-servers: after every fault was over, the servers disagree:\n  %s", strings.Join(diffs, "\n  "))
	}
	return nil
}
