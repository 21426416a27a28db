package ex09suite

import (
	"math/rand"
	"slices"
	"testing"
	"time"

	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// Run runs the hidden suite of chapter 9 against the learner's API server
// and controller.
func Run(t *testing.T, impl Impl) { chapter(impl).Run(t) }

// chapter is the suite, declared: each row of the page's table is a check
// of its own over the randomized outages, and the story check runs the
// page's scene and asks every row, in the table's order.
func chapter(impl Impl) scene.Chapter[*run] {
	guard := &scene.Guard{MinCompleted: 10, MinCovered: 0.9}
	row := func(name string, judge scene.Judge[*run]) scene.Check[*run] {
		return scene.Check[*run]{Name: name, Plays: []scene.Play{{World: "random", Seeds: scene.Random(40), Guard: guard}},
			Judges: []scene.Judge[*run]{judge}}
	}
	table := []scene.Check[*run]{
		row("consistent-reads", (*run).consistentReads),
		row("cached-reads", (*run).cachedReads),
		row("writes", (*run).writes),
		row("watches", (*run).watchesFollow),
		row("controllers", (*run).controllerHeld),
		row("catch-up", (*run).caughtUp),
	}
	story := scene.Check[*run]{Name: "story", Plays: []scene.Play{{World: "story", Seeds: scene.Story(5)}},
		Figures: []scene.Figure[*run]{{Name: "outage", Text: (*run).outageFigure}}}
	for _, c := range table {
		for _, judge := range c.Judges {
			story.Judges = append(story.Judges, tabled(judge))
		}
	}
	// The controllers row plays the stale-count scene before its random
	// outages.
	table[4].Plays = slices.Insert(table[4].Plays, 0, scene.Play{World: "stale-count", Seeds: scene.Scenes(staleCountSeeds)})
	return scene.Chapter[*run]{
		ID: "ex09",
		Worlds: map[string]scene.Build[*run]{
			"story":       func(seed int64) *run { return play(seed, storyScenario(), impl) },
			"random":      func(seed int64) *run { return play(seed, randomScenario(seed), impl) },
			"stale-count": func(seed int64) *run { return play(seed, staleCountScenario(), impl) },
		},
		Checks: append([]scene.Check[*run]{story}, table...),
		Ran:    ran,
	}
}

// tabled adds the story's figure, what each client asked and got (the
// page's outage table), to the details of the failure judge finds: the
// learner reads it under the story.
func tabled(judge scene.Judge[*run]) scene.Judge[*run] {
	return scene.WithDetails(judge, func(r *run) string {
		return "what each client asked, and what it got:\n" + r.outageFigure()
	})
}

// ran judges whether the world ran to its end. The chapter's auditor is its
// own, not the scene's: the scene's audit is not asked for.
func ran(r *run) *suite.Failure {
	if r.s.Err == nil {
		return nil
	}
	f := suite.RunFailure(r.s.Err)
	return &f
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

// staleCountSeeds is how many seeds of the stale-count scene the
// controllers row plays.
const staleCountSeeds = 3

// staleCountScenario is a scene where server-1's cache holds a count the
// controller has not read, and that the history has left behind, when the
// store goes away: the pipeline scales web down to 3 at 900ms, server-1's
// cache takes the change before the link to etcd is cut at 1000ms, and the
// pipeline scales web up to 6 at 1100ms, which etcd takes and the cut-off
// cache never sees. The controller's link to server-1 is slower than its
// timeout from 850 to 1300ms, so no read of its tells it 3 before the cut.
// A controller that falls back to the cache when its consistent read
// fails reads 3 and deletes web-3 and web-4, which the history wants.
func staleCountScenario() scenario {
	cut := scene.Cut{A: server1, B: etcd, From: 1000 * ms, For: 3000 * ms}
	sc := scenario{
		cut:     cut,
		steps:   []step{{at: 4600 * ms, kind: listLatest}},
		downAt:  900 * ms,
		downTo:  3,
		scaleAt: 1100 * ms, scaleTo: 6,
		period: [2]time.Duration{100 * ms, 250 * ms},
		slow: &scene.SlowLink{A: controller, B: server1, Link: sim.Link{Min: controllerTimeout + 100*ms, Max: controllerTimeout + 300*ms},
			From: 850 * ms, For: 450 * ms},
	}
	sc.end = sc.auditAt() + 300*ms
	return sc
}

// randomScenario draws the randomized scene of seed: an outage of 1.2 to 4
// seconds beginning between 600 and 1500ms, kubectl's requests of every
// kind before, during and after it (a consistent read, a cached read and a
// write certainly during it, and a scale of batch on its way to etcd at the
// instant of the cut), and the pipeline's scale of web to 3, 4, 6 or 7
// somewhere inside it.
func randomScenario(seed int64) scenario {
	rnd := rand.New(rand.NewSource(seed)) // the scenario's own: the world draws its own from the same seed
	between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(rnd.Int63n(int64(hi-lo)+1)) }
	sc := scenario{period: [2]time.Duration{100 * ms, 250 * ms}}
	sc.cut = scene.Cut{A: server1, B: etcd, From: between(600*ms, 1500*ms), For: between(1200*ms, 4000*ms)}
	sc.scaleAt = sc.cut.From + between(sc.cut.For/5, sc.cut.For*4/5)
	sc.scaleTo = []int{3, 4, 6, 7}[rnd.Intn(4)]

	kinds := []opKind{getLatest, listLatest, getAny, listAny, listAnyDeploy, scaleBatch, scaleBatchIf, createJob, deleteJob, deleteJobIf}
	add := func(at time.Duration, k opKind) {
		sc.steps = append(sc.steps, step{at: at, kind: k, to: 10 + rnd.Intn(20), off: rnd.Int63n(3) - 1})
	}
	pick := func() opKind { return kinds[rnd.Intn(len(kinds))] }
	// Before the outage, a few requests; in it, a consistent read, a cached
	// read and a write in a random order, then more; after it, a few more.
	at := sc.cut.From - between(350*ms, 550*ms)
	for range 2 {
		add(at, pick())
		at += between(50*ms, 150*ms)
	}
	must := []opKind{[]opKind{getLatest, listLatest}[rnd.Intn(2)], []opKind{getAny, listAny, listAnyDeploy}[rnd.Intn(3)],
		[]opKind{scaleBatch, scaleBatchIf, createJob, deleteJob, deleteJobIf}[rnd.Intn(5)]}
	rnd.Shuffle(len(must), func(i, j int) { must[i], must[j] = must[j], must[i] })
	at = sc.cut.From + between(0, 300*ms)
	for _, k := range must {
		add(at, k)
		at += between(20*ms, 200*ms)
	}
	for at < sc.cut.Until()+600*ms {
		add(at, pick())
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
	default:
		// In the third, when it scaled web up, it deletes the pod web-1
		// after the heal, as a node drain would: web wants it back, by its
		// name, and none of web's pods is one too many, so the controller
		// has none to delete while web-1 is missing.
		if sc.scaleTo > initialReplicas {
			sc.evictAt = sc.cut.Until() + evictAfter
		}
	}
	// In one run of two the controller's link to server-1 is slower than
	// the controller's own timeout for a while during the outage.
	if rnd.Intn(2) == 0 {
		from := sc.cut.From + between(0, sc.cut.For/3)
		sc.slow = &scene.SlowLink{A: controller, B: server1, Link: sim.Link{Min: controllerTimeout + 100*ms, Max: controllerTimeout + 300*ms},
			From: from, For: between(300*ms, 600*ms)}
	}
	// Just before the cut, a scale of batch that server-1 hands on 40 to
	// 58ms before it, over a way to etcd slowed to inflightDelay for as
	// long before the cut: it reaches etcd once the link is cut, etcd takes
	// it, and its answer is lost.
	inflight := step{at: sc.cut.From - inflightLead, kind: scaleBatch, to: 30 + rnd.Intn(10)}
	sc.steps = slices.Insert(sc.steps, 2, inflight)
	sc.inflight = &scene.SlowOneWay{Sender: server1, Receiver: etcd, Link: sim.Link{Min: inflightDelay, Max: inflightDelay},
		From: sc.cut.From - inflightDelay, For: inflightDelay}
	return sc
}
