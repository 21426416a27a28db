package ex05suite

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// chapter holds the learner's controller and the randomized runs, which the
// randomized and converges checks share: each world runs once.
type chapter struct {
	newController func() Controller
	runs          map[int64]*outcome
}

// outcome is what one world showed, rendered before the world was closed.
type outcome struct {
	runErr   *suite.Failure // the run could not go on
	over     *suite.Failure // too-many-pods
	final    *suite.Failure // no-convergence
	vacuous  *check.Violation
	creates  int
	monitorV *check.Violation
}

// story is the page's scene: web wants 5 and has web-0 and web-1; both
// controllers wake at 100ms, controller-a on server-1, controller-b on
// server-2, whose cache is 400ms behind. Never more than 5 pods; 5 at the end.
func (c *chapter) story(t *testing.T) {
	for _, seed := range suite.StorySeeds(20) {
		sc := scenario{initial: 5, pods: 2, startA: 100 * ms, startB: 100 * ms,
			period: [2]time.Duration{200 * ms, 300 * ms}, end: 6 * time.Second}
		o := c.play(seed, sc, storyScene)
		if f := firstOf(o.runErr, o.over, o.final); f != nil {
			suite.Report(t, *f)
			return
		}
		if o.creates == 0 {
			suite.Report(t, suite.Failure{Name: "vacuous-run", Clause: course.OneHistory, Seed: seed,
				Story: "no pod was ever created: web wanted 5 and had 2, and the controllers did nothing about it"})
			return
		}
	}
}

const storyScene = "the scene: deployments/web wants 5 pods and has web-0 and web-1. controller-a reads and writes through server-1, " +
	"controller-b through server-2, whose link to the history (etcd) takes 400ms each way, so its cache is 400ms behind. " +
	"Both controllers wake at 100ms."

const randomScene = "the scene: deployments/web wants 5 and has web-0 and web-1; controller-a works through server-1, controller-b through " +
	"server-2 (400ms from the history each way); one controller crashes and restarts; kubectl scales web to 2, then to 6."

// randomScenario draws the randomized scene of seed from the world's randomness.
func randomScenario(w *sim.World) scenario {
	r := w.Rand()
	between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(r.Int63n(int64(hi-lo)+1)) }
	sc := scenario{initial: 5, pods: 2, period: [2]time.Duration{150 * ms, 300 * ms}, end: 12 * time.Second}
	sc.startA = between(50*ms, 150*ms)
	sc.startB = sc.startA + between(0, 100*ms)
	sc.crash = []sim.NodeID{controllerA, controllerB}[r.Intn(2)]
	sc.crashAt = between(300*ms, 7000*ms)
	sc.restart = sc.crashAt + between(100*ms, 900*ms)
	sc.scales = []scale{{between(2000*ms, 4000*ms), 2}, {between(4500*ms, 6500*ms), 6}}
	return sc
}

// randomized: no create ever leaves more pods than desired, over many seeds.
func (c *chapter) randomized(t *testing.T) {
	var cov check.Coverage
	for _, seed := range suite.Seeds(100) {
		o := c.randomRun(seed)
		if f := firstOf(o.runErr, o.over); f != nil {
			suite.Report(t, *f)
			return
		}
		if o.monitorV != nil {
			suite.Report(t, suite.Failure{Name: o.monitorV.Name, Clause: o.monitorV.Clause, Story: o.monitorV.Story, Seed: seed})
			return
		}
		cov.Add(seed, o.vacuous)
	}
	suite.Coverage(t, &cov, 0.9)
}

// converges: in the randomized runs, exactly the desired pods at the end.
func (c *chapter) converges(t *testing.T) {
	for _, seed := range suite.Seeds(100) {
		o := c.randomRun(seed)
		if f := firstOf(o.runErr, o.final); f != nil {
			suite.Report(t, *f)
			return
		}
	}
}

func (c *chapter) randomRun(seed int64) *outcome {
	if o, ok := c.runs[seed]; ok {
		return o
	}
	o := c.play(seed, scenario{}, randomScene)
	c.runs[seed] = o
	return o
}

func firstOf(fs ...*suite.Failure) *suite.Failure {
	for _, f := range fs {
		if f != nil {
			return f
		}
	}
	return nil
}

// columns are the timeline's lanes, left to right as the request flows.
var columns = []sim.NodeID{controllerA, server1, etcd, server2, controllerB, kubectl}

// play builds and runs one world (the randomized scene if sc is zero) and
// renders what went wrong in it.
func (c *chapter) play(seed int64, sc scenario, scene string) *outcome {
	w := sim.New(seed) // only to draw the scene from the seed
	if sc.end == 0 {
		sc = randomScenario(w)
	}
	w.Close()
	cl := build(seed, sc, c.newController)
	defer cl.w.Close()
	cl.run()

	o := &outcome{creates: cl.creates}
	cols := columns
	if len(sc.scales) == 0 {
		cols = columns[:5]
	}
	timeline := func(focus time.Duration) string {
		return cl.w.Timeline(sim.TimelineOptions{Columns: cols, Focus: focus, MaxRows: 40, Width: 27, Filter: quiet})
	}
	details := scene
	if sc.crash != "" {
		details += fmt.Sprintf("\n  this run: controller-a starts at %s, controller-b at %s; %s crashes at %s and restarts at %s; kubectl scales web to 2 at %s and to 6 at %s.",
			suite.FormatTime(sc.startA), suite.FormatTime(sc.startB), sc.crash, suite.FormatTime(sc.crashAt), suite.FormatTime(sc.restart),
			suite.FormatTime(sc.scales[0].at), suite.FormatTime(sc.scales[1].at))
	}

	if cl.runErr != nil {
		f := suite.RunFailure(cl.runErr)
		if f.At == 0 {
			f.At = cl.w.Now()
		}
		f.At = f.At.Round(100 * time.Microsecond)
		f.Clause, f.Seed, f.Timeline = course.OneHistory, seed, timeline(f.At)
		f.Details = strings.TrimSpace(f.Details + "\n\n" + details)
		o.runErr = &f
		return o
	}
	if v := cl.over; v != nil {
		o.over = &suite.Failure{Name: "too-many-pods", Clause: course.AgreementFirst, Seed: seed, At: v.at.Round(100 * time.Microsecond),
			Story:    overStory(v),
			Details:  details + "\n\n" + overDetails(v),
			Timeline: timeline(v.at)}
	}
	o.monitorV = cl.monitor.Result()
	if o.monitorV != nil && o.monitorV.Name == "too-many-pods" {
		o.monitorV = nil // told by o.over
	}
	if pods, desired := cl.countPods(), cl.desired; pods != desired {
		o.final = &suite.Failure{Name: "no-convergence", Clause: course.OneHistory, Seed: seed, At: cl.w.Now().Round(100 * time.Microsecond),
			Story: fmt.Sprintf("at %s, long after the last fault, %s wants %d pods and the history holds %d (%s)",
				suite.FormatTime(cl.w.Now()), web, desired, pods, strings.Join(cl.podNames(), ", ")),
			Details:  details + "\n\n" + logTable(cl.log, 15),
			Timeline: timeline(cl.w.Now())}
	}
	var faults []check.Fault
	for _, f := range cl.w.Faults() {
		if f.Node != "" { // the crash; the slow link lasts the whole run and proves nothing
			faults = append(faults, check.Fault{Name: f.Desc, Start: f.Start, End: f.End})
		}
	}
	o.vacuous = check.Exercised(cl.history, faults, 10)
	return o
}

// quiet keeps the timeline to what the story needs: the clients' notes,
// etcd's accepted changes, the writes on their way, crashes and faults;
// not the caches' watches nor the reads relayed to etcd.
func quiet(e sim.Event) bool {
	switch e.Kind {
	case sim.EvNote, sim.EvCrash, sim.EvRestart, sim.EvFault:
		return true
	case sim.EvTimeout:
		_, watch := e.Msg.(kube.WatchRequest)
		return !watch
	case sim.EvSend:
		_, ok := e.Msg.(relayed)
		return ok
	}
	return false
}

// overStory is the one line: which create went over, and why it was made.
func overStory(v *overshoot) string {
	s := fmt.Sprintf("%s created %s through %s, the %s pod of %s, which wants %d",
		v.by, v.pod, v.via, ordinal(v.pods), web, v.desired)
	var why []string
	for _, id := range []sim.NodeID{controllerA, controllerB} {
		if d := v.beliefs[id].decision; d.made {
			why = append(why, fmt.Sprintf("%s had counted %d pods and sent %d %s on that count", id, d.pods, d.creates, plural(d.creates, "create")))
		}
	}
	if len(why) > 0 {
		s += "; " + strings.Join(why, ", ") + ": each created the difference it saw"
	}
	return s
}

// overDetails says what each controller had been told, and lists the
// changes that led to the overshoot.
func overDetails(v *overshoot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "what each controller had been told when %s landed:\n", v.pod)
	server := map[sim.NodeID]sim.NodeID{controllerA: server1, controllerB: server2}
	for _, id := range []sim.NodeID{controllerA, controllerB} {
		x := v.beliefs[id]
		fmt.Fprintf(&b, "  %s (through %s):", id, server[id])
		if d := x.decision; d.made {
			fmt.Fprintf(&b, " created %d on a count of %d pods (%s list at %s);", d.creates, d.pods, d.mode, suite.FormatTime(d.at))
		}
		if x.desiredSeen {
			fmt.Fprintf(&b, " web wants %d (%s read at %s);", x.desired, x.desiredMode, suite.FormatTime(x.desiredAt))
		}
		if x.podsSeen {
			fmt.Fprintf(&b, " %d pods (%s list at %s, a view at rv=%d while the history was at rv=%d)",
				x.pods, x.podsMode, suite.FormatTime(x.podsAt), x.podsView, x.podsTruth)
		}
		if !x.desiredSeen && !x.podsSeen {
			b.WriteString(" nothing yet")
		}
		b.WriteString("\n")
	}
	if v.justified > v.desired {
		fmt.Fprintf(&b, "  (%s's Latest read in this reconcile said %d, which would have allowed up to %d pods)\n", v.by, v.justified, v.justified)
	}
	b.WriteString("\nthe pods of web in the one history, change by change:\n")
	b.WriteString(logTable(v.log, 14))
	return b.String()
}

// logTable renders the last n changes.
func logTable(log []change, n int) string {
	var b strings.Builder
	if len(log) > n {
		fmt.Fprintf(&b, "  … %d earlier changes\n", len(log)-n)
		log = log[len(log)-n:]
	}
	fmt.Fprintf(&b, "  %-10s  %-34s  %-13s  %-8s  %4s  %7s\n", "at", "change", "by", "via", "pods", "desired")
	for _, c := range log {
		mark := ""
		if c.over {
			mark = "  ← too many"
		}
		fmt.Fprintf(&b, "  %-10s  %-34s  %-13s  %-8s  %4d  %7d%s\n", suite.FormatTime(c.at), c.what, c.by, c.via, c.pods, c.desired, mark)
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}
