package ex02suite

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// writer keeps the write path busy until end: creates, updates (blind and
// conditional), deletes and reads of three deployments, each write with a
// value no other write uses, so that the checkers can tell them apart.
func writer(p *sim.Proc, i int, h *check.History, end time.Duration) {
	c := kube.NewClient(p, apiserver).Named(fmt.Sprintf("writer-%d", i)).Record(h).WithTimeout(40 * time.Millisecond)
	r := p.Rand()
	for n := 1; p.Now() < end; n++ {
		name := string(rune('a' + r.Intn(3)))
		key := "deployments/" + name
		obj := kube.Object{Kind: "deployments", Name: name, Replicas: i*100000 + n}
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
		case x < 85:
			_, err = c.Delete(key, 0)
		default:
			_, err = c.Get(key, kube.ReadOptions{})
		}
		if errors.Is(err, kube.ErrUnavailable) {
			p.Sleep(5 * time.Millisecond)
		}
		p.Sleep(time.Duration(r.Intn(3000)) * time.Microsecond)
	}
}

// crashPoint is what the write path held at the instant of a crash.
type crashPoint struct {
	at       time.Duration
	unsynced int               // bytes appended but not synced
	kept     int               // of those, what the disk kept: a torn tail
	inFlight []check.Operation // acknowledged changes whose "ok" was on its way
	restart  time.Duration     // when the node came back (0: never)
}

// pointsOf reads the apiserver's crashes back from the trace.
func pointsOf(c *cluster) []crashPoint {
	var pts []crashPoint
	ops := c.h.Operations()
	events := c.w.Trace().Events()
	for _, f := range c.crashes() {
		pt := crashPoint{at: f.Start}
		if !f.Open {
			pt.restart = f.End
		}
		for _, e := range events {
			if e.At == f.Start && e.Node == apiserver && e.Kind == sim.EvDisk && strings.HasPrefix(e.Text, "crash:") {
				var name string
				var lost, of int
				if _, err := fmt.Sscanf(e.Text, "crash: %s lost %dB of %dB unsynced", &name, &lost, &of); err == nil {
					pt.unsynced += of
					pt.kept += of - lost
				}
			}
		}
		for _, op := range ops {
			if op.Acknowledged() && op.Call < f.Start && op.Return > f.Start {
				pt.inFlight = append(pt.inFlight, op)
			}
		}
		pts = append(pts, pt)
	}
	return pts
}

// String says where in the write path the crash struck.
func (pt crashPoint) String() string {
	var parts []string
	switch {
	case pt.unsynced > 0 && pt.kept > 0:
		parts = append(parts, fmt.Sprintf("in the middle of a sync: %dB appended and not yet synced, of which the disk kept a torn %dB", pt.unsynced, pt.kept))
	case pt.unsynced > 0:
		parts = append(parts, fmt.Sprintf("in the middle of a sync: %dB appended and not yet synced, all of it lost", pt.unsynced))
	}
	if len(pt.inFlight) > 0 {
		parts = append(parts, fmt.Sprintf("with the \"ok\" for %s on its way to %s", pt.inFlight[0].Input, pt.inFlight[0].Client))
	}
	if len(parts) == 0 {
		parts = append(parts, "with nothing unsynced on its disk")
	}
	return strings.Join(parts, ", ")
}

// tally counts, across seeds, the points of the write path the crashes hit.
type tally struct {
	crashes, unsynced, torn, inFlight, durableUnacked int
}

func (t tally) String() string {
	return fmt.Sprintf("%d crashes: %d during a sync (%d leaving a torn record), %d with an acknowledgement in flight; %d changes that timed out were found durable",
		t.crashes, t.unsynced, t.torn, t.inFlight, t.durableUnacked)
}

// crashPoints crashes the apiserver twice per world while three writers
// keep its write path busy.
func crashPoints(t *testing.T, open func(p *sim.Proc) kube.Storage) {
	cols := []sim.NodeID{apiserver, "writer-1", "writer-2", "writer-3"}
	var cov check.Coverage
	var sum tally
	seeds := suite.Seeds(100)
	for _, seed := range seeds {
		c := newCluster(seed, open, sim.Latency(time.Millisecond, 5*time.Millisecond), sim.DiskSyncLatency(2*time.Millisecond))
		r := c.w.Rand()
		between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(r.Int63n(int64(hi-lo))) }
		crash1 := between(40*time.Millisecond, 120*time.Millisecond)
		restart1 := crash1 + between(10*time.Millisecond, 40*time.Millisecond)
		crash2 := restart1 + between(20*time.Millisecond, 100*time.Millisecond)
		restart2 := crash2 + between(10*time.Millisecond, 40*time.Millisecond)
		end := restart2 + 60*time.Millisecond
		for _, x := range []struct {
			at    time.Duration
			crash bool
		}{{crash1, true}, {restart1, false}, {crash2, true}, {restart2, false}} {
			if x.crash {
				c.w.At(x.at, func() { c.j.crash() })
			} else {
				c.w.At(x.at, func() { c.w.Restart(apiserver) })
			}
		}
		for i := 1; i <= 3; i++ {
			c.w.AddNode(sim.NodeID(fmt.Sprintf("writer-%d", i)), func(p *sim.Proc) { writer(p, i, c.h, end) })
		}
		c.w.AddNode("auditor", func(p *sim.Proc) {
			p.Sleep(end + 20*time.Millisecond)
			a := kube.NewClient(p, apiserver).Record(c.h)
			for _, name := range []string{"a", "b", "c"} {
				_, _ = a.Get("deployments/"+name, kube.ReadOptions{})
			}
		})
		c.auditAt(end+40*time.Millisecond, "deployments")
		err := c.w.Run(end + 50*time.Millisecond)
		c.w.Close()
		if explained(t, c, seed, cols...) {
			return
		}
		if err != nil {
			runError(t, c, seed, err, cols...)
			return
		}
		pts := pointsOf(c)
		if v := c.lost(); v != nil {
			reportLost(t, c, seed, v, pts, cols)
			return
		}
		if !linearizable(t, c, seed, cols...) {
			return
		}
		cov.Add(seed, check.Exercised(c.h, c.faults(), 20))
		for _, pt := range pts {
			sum.crashes++
			if pt.unsynced > 0 {
				sum.unsynced++
			}
			if pt.kept > 0 {
				sum.torn++
			}
			if len(pt.inFlight) > 0 {
				sum.inFlight++
			}
		}
		sum.durableUnacked += durableUnacked(c)
	}
	if len(seeds) < 50 {
		return // a replay, or a narrow search: too few worlds to judge coverage
	}
	v := cov.Check(0.9)
	if v == nil && (sum.unsynced*20 < sum.crashes || sum.torn == 0 || sum.inFlight == 0) {
		v = &check.Violation{Name: "vacuous-run", Story: "the crashes missed the write path: " + sum.String()}
	}
	if v != nil {
		suite.Report(t, suite.Failure{Name: "vacuous-run", Clause: v.Clause, Story: v.Story, Details: v.Details + "\n" + sum.String(), Seed: seeds[0]})
		return
	}
	t.Logf("%d worlds, %s", len(seeds), sum)
}

// durableUnacked counts writes whose client never heard the answer but
// whose change is in the final history: synced, not acknowledged.
func durableUnacked(c *cluster) int {
	n := 0
	for _, op := range c.h.Operations() {
		if !op.Indefinite() || !op.Input.Kind.Mutates() || op.Input.Kind == check.KindDelete {
			continue
		}
		for _, ch := range c.final {
			if ch.Key == op.Input.Key && !ch.Deleted && fmt.Sprint(ch.Value) == fmt.Sprint(op.Input.Value) {
				n++
				break
			}
		}
	}
	return n
}

// reportLost tells the first acknowledged change a crash took away.
func reportLost(t *testing.T, c *cluster, seed int64, v *check.Violation, pts []crashPoint, cols []sim.NodeID) {
	t.Helper()
	if len(v.Ops) == 0 {
		fail(t, c, seed, "lost-acknowledged-write", v.At, v.Story, v.Details, cols...)
		return
	}
	op := c.h.Operations()[v.Ops[0]]
	var pt *crashPoint
	for i := range pts {
		if pts[i].at > op.Call {
			pt = &pts[i]
			break
		}
	}
	story := fmt.Sprintf("%s received the apiserver's ok for its %s (rv %d) at %s", op.Client, op.Input, op.Result.Version, suite.FormatTime(op.Return))
	at := op.Return
	if pt != nil {
		at = pt.at
		story += fmt.Sprintf("; the apiserver crashed at %s %s", suite.FormatTime(pt.at), pt)
		if pt.restart != 0 {
			story += fmt.Sprintf(", and came back at %s without it", suite.FormatTime(pt.restart))
		}
	} else {
		story += ", and its final history does not hold it"
	}
	if n := len(v.Ops) - 1; n > 0 {
		story += fmt.Sprintf(" (nor %d more acknowledged changes)", n)
	}
	fail(t, c, seed, "lost-acknowledged-write", at, story, v.Details+crashLines(c), cols...)
}
