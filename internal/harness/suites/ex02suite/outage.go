package ex02suite

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// maxRoundTrip is the longest a request and its answer take on the
// outage's links (5ms each way), plus a margin.
const maxRoundTrip = 11 * time.Millisecond

// outage crashes the apiserver once, for a random while, as kubectl writes
// and a dashboard reads: while it is down every request must be refused at
// once, and when it is back every acknowledged change must be there.
func outage(t *testing.T, open func(p *sim.Proc) kube.Storage) {
	cols := []sim.NodeID{apiserver, "kubectl", "dashboard"}
	for _, seed := range suite.Seeds(60) {
		c := newCluster(seed, open, sim.Latency(time.Millisecond, 5*time.Millisecond))
		r := c.w.Rand()
		down := 150*time.Millisecond + time.Duration(r.Int63n(int64(150*time.Millisecond)))
		up := down + 300*time.Millisecond + time.Duration(r.Int63n(int64(1200*time.Millisecond)))
		end := up + 500*time.Millisecond
		c.w.At(down, func() { c.j.crash() })
		c.w.At(up, func() { c.w.Restart(apiserver) })
		c.w.AddNode("kubectl", func(p *sim.Proc) {
			k := kube.NewClient(p, apiserver).Record(c.h).WithTimeout(50 * time.Millisecond)
			for n := 1; p.Now() < end-100*time.Millisecond; n++ {
				name := fmt.Sprintf("web-%d", n%4)
				obj := kube.Object{Kind: "deployments", Name: name, Replicas: n}
				if _, err := k.Update(obj); errors.Is(err, kube.ErrNotFound) {
					_, _ = k.Create(obj)
				}
				p.Sleep(20 * time.Millisecond)
			}
		})
		c.w.AddNode("dashboard", func(p *sim.Proc) {
			d := kube.NewClient(p, apiserver).Record(c.h).WithTimeout(50 * time.Millisecond)
			for n := 0; p.Now() < end-50*time.Millisecond; n++ {
				_, _ = d.Get(fmt.Sprintf("deployments/web-%d", n%4), kube.ReadOptions{})
				p.Sleep(15 * time.Millisecond)
			}
		})
		c.auditAt(end-10*time.Millisecond, "deployments")
		err := c.w.Run(end)
		c.w.Close()
		if explained(t, c, seed, cols...) {
			return
		}
		if err != nil {
			runError(t, c, seed, err, cols...)
			return
		}
		gap := up - down
		// While down: every request that reached the node must have been
		// refused (Unavailable), within a round trip.
		refused := 0
		for _, op := range c.h.Operations() {
			if op.Call < down || op.Call > up-maxRoundTrip {
				continue
			}
			if op.Result.Outcome != check.Refused || op.Return-op.Call > maxRoundTrip {
				fail(t, c, seed, "dishonest-outage", op.Call, fmt.Sprintf(
					"the apiserver was down from %s to %s, yet %s did not hear Unavailable at once: %s",
					suite.FormatTime(down), suite.FormatTime(up), op.Client, op), "", cols...)
				return
			}
			refused++
		}
		if refused < 10 {
			fail(t, c, seed, "vacuous-run", down, fmt.Sprintf(
				"only %d requests met the outage from %s to %s: it tested nothing", refused, suite.FormatTime(down), suite.FormatTime(up)), "", cols...)
			return
		}
		if v := c.lost(); v != nil {
			story := fmt.Sprintf("for %s there was no cluster (the apiserver was down from %s to %s) and %d requests heard Unavailable, an honest answer; ",
				suite.FormatTime(gap), suite.FormatTime(down), suite.FormatTime(up), refused)
			at := up
			if op, ok := firstEmptyAnswer(c, down, up); ok {
				at = op.Return
				story += fmt.Sprintf("back at %s, it told %s that %s was not found at %s, though it had acknowledged the object before the crash: an empty cluster is not an honest answer",
					suite.FormatTime(up), op.Client, op.Input.Key, suite.FormatTime(op.Return))
			} else {
				story += "back at " + suite.FormatTime(up) + ", it had lost what it acknowledged: " + v.Story
			}
			fail(t, c, seed, "lost-acknowledged-write", at, story, v.Details+crashLines(c), cols...)
			return
		}
		if !linearizable(t, c, seed, cols...) {
			return
		}
		if suite.Replaying() {
			t.Logf("seed %d: for %s there was no cluster; %d requests heard Unavailable within %s each, and afterwards every acknowledged change was there",
				seed, suite.FormatTime(gap), refused, suite.FormatTime(maxRoundTrip))
		}
	}
}

// firstEmptyAnswer finds the first read after the restart that answered
// NotFound for a key the apiserver had acknowledged writing (not deleting)
// before the crash.
func firstEmptyAnswer(c *cluster, down, up time.Duration) (check.Operation, bool) {
	ops := c.h.Operations()
	written := map[string]bool{}
	for _, op := range ops {
		if op.Acknowledged() && op.Return < down {
			written[op.Input.Key] = op.Input.Kind != check.KindDelete
		}
	}
	for _, op := range ops {
		if op.Call >= up && op.Input.Kind == check.KindRead && op.Result.Outcome == check.NotFound && written[op.Input.Key] {
			return op, true
		}
	}
	return check.Operation{}, false
}
