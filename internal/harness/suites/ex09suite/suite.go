package ex09suite

import (
	"math/rand"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// Run runs the hidden suite of chapter 9 against the learner's API server
// and controller.
func Run(t *testing.T, impl Impl) {
	c := &chapter{impl: impl, runs: map[int64]*outcome{}}
	checks := map[string]suite.CheckFunc{"story": c.story}
	for i, rw := range rows {
		checks[rw.check] = func(t *testing.T) { c.row(t, i) }
	}
	suite.Run(t, "ex09", checks)
}

// chapter holds the learner's code and the randomized runs, which every
// row's check shares: each world runs once.
type chapter struct {
	impl Impl
	runs map[int64]*outcome
}

// outcome is what one world showed, judged row by row before the world
// was closed.
type outcome struct {
	runErr  *suite.Failure
	rows    []*suite.Failure // by row
	vacuous *check.Violation
}

// first is the first failure of the run, in the table's order.
func (o *outcome) first() *suite.Failure {
	if o.runErr != nil {
		return o.runErr
	}
	for _, f := range o.rows {
		if f != nil {
			return f
		}
	}
	return nil
}

// judge judges a run that has ended, row by row, and closes it.
func judge(r *run) *outcome {
	defer r.s.Close()
	o := &outcome{rows: make([]*suite.Failure, len(rows))}
	if r.runErr != nil {
		f := suite.RunFailure(r.runErr)
		f.Seed, f.At = r.s.Seed, f.At.Round(100*time.Microsecond)
		f.Timeline = r.s.Timeline(f.At)
		o.runErr = &f
		return o
	}
	for i, rw := range rows {
		o.rows[i] = rw.judge(r)
	}
	o.vacuous = check.Exercised(r.s.History, r.s.Faults, 10)
	return o
}

// storyScenario is the page's scene: the link between server-1 and etcd
// is cut at 1000ms and restored 3000ms later. At 1500ms kubectl asks
// server-1 for the pods, then for the pods from its cache, then tries to
// scale web to 6; at 2500ms the pipeline scales web to 7 through server-2.
func storyScenario() scenario {
	return scenario{
		cut: scene.Cut{A: server1, B: etcd, From: 1000 * ms, For: 3000 * ms},
		steps: []step{
			{at: 1500 * ms, kind: listLatest},
			{kind: listAny},
			{kind: scaleWeb, to: 6},
			{at: 4600 * ms, kind: listLatest},
		},
		scaleAt: 2500 * ms, scaleTo: 7,
		period: [2]time.Duration{100 * ms, 200 * ms},
		end:    7300 * ms,
	}
}

// randomScenario draws the randomized scene of seed: an outage of 1.2 to 4
// seconds beginning between 600 and 1500ms, kubectl's requests of every
// kind before, during and after it (a consistent read, a cached read and a
// write certainly during it), and the pipeline's scale of web to 3, 4, 6
// or 7 somewhere inside it.
func randomScenario(seed int64) scenario {
	rnd := rand.New(rand.NewSource(seed)) // the scenario's own: the world draws its own from the same seed
	between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(rnd.Int63n(int64(hi-lo)+1)) }
	sc := scenario{period: [2]time.Duration{100 * ms, 250 * ms}}
	sc.cut = scene.Cut{A: server1, B: etcd, From: between(600*ms, 1500*ms), For: between(1200*ms, 4000*ms)}
	sc.scaleAt = sc.cut.From + between(sc.cut.For/5, sc.cut.For*4/5)
	sc.scaleTo = []int{3, 4, 6, 7}[rnd.Intn(4)]

	kinds := []opKind{getLatest, listLatest, getAny, listAny, listAnyDeploy, scaleBatch, scaleBatchIf, createJob, deleteJob, deleteJobIf}
	pick := func() step {
		k := kinds[rnd.Intn(len(kinds))]
		return step{kind: k, to: 10 + rnd.Intn(20), off: rnd.Int63n(3) - 1}
	}
	// Before the outage, a few requests; in it, a consistent read, a cached
	// read and a write in a random order, then more; after it, a few more.
	at := sc.cut.From - between(200*ms, 500*ms)
	for range 2 {
		s := pick()
		s.at = at
		sc.steps = append(sc.steps, s)
		at += between(50*ms, 150*ms)
	}
	must := []opKind{[]opKind{getLatest, listLatest}[rnd.Intn(2)], []opKind{getAny, listAny, listAnyDeploy}[rnd.Intn(3)],
		[]opKind{scaleBatch, scaleBatchIf, createJob, deleteJob, deleteJobIf}[rnd.Intn(5)]}
	rnd.Shuffle(len(must), func(i, j int) { must[i], must[j] = must[j], must[i] })
	at = sc.cut.From + between(0, 300*ms)
	for _, k := range must {
		sc.steps = append(sc.steps, step{at: at, kind: k, to: 10 + rnd.Intn(20), off: rnd.Int63n(3) - 1})
		at += between(20*ms, 200*ms)
	}
	for at < sc.cut.Until()+600*ms {
		s := pick()
		s.at = at
		sc.steps = append(sc.steps, s)
		at += between(100*ms, 400*ms)
	}
	sc.end = sc.auditAt() + 300*ms
	// In two runs of three the pipeline deletes web while the link is cut;
	// in one of those two it creates web again after the link came back,
	// when the controller has had time to delete web's old pods.
	switch rnd.Intn(3) {
	case 0:
		sc.gone = true
	case 1:
		sc.gone = true
		sc.backAt = sc.cut.Until() + between(1400*ms, 1800*ms)
	}
	// In one run of two the controller's link to server-1 is slower than
	// the controller's own timeout for a while during the outage.
	if rnd.Intn(2) == 0 {
		from := sc.cut.From + between(0, sc.cut.For/3)
		sc.slow = &scene.SlowLink{A: controller, B: server1, Link: sim.Link{Min: controllerTimeout + 100*ms, Max: controllerTimeout + 300*ms},
			From: from, For: between(300*ms, 600*ms)}
	}
	return sc
}

// story is the page's scene, row by row. Its first world's requests are
// the figure "outage": what each client asked, and what it got, when.
func (c *chapter) story(t *testing.T) {
	for i, seed := range suite.StorySeeds(5) {
		r := play(seed, storyScenario(), c.impl)
		o := judge(r)
		if i == 0 {
			suite.Figure(t, "outage", r.outageFigure())
		}
		if f := o.first(); f != nil {
			suite.Report(t, *f)
			return
		}
	}
}

// row is one row of the table, judged over the randomized runs.
func (c *chapter) row(t *testing.T, i int) {
	var cov check.Coverage
	for _, seed := range suite.Seeds(40) {
		o := c.randomRun(seed)
		if o.runErr != nil {
			suite.Report(t, *o.runErr)
			return
		}
		if f := o.rows[i]; f != nil {
			suite.Report(t, *f)
			return
		}
		cov.Add(seed, o.vacuous)
	}
	suite.Coverage(t, &cov, 0.9)
}

func (c *chapter) randomRun(seed int64) *outcome {
	if o, ok := c.runs[seed]; ok {
		return o
	}
	o := judge(play(seed, randomScenario(seed), c.impl))
	c.runs[seed] = o
	return o
}
