// Package ex03suite is the hidden suite of chapter ex03, "Silence is not
// agreement". The learner writes a chaos drill, func Drill(c *drill.Cluster)
// error; the suite runs it against a zoo of two-server clusters (zoo.go),
// four that break the contract and two that keep it, over many seeds, and
// scores whether the drill tells them apart:
//
//   - catches-async-replication, catches-lost-write, catches-divergence,
//     catches-degraded-mode: the drill returns a finding for that broken
//     cluster on at least 90% of the seeds, and returns none for either
//     correct cluster on any seed (a drill that fails everything catches
//     nothing: it cannot tell). Degraded mode shows its fault only while a
//     fault is on, so a drill catches it only if it writes while server-2
//     is away and reads server-2 on its own, again and again, while
//     server-1 is.
//   - passes-correct-clusters: no finding for either correct cluster on any
//     seed, and at least one broken cluster caught (a drill that passes
//     everything proves nothing either).
//
// So a drill that always fails and one that always passes both score zero.
package ex03suite

import (
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/suites/ex03suite/drill"
)

const (
	chapter = "ex03"
	// defaultSeeds is how many worlds each cluster gets per run of the suite.
	defaultSeeds = 30
	// catchPercent is the share of seeds on which a broken cluster must be
	// caught: a drill may be unlucky in a world or two, never on most.
	catchPercent = 90

	nameSilence    = "silence-mistaken-for-agreement"
	nameFalseAlarm = "false-alarm"
)

// Run grades drill, the learner's chaos drill, against the zoo.
func Run(t *testing.T, impl func(c *drill.Cluster) error) {
	g := &grading{impl: impl, seeds: suite.Seeds(defaultSeeds), cache: map[string][]outcome{}}
	suite.Run(t, chapter, map[string]suite.CheckFunc{
		"catches-async-replication": g.catches(asyncReplication),
		"catches-lost-write":        g.catches(lostWrite),
		"catches-divergence":        g.catches(divergence),
		"catches-degraded-mode":     g.catches(degradedMode),
		"passes-correct-clusters":   g.passesCorrect,
	})
}

// outcome is what one drill concluded about one cluster in one world.
type outcome struct {
	seed     int64
	finding  error         // what the drill returned: nil is "healthy"
	runErr   error         // the world could not go on (deadlock, panic in a process, ...)
	panicked string        // the drill itself panicked: the value and stack
	runs     int           // how many times the drill ran the world
	end      time.Duration // the virtual time when the drill returned
}

func (o outcome) flagged() bool { return o.finding != nil }
func (o outcome) broke() bool   { return o.runErr != nil || o.panicked != "" }

// grading runs each cluster over the seeds once and remembers the outcomes,
// since several checks look at the same clusters.
type grading struct {
	impl  func(c *drill.Cluster) error
	seeds []int64
	cache map[string][]outcome
}

func (g *grading) outcomes(cl cluster) []outcome {
	if out, ok := g.cache[cl.name]; ok {
		return out
	}
	out := make([]outcome, len(g.seeds))
	for i, seed := range g.seeds {
		s, _, o := g.play(cl, seed)
		s.Close()
		out[i] = o
	}
	g.cache[cl.name] = out
	return out
}

// play builds the world of cl for seed, the scene's default of two servers
// on links of 2–20ms, and runs the drill in it. The caller judges the
// outcome and closes the scene.
func (g *grading) play(cl cluster, seed int64) (*scene.Scene, *drill.Cluster, outcome) {
	s := scene.New(seed, cl.boot, scene.Servers(2))
	c := drill.New(s.W, s.Servers...)
	o := outcome{seed: seed}
	func() {
		defer func() {
			if r := recover(); r != nil {
				o.panicked = fmt.Sprintf("%v\n%s", r, debug.Stack())
			}
		}()
		o.finding = g.impl(c)
	}()
	o.runs, o.runErr = c.Ran()
	o.end = s.W.Now()
	// The timeline: the servers, then the first clients the drill added.
	clients := c.Clients()
	s.Lanes(append(slices.Clone(s.Servers), clients[:min(len(clients), 3)]...)...)
	return s, c, o
}

// replay plays the world of o again, to tell its story; close it after.
func (g *grading) replay(cl cluster, o outcome) (*scene.Scene, *drill.Cluster) {
	s, c, _ := g.play(cl, o.seed)
	return s, c
}

// caught counts the seeds on which the drill flagged the cluster.
func caught(out []outcome) int {
	n := 0
	for _, o := range out {
		if o.flagged() {
			n++
		}
	}
	return n
}

func enough(n, of int) bool { return n*100 >= of*catchPercent }

// catches is the check that the drill catches broken cluster cl.
func (g *grading) catches(cl cluster) suite.CheckFunc {
	return func(t *testing.T) {
		out := g.outcomes(cl)
		if g.reportBroken(t, cl, out) {
			return
		}
		n := caught(out)
		t.Logf("the drill caught the cluster %q on %d of %d seeds", cl.name, n, len(out))
		if !enough(n, len(out)) {
			for _, o := range out {
				if !o.flagged() {
					g.reportMissed(t, cl, o, n, len(out))
					return
				}
			}
		}
		// Caught: but a drill that fails every cluster catches everything.
		g.checkNoFalseAlarm(t, fmt.Sprintf("your drill caught the cluster %q on %d of %d seeds, but it also ", cl.name, n, len(out)))
	}
}

// passesCorrect is the check that the drill leaves correct clusters alone
// and is not simply silent.
func (g *grading) passesCorrect(t *testing.T) {
	if !g.checkNoFalseAlarm(t, "") {
		return
	}
	var first *outcome
	var missed cluster
	for _, cl := range brokenClusters {
		out := g.outcomes(cl)
		for _, o := range out {
			if o.broke() {
				g.reportBroken(t, cl, out)
				return
			}
		}
		if enough(caught(out), len(out)) {
			return // it tells at least one broken cluster from the correct ones
		}
		if first == nil {
			for i := range out {
				if !out[i].flagged() {
					first, missed = &out[i], cl
					break
				}
			}
		}
	}
	g.reportMissed(t, missed, *first, caught(g.outcomes(missed)), len(g.seeds),
		"your drill passed every correct cluster, but it passes the broken ones too: a drill that never fails proves nothing.")
}

// checkNoFalseAlarm fails t if the drill flagged a correct cluster on any
// seed; it reports whether all was well. prefix, if any, starts the story
// and ends where a verb follows ("your drill ... but it also ").
func (g *grading) checkNoFalseAlarm(t *testing.T, prefix string) bool {
	for _, cl := range correctClusters {
		out := g.outcomes(cl)
		if g.reportBroken(t, cl, out) {
			return false
		}
		for _, o := range out {
			if !o.flagged() {
				continue
			}
			if prefix == "" {
				prefix = "your drill "
			}
			story := fmt.Sprintf("%sreported a finding against the cluster %q, which keeps the contract (seed %d): %s",
				prefix, cl.name, o.seed, firstLine(o.finding.Error()))
			s, _ := g.replay(cl, o)
			defer s.Close()
			s.Fail(t, suite.Failure{
				Name:   nameFalseAlarm,
				Clause: course.OneHistory,
				Story:  story,
				At:     o.end,
				Details: fmt.Sprintf("the cluster %q %s.\n"+
					"A refusal (Unavailable, TooManyRequests) or a timeout is honest; only answers that contradict each other are findings.\n"+
					"A drill that fails every cluster cannot tell a broken one from a correct one.\n\nyour drill's finding, in full:\n%s",
					cl.name, cl.does, indent(o.finding.Error())),
			})
			return false
		}
	}
	return true
}

// reportBroken fails t if the drill could not run on some seed of cl (a run
// error or a panic); it reports whether it did.
func (g *grading) reportBroken(t *testing.T, cl cluster, out []outcome) bool {
	for _, o := range out {
		if !o.broke() {
			continue
		}
		f := suite.Failure{Name: suite.PanicName, Story: fmt.Sprintf("your drill panicked on the cluster %q", cl.name), Details: o.panicked}
		if o.panicked == "" {
			f = suite.RunFailure(o.runErr)
			f.Story = fmt.Sprintf("your drill's world could not go on, on the cluster %q: %s", cl.name, f.Story)
			if f.Details == "" {
				f.Details = o.runErr.Error()
			}
		}
		if f.At == 0 {
			f.At = o.end
		}
		f.Clause = course.OneHistory
		s, _ := g.replay(cl, o)
		defer s.Close()
		s.Fail(t, f)
		return true
	}
	return false
}

// reportMissed tells the story of a broken cluster the drill declared
// healthy: what the cluster does, and what the drill did in that world.
func (g *grading) reportMissed(t *testing.T, cl cluster, o outcome, n, of int, lead ...string) {
	s, c := g.replay(cl, o)
	defer s.Close()
	did, focus := describe(s.W, c, o)
	if cl.needs != "" && o.runs > 0 {
		did += fmt.Sprintf("this cluster shows its fault only while one is on; to see it, a drill needs %s.\n", cl.needs)
	}
	story := fmt.Sprintf("the cluster %q %s; your drill declared it healthy on %d of %d seeds (it must catch it on %d%%)",
		cl.name, cl.does, of-n, of, catchPercent)
	if len(lead) > 0 {
		story = lead[0] + " " + upperFirst(story)
	}
	s.Fail(t, suite.Failure{Name: nameSilence, Clause: course.OneHistory, Story: story, At: focus, Details: did})
}

// describe says what the drill did in one world: the faults, the writes
// and reads its clients sent (and how many while a fault was on), the
// servers they reached; and the moment to center the timeline on.
func describe(w *sim.World, c *drill.Cluster, o outcome) (string, time.Duration) {
	var b strings.Builder
	fmt.Fprintf(&b, "what your drill did in this world (seed %d):\n", o.seed)
	if o.runs == 0 {
		b.WriteString("  it never ran the world (c.Run): nothing happened, and it declared the cluster healthy\n")
		return b.String(), 0
	}
	faults := w.Faults()
	focus := time.Duration(-1)
	if len(faults) == 0 {
		b.WriteString("  faults: none\n")
	}
	for i, f := range faults {
		if i == 0 {
			b.WriteString("  faults:")
			focus = f.Start
		}
		if f.Open || f.End <= f.Start {
			fmt.Fprintf(&b, " %s at %s;", f.Desc, suite.FormatTime(f.Start))
		} else {
			fmt.Fprintf(&b, " %s from %s to %s;", f.Desc, suite.FormatTime(f.Start), suite.FormatTime(f.End))
		}
	}
	if len(faults) > 0 {
		b.WriteString("\n")
	}
	during := func(at time.Duration) bool {
		for _, f := range faults {
			if at >= f.Start && (f.Open || at <= f.End) {
				return true
			}
		}
		return false
	}
	clients := map[sim.NodeID]bool{}
	for _, id := range c.Clients() {
		clients[id] = true
	}
	// otherAway: a fault that downs or cuts off a server other than id.
	otherAway := func(id sim.NodeID, at time.Duration) bool {
		for _, f := range faults {
			if at < f.Start || (!f.Open && at > f.End) {
				continue
			}
			for _, s := range c.Servers() {
				if s != id && f.Touches(s) {
					return true
				}
			}
		}
		return false
	}
	var writes, writesDuring, reads, readsDuring int
	readBy, readWhileOtherAway := map[sim.NodeID]int{}, map[sim.NodeID]int{}
	for _, ev := range w.Trace().Events() {
		if ev.Kind != sim.EvSend || !clients[ev.Node] {
			continue
		}
		switch ev.Msg.(type) {
		case kube.CreateRequest, kube.UpdateRequest, kube.DeleteRequest:
			writes++
			if during(ev.At) {
				writesDuring++
			}
			if focus < 0 {
				focus = ev.At
			}
		case kube.GetRequest, kube.ListRequest, kube.WatchRequest:
			reads++
			readBy[ev.Peer]++
			if otherAway(ev.Peer, ev.At) {
				readWhileOtherAway[ev.Peer]++
			}
			if during(ev.At) {
				readsDuring++
			}
		}
	}
	fmt.Fprintf(&b, "  writes sent: %d (%d while a fault was on)\n", writes, writesDuring)
	fmt.Fprintf(&b, "  reads sent: %d (%d while a fault was on)", reads, readsDuring)
	if len(readBy) > 0 {
		var parts []string
		for id, n := range readBy {
			parts = append(parts, fmt.Sprintf("%s %d", id, n))
		}
		sort.Strings(parts)
		fmt.Fprintf(&b, ", to %s", strings.Join(parts, ", "))
	}
	if len(faults) > 0 {
		var parts []string
		for _, id := range c.Servers() {
			parts = append(parts, fmt.Sprintf("%s %d", id, readWhileOtherAway[id]))
		}
		fmt.Fprintf(&b, "\n  reads sent to a server while the other was down or cut off: %s", strings.Join(parts, ", "))
	}
	b.WriteString("\n  then it returned nil: \"healthy\"\n")
	b.WriteString("a drill catches a broken cluster only by making it contradict itself: writes during the fault, reads from every server, a comparison.\n")
	if focus < 0 {
		focus = o.end
	}
	return b.String(), focus
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
