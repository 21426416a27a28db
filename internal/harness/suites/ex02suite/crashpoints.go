package ex02suite

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The write path's numbers: a sync takes syncLatency, and a writer waits
// writeTimeout for an answer before it counts its write as indefinite.
const (
	syncLatency  = 2 * time.Millisecond
	writeTimeout = 40 * time.Millisecond
)

// writer keeps the write path busy until end: creates, updates (blind and
// conditional), deletes (blind and conditional) and reads (gets, Latest and
// Any, and lists) of three deployments and three pods, every third request
// about a pod, so that changes to the two kinds interleave in the one
// history. Each write carries a value no other write uses (a deployment's
// replicas, a pod's owner), so that the checkers can tell them apart.
func writer(p *sim.Proc, c *kube.Client, i int, end time.Duration) {
	r := p.Rand()
	for n := 1; p.Now() < end; n++ {
		name := string(rune('a' + r.Intn(3)))
		obj := kube.Object{Kind: "deployments", Name: name, Replicas: i*100000 + n}
		if n%3 == 0 {
			obj = kube.Object{Kind: "pods", Name: name, Owner: fmt.Sprintf("deployments/web-%d", i*100000+n)}
		}
		key := obj.Key()
		var err error
		switch x := r.Intn(100); {
		case x < 30:
			_, err = c.Create(obj)
		case x < 60:
			_, err = c.Update(obj)
		case x < 75:
			var cur kube.Object
			if cur, err = c.Get(key, kube.ReadOptions{}); err == nil {
				obj.ResourceVersion = cur.ResourceVersion
				_, err = c.Update(obj)
			}
		case x < 80:
			_, err = c.Delete(key, 0)
		case x < 85:
			var cur kube.Object
			if cur, err = c.Get(key, kube.ReadOptions{}); err == nil {
				_, err = c.Delete(key, cur.ResourceVersion)
			}
		case x < 90:
			_, err = c.List(obj.Kind, kube.ReadOptions{})
		case x < 95:
			_, err = c.Get(key, kube.ReadOptions{ResourceVersion: kube.Any})
		default:
			_, err = c.Get(key, kube.ReadOptions{})
		}
		if errors.Is(err, kube.ErrUnavailable) {
			p.Sleep(5 * time.Millisecond)
		}
		p.Sleep(time.Duration(r.Intn(3000)) * time.Microsecond)
	}
}

// inFlight lists the acknowledged changes whose "ok" was on its way when
// crash x struck.
func (c *cluster) inFlight(x *crashRec) []check.Operation {
	var ops []check.Operation
	for _, op := range c.History.Operations() {
		if op.Acknowledged() && op.Call < x.at && op.Return > x.at {
			ops = append(ops, op)
		}
	}
	return ops
}

// struck says where in the write path crash x struck: what it did to the
// disk (the journal's record), and the "ok" that was on its way.
func (c *cluster) struck(x *crashRec) string {
	var parts []string
	switch {
	case x.unsynced > 0 && x.kept > 0:
		parts = append(parts, fmt.Sprintf("in the middle of a sync: %dB appended and not yet synced, of which the disk kept a torn %dB", x.unsynced, x.kept))
	case x.unsynced > 0:
		parts = append(parts, fmt.Sprintf("in the middle of a sync: %dB appended and not yet synced, all of it lost", x.unsynced))
	}
	if ops := c.inFlight(x); len(ops) > 0 {
		parts = append(parts, fmt.Sprintf("with the \"ok\" for %s on its way to %s", ops[0].Input, ops[0].Client))
	}
	if len(parts) == 0 {
		parts = append(parts, "with nothing unsynced on its disk")
	}
	return strings.Join(parts, ", ")
}

// crashPoints counts where the crashes of a world struck the write path:
// how many struck during a sync, how many of those tore a record, how many
// with an acknowledgement in flight; and the changes that timed out and
// were found durable.
func crashPoints(c *cluster) scene.Counts {
	n := scene.Counts{"durable-unacked": durableUnacked(c)}
	for _, x := range c.j.crashes() {
		n["crashes"]++
		if x.unsynced > 0 {
			n["unsynced"]++
		}
		if x.kept > 0 {
			n["torn"]++
		}
		if len(c.inFlight(x)) > 0 {
			n["in-flight"]++
		}
	}
	return n
}

// struckTheWritePath: across the seeds, one crash in twenty or more struck
// during a sync, one tore a record, one struck with an acknowledgement in
// flight. A narrow search (under fifty worlds) is too few to judge.
func struckTheWritePath(n scene.Counts, seeds []int64) *suite.Failure {
	if len(seeds) < 50 || n["unsynced"]*20 >= n["crashes"] && n["torn"] > 0 && n["in-flight"] > 0 {
		return nil
	}
	return &suite.Failure{Name: "vacuous-run", Seed: seeds[0], Story: fmt.Sprintf("the crashes missed the write path: "+
		"%d crashes: %d during a sync (%d leaving a torn record), %d with an acknowledgement in flight; %d changes that timed out were found durable",
		n["crashes"], n["unsynced"], n["torn"], n["in-flight"], n["durable-unacked"])}
}

// crashWorld builds and runs one world of crash-points: three writers keep
// the write path busy while the apiserver crashes twice, each time at an
// instant drawn from the seed (before, during or after the sync of a
// change, or with its acknowledgement in flight) and for a while drawn from
// it (the second, in one world of four, right after the first restart), and
// a reader reads every deployment and pod back once the writers are done.
func crashWorld(seed int64, open func(p *sim.Proc) kube.Storage) *cluster {
	c := newCluster(seed, open, []sim.NodeID{apiserver, "writer-1", "writer-2", "writer-3"},
		scene.WorldOptions(sim.DiskSyncLatency(syncLatency), sim.DiskTearsAtEdges()), scene.RequestTimeout(writeTimeout))
	r := c.W.Rand()
	between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(r.Int63n(int64(hi-lo))) }
	crash1 := between(40*time.Millisecond, 120*time.Millisecond)
	restart1 := crash1 + between(10*time.Millisecond, 40*time.Millisecond)
	crash2 := restart1 + between(20*time.Millisecond, 100*time.Millisecond)
	// In one world of four, a crash loop: down again a moment after the
	// boot, before any write is synced, so that the disk holds only what
	// the boot itself left there. Drawn apart, so that the other worlds
	// stay as they were.
	if loop := rand.New(rand.NewSource(seed ^ 0xb007)); loop.Intn(4) == 0 {
		crash2 = restart1 + 500*time.Microsecond + time.Duration(loop.Int63n(int64(2500*time.Microsecond)))
	}
	restart2 := crash2 + between(10*time.Millisecond, 40*time.Millisecond)
	end := restart2 + 60*time.Millisecond
	c.Inject(scene.Crash{Node: apiserver, At: crash1, For: restart1 - crash1}, scene.Crash{Node: apiserver, At: crash2, For: restart2 - crash2})
	for i := 1; i <= 3; i++ {
		c.Client(fmt.Sprintf("writer-%d", i), func(p *sim.Proc, api *kube.Client) { writer(p, api, i, end) })
	}
	c.Client("reader", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(end + 20*time.Millisecond)
		api = api.WithTimeout(kube.DefaultTimeout)
		for _, kind := range []string{"deployments", "pods"} {
			for _, name := range []string{"a", "b", "c"} {
				_, _ = api.Get(kind+"/"+name, kube.ReadOptions{})
			}
		}
	})
	c.auditAt(end+40*time.Millisecond, "deployments", "pods")
	c.Run(end + 50*time.Millisecond)
	return c
}

// durableUnacked counts writes whose client never heard the answer but
// whose change is in the final history: synced, not acknowledged.
func durableUnacked(c *cluster) int {
	n := 0
	for _, op := range c.History.Operations() {
		if !op.Indefinite() || !op.Input.Kind.Mutates() || op.Input.Kind == check.KindDelete {
			continue
		}
		for _, ch := range c.final() {
			if ch.Key == op.Input.Key && !ch.Deleted && fmt.Sprint(ch.Value) == fmt.Sprint(op.Input.Value) {
				n++
				break
			}
		}
	}
	return n
}

// lostAtACrashPoint: no acknowledged change was lost; the first that was
// is told with the crash that took it and where in the write path it
// struck.
func lostAtACrashPoint(c *cluster) *suite.Failure {
	v := c.lost()
	switch {
	case v == nil:
		return nil
	case len(v.Ops) == 0:
		return c.told(&suite.Failure{Name: "lost-acknowledged-write", At: v.At, Story: v.Story, Details: v.Details})
	}
	op := c.History.Operations()[v.Ops[0]]
	var pt *crashRec // the crash that took it
	for _, x := range c.j.crashes() {
		if x.at > op.Call {
			pt = x
			break
		}
	}
	story := fmt.Sprintf("%s received the apiserver's ok for its %s (rv %d) at %s", op.Client, op.Input, op.Result.Version, suite.FormatTime(op.Return))
	at := op.Return
	if pt != nil {
		at = pt.at
		story += fmt.Sprintf("; the apiserver crashed at %s %s", suite.FormatTime(pt.at), c.struck(pt))
		if pt.restart != 0 {
			story += fmt.Sprintf(", and came back at %s without it", suite.FormatTime(pt.restart))
		}
	} else {
		story += ", and its final history does not hold it"
	}
	if n := len(v.Ops) - 1; n > 0 {
		story += fmt.Sprintf(" (nor %d more acknowledged changes)", n)
	}
	return c.told(&suite.Failure{Name: "lost-acknowledged-write", At: at, Story: story, Details: v.Details + c.crashLines()})
}
