package ex02suite

import (
	"errors"
	"fmt"
	"math/rand"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// maxRoundTrip is the longest a request and its answer take on the
// outage's links, plus a margin; clientTimeout is how long kubectl and the
// dashboard wait for an answer.
const (
	maxRoundTrip  = 2*linkMax + time.Millisecond
	clientTimeout = 50 * time.Millisecond
)

// outageWorld builds and runs one world of the outage: kubectl writes and
// a dashboard reads while the apiserver is down once, from an instant drawn
// from the seed for a while drawn from it; meanwhile there is no cluster,
// and the honest answer says so (Unavailable). In one world of four it goes
// down only after a second or more of writes, so that the log it comes back
// to is a few pages long (tens of records, over 4 KiB), as the log of a
// cluster that has run for a while is.
func outageWorld(seed int64, open func(p *sim.Proc) kube.Storage) *cluster {
	c := newCluster(seed, open, []sim.NodeID{apiserver, "kubectl", "dashboard"}, scene.RequestTimeout(clientTimeout))
	r := c.W.Rand()
	down := 150*time.Millisecond + time.Duration(r.Int63n(int64(150*time.Millisecond)))
	// In one world of four, a second more of writes before the crash, so
	// that the log the boot reads back is a few pages long. Drawn apart, so
	// that the other worlds stay as they were.
	if long := rand.New(rand.NewSource(seed ^ 0x10c)); long.Intn(4) == 0 {
		down += time.Second
	}
	up := down + 300*time.Millisecond + time.Duration(r.Int63n(int64(1200*time.Millisecond)))
	end := up + 500*time.Millisecond
	c.Inject(scene.Crash{Node: apiserver, At: down, For: up - down})
	c.Client("kubectl", func(p *sim.Proc, k *kube.Client) {
		for n := 1; p.Now() < end-100*time.Millisecond; n++ {
			name := fmt.Sprintf("web-%d", n%4)
			obj := kube.Object{Kind: "deployments", Name: name, Replicas: n}
			_, err := k.Update(obj)
			switch {
			case errors.Is(err, kube.ErrNotFound):
				_, _ = k.Create(obj)
			case err == nil && n%3 == 0:
				// Applied again, as kubectl apply is: an update that
				// changes nothing, answered ok and numbered nothing.
				_, _ = k.Update(obj)
			}
			p.Sleep(20 * time.Millisecond)
		}
	})
	c.Client("dashboard", func(p *sim.Proc, d *kube.Client) {
		for n := 0; p.Now() < end-50*time.Millisecond; n++ {
			_, _ = d.Get(fmt.Sprintf("deployments/web-%d", n%4), kube.ReadOptions{})
			p.Sleep(15 * time.Millisecond)
		}
	})
	c.auditAt(end-10*time.Millisecond, "deployments")
	c.Run(end)
	return c
}

// outage is the world's one crash: when the apiserver went down and when
// it was back.
func (c *cluster) outage() (down, up time.Duration) {
	x := c.j.crashes()[0]
	return x.at, x.restart
}

// met lists the requests that met the outage: sent while the apiserver was
// down, early enough to be answered before it was back.
func (c *cluster) met() []check.Operation {
	down, up := c.outage()
	var met []check.Operation
	for _, op := range c.History.Operations() {
		if op.Call >= down && op.Call <= up-maxRoundTrip {
			met = append(met, op)
		}
	}
	return met
}

// honestOutage: every request that met the outage was refused
// (Unavailable), within a round trip.
func honestOutage(c *cluster) *suite.Failure {
	down, up := c.outage()
	for _, op := range c.met() {
		if op.Result.Outcome != check.Refused || op.Return-op.Call > maxRoundTrip {
			return c.told(&suite.Failure{Name: "dishonest-outage", At: op.Call, Story: fmt.Sprintf(
				"the apiserver was down from %s to %s, yet %s did not hear Unavailable at once: %s",
				suite.FormatTime(down), suite.FormatTime(up), op.Client, op)})
		}
	}
	return nil
}

// outageMet: ten requests or more met the outage, or it tested nothing.
func outageMet(c *cluster) *suite.Failure {
	if n := len(c.met()); n < 10 {
		down, up := c.outage()
		return c.told(&suite.Failure{Name: "vacuous-run", At: down, Story: fmt.Sprintf(
			"only %d requests met the outage from %s to %s: it tested nothing", n, suite.FormatTime(down), suite.FormatTime(up))})
	}
	return nil
}

// keptThroughOutage: when the apiserver was back it held every
// acknowledged change; the first read it answered NotFound for one, if
// any, is the story.
func keptThroughOutage(c *cluster) *suite.Failure {
	v := c.lost()
	if v == nil {
		return nil
	}
	down, up := c.outage() // every request that met it heard Unavailable: honestOutage is judged first
	story := fmt.Sprintf("for %s there was no cluster (the apiserver was down from %s to %s) and %d requests heard Unavailable, an honest answer; ",
		suite.FormatTime(up-down), suite.FormatTime(down), suite.FormatTime(up), len(c.met()))
	at := up
	if op, ok := firstEmptyAnswer(c, down, up); ok {
		at = op.Return
		story += fmt.Sprintf("back at %s, it told %s that %s was not found at %s, though it had acknowledged the object before the crash: an empty cluster is not an honest answer",
			suite.FormatTime(up), op.Client, op.Input.Key, suite.FormatTime(op.Return))
	} else {
		story += "back at " + suite.FormatTime(up) + ", it had lost what it acknowledged: " + v.Story
	}
	return c.told(&suite.Failure{Name: "lost-acknowledged-write", At: at, Story: story, Details: v.Details + c.crashLines()})
}

// firstEmptyAnswer finds the first read after the restart that answered
// NotFound for a key the apiserver had acknowledged writing (not deleting)
// before the crash.
func firstEmptyAnswer(c *cluster, down, up time.Duration) (check.Operation, bool) {
	ops := c.History.Operations()
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
