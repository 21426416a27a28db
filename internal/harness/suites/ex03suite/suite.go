// Package ex03suite is the hidden suite of chapter ex03, "Silence is not
// agreement". The learner writes a chaos drill, func Drill(c *drill.Cluster)
// error; the suite runs it against a zoo of two-server clusters (zoo.go),
// seven that break the contract and two that keep it, and scores whether
// the drill tells them apart.
//
// A world is one cluster of the zoo at one seed, with what the drill
// concluded there. It fails when the drill could not run (ran), its
// linearizability search ran out of its budget (undecided: no finding and
// no pass, and the suite runs the drill no further), compared the servers
// through the load balancer, so that a client meaning to read each server
// read one of them twice (leftToChance: a failure in any world where it
// shows, caught or not, since whether the drill compared two servers was
// chance), declared a broken cluster healthy (missed) or reported a
// finding against a correct one (falseAlarm); what the drill did, told with
// a miss, splits its writes by server and by answer. The checks count
// those worlds over the seeds (Tally):
//
//   - catches-async-replication, catches-lost-write, catches-divergence,
//     catches-degraded-mode: the drill returns a finding for that broken
//     cluster on at least 90% of the seeds, and returns none for either
//     correct cluster on any seed (a drill that fails everything catches
//     nothing: it cannot tell). Degraded mode shows its fault only while a
//     fault is on, so a drill catches it only if it writes while server-2
//     is away and reads server-2 on its own, again and again, while
//     server-1 is. catches-async-replication plays two broken clusters and
//     must catch each: one whose servers each copy to the other late,
//     which most reading shows, and a lagging copy whose servers each read
//     their own writes, refuse while the other is away and agree in the
//     end, which only a read of a write from the server that did not take
//     it, soon after, shows. catches-lost-write plays two broken clusters
//     and must catch each: the one that loses writes when server-1 goes
//     down, and
//     one that acknowledges writes through server-2 before server-1 has
//     them, which only a drill that writes through server-2 sees; its
//     story says what the drill never did (lacks.go), as the lagging
//     copy's, the lost write's and the split brain's do. catches-divergence
//     plays two as well: servers that never tell each other anything, and
//     a split brain whose servers differ only by writes taken while
//     server-1 was cut off, each answered Timeout, which no single history
//     rules out and only a comparison of the servers once every fault is
//     well over (server-2 refuses reads for a while after) shows.
//   - passes-correct-clusters: no finding for either correct cluster on any
//     seed, and at least one broken cluster caught (a drill that passes
//     everything proves nothing either).
//
// So a drill that always fails and one that always passes both score zero.
package ex03suite

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/suites/ex03suite/drill"
)

const (
	// defaultSeeds is how many worlds each cluster gets per run of the suite.
	defaultSeeds = 30
	// catchPercent is the share of seeds on which a broken cluster must be
	// caught: a drill may be unlucky in a world or two, never on most.
	catchPercent = 90

	nameSilence    = "silence-mistaken-for-agreement"
	nameFalseAlarm = "false-alarm"
)

// Run grades impl, the learner's chaos drill, against the zoo.
func Run(t *testing.T, impl func(c *drill.Cluster) error) { chapter(impl).Run(t) }

// chapter declares the suite for impl: a world for each cluster of the zoo,
// and the checks that count what impl concluded about them.
func chapter(impl func(c *drill.Cluster) error) scene.Chapter[*world] {
	worlds := map[string]scene.Build[*world]{}
	// spent is the first world whose drill's search ran out of its
	// budget. It is the one thing worlds share, so a lock guards it: the
	// worlds of a play run side by side (scene.Chapter), and of those of
	// one play (one cluster) that ran out, the first in the order of the
	// seeds is kept, as one world after another would have.
	var (
		mu    sync.Mutex
		spent *world
	)
	for _, cl := range slices.Concat(brokenClusters, correctClusters) {
		worlds[cl.name] = func(seed int64) *world {
			mu.Lock()
			after := spent
			mu.Unlock()
			if after != nil { // each search would spend its budget again, and the grader's time with it
				s := scene.New(seed, cl.boot, scene.Servers(2))
				return &world{Scene: s, cluster: cl, drill: drill.New(s.W, s.Servers...), after: after}
			}
			w := play(impl, cl, seed)
			if outOfBudget(w.finding) {
				mu.Lock()
				if spent == nil || spent.cluster.name == cl.name && seed < spent.Seed {
					spent = &world{cluster: cl, finding: w.finding, Scene: &scene.Scene{Seed: seed}}
				}
				mu.Unlock()
			}
			return w
		}
	}
	return scene.Chapter[*world]{ID: "ex03", Worlds: worlds, Ran: ran, Checks: []scene.Check[*world]{
		catches("catches-async-replication", asyncReplication, laggingCopy),
		catches("catches-lost-write", lostWrite, earlyAck),
		catches("catches-divergence", divergence, splitBrain),
		catches("catches-degraded-mode", degradedMode),
		{Name: "passes-correct-clusters", Plays: plays(slices.Concat(correctClusters, brokenClusters)),
			Judges: judges, Tally: passesCorrect},
	}}
}

// world is one cluster of the zoo at one seed, and what the drill concluded
// there. Nothing runs in it once the drill has returned: its time is when
// the drill returned, and drill.Ran says how often it ran the world and the
// first error a run ended with (a deadlock, a panic in a process, ...).
type world struct {
	*scene.Scene
	cluster  cluster
	drill    *drill.Cluster
	finding  error  // what the drill returned: nil is "healthy"
	panicked string // the drill itself panicked: the value and stack
	// after is the world whose drill's search ran out of its budget first,
	// when this world's drill was not run for that reason.
	after *world
	// sent is calls(w), worked out once: the world does not change once the
	// drill has returned.
	sent []*call
}

// judges are the judges of every check, in order, the most specific cause
// first. Every check shares this one list, so the chapter's runner judges
// each world by it once (a correct cluster's is played by all five).
var judges = []scene.Judge[*world]{undecided, leftToChance, missed, falseAlarm}

// play builds the world of cl for seed, the scene's default of two servers
// on links of 2–20ms, and runs impl in it.
func play(impl func(c *drill.Cluster) error, cl cluster, seed int64) *world {
	s := scene.New(seed, cl.boot, scene.Servers(2))
	w := &world{Scene: s, cluster: cl, drill: drill.New(s.W, s.Servers...)}
	func() {
		defer func() {
			if r := recover(); r != nil {
				w.panicked = fmt.Sprintf("%v\n%s", r, debug.Stack())
			}
		}()
		w.finding = impl(w.drill)
	}()
	// The timeline: the servers, then the first clients the drill added.
	clients := w.drill.Clients()
	s.Lanes(append(slices.Clone(s.Servers), clients[:min(len(clients), 3)]...)...)
	return w
}

// plays plays each of clusters over the chapter's seeds, in order.
func plays(clusters []cluster) []scene.Play {
	var out []scene.Play
	for _, cl := range clusters {
		out = append(out, scene.Play{World: cl.name, Seeds: scene.Random(defaultSeeds)})
	}
	return out
}

// ran judges whether the drill ran to its end: it may not panic, and its
// world must be able to go on (no deadlock, no panic in a process).
func ran(w *world) *suite.Failure {
	var f suite.Failure
	switch _, err := w.drill.Ran(); {
	case w.panicked != "":
		f = suite.Failure{Name: suite.PanicName, Story: fmt.Sprintf("your drill panicked on the cluster %q", w.cluster.name), Details: w.panicked}
	case err != nil:
		f = suite.RunFailure(err)
		f.Story = fmt.Sprintf("your drill's world could not go on, on the cluster %q: %s", w.cluster.name, f.Story)
		if f.Details == "" {
			f.Details = err.Error()
		}
	default:
		return nil
	}
	if f.At == 0 {
		f.At = w.W.Now()
	}
	f.Clause = course.OneHistory
	return &f
}

// nameUndecided is the failure of a drill whose linearizability search
// ran out of its budget: no finding, and no pass.
const nameUndecided = "search-out-of-budget"

// outOfBudget reports whether a drill's finding is check.Linearizable's
// undecided verdict, in whatever words the drill wrapped it.
func outOfBudget(finding error) bool {
	return finding != nil && strings.Contains(finding.Error(), "the linearizability checker could not decide within")
}

// undecided judges a drill whose linearizability search ran out of its
// budget: it proved nothing either way, so it is neither a finding against
// a broken cluster nor a false alarm. Told with the budget, how many
// requests the drill's clients sent, and what to do; a world the suite did
// not run the drill in, after one that ran out, is told by that one.
func undecided(w *world) *suite.Failure {
	if w.after != nil {
		return &suite.Failure{Name: nameUndecided, Clause: course.OneHistory, At: w.W.Now(),
			Story: fmt.Sprintf("the suite ran your drill no further: its linearizability search ran out of its budget on the cluster %q (seed %d) and would again in every world",
				w.after.cluster.name, w.after.Seed),
			Details: "your drill's finding there, in full:\n" + indent(w.after.finding.Error())}
	}
	if !outOfBudget(w.finding) {
		return nil
	}
	sent := len(calls(w))
	secs := max(w.W.Now().Seconds(), 0.001)
	return &suite.Failure{Name: nameUndecided, Clause: course.OneHistory, At: w.W.Now(),
		Story: fmt.Sprintf("your drill's linearizability search ran out of its budget on the cluster %q: check.Linearizable gives the search %s of real time a call (check.DefaultTimeBound), "+
			"and the history of the %d requests your drill's clients sent in %s of virtual time (%.0f a second) did not fit in it. "+
			"An undecided search is no finding and no pass: record fewer operations where they meet (fewer clients writing one key, pauses between writes, a shorter run), or spread them over more keys",
			w.cluster.name, check.DefaultTimeBound, sent, sim.FormatTime(w.W.Now()), float64(sent)/secs),
		Details: "your drill's finding, in full:\n" + indent(w.finding.Error())}
}

// missed judges a broken cluster the drill declared healthy: what the
// cluster does, and what the drill did in its world. The tally says on how
// many seeds.
func missed(w *world) *suite.Failure {
	if !w.cluster.broken || w.finding != nil {
		return nil
	}
	did, focus := describe(w)
	runs, _ := w.drill.Ran()
	if w.cluster.needs != "" && runs > 0 {
		did += fmt.Sprintf("this cluster shows its fault only while one is on; to see it, a drill needs %s.\n", w.cluster.needs)
	}
	story := fmt.Sprintf("the cluster %q %s; your drill declared it healthy", w.cluster.name, w.cluster.does)
	lacks := w.cluster.lacks
	if runs > 0 && !slices.ContainsFunc(calls(w), func(c *call) bool { return kube.IsWrite(c.req) && c.ok }) {
		lacks = neverAcknowledged // before anything a cluster needs: with no write, no cluster shows anything
	}
	if lacks != nil && runs > 0 { // a drill that never ran lacks everything: its details say so
		if lack := lacks(w); lack != "" {
			story = fmt.Sprintf("the cluster %q %s; your drill %s, and declared it healthy", w.cluster.name, w.cluster.does, lack)
		}
	}
	return &suite.Failure{Name: nameSilence, Clause: course.OneHistory, At: focus, Details: did, Story: story}
}

// falseAlarm judges a finding against a correct cluster. Its story begins
// with a verb: the tally says whose ("your drill ").
func falseAlarm(w *world) *suite.Failure {
	if w.cluster.broken || w.finding == nil {
		return nil
	}
	return &suite.Failure{Name: nameFalseAlarm, Clause: course.OneHistory, At: w.W.Now(),
		Story: fmt.Sprintf("reported a finding against the cluster %q, which keeps the contract (seed %d): %s",
			w.cluster.name, w.Seed, firstLine(w.finding.Error())),
		Details: fmt.Sprintf("the cluster %q %s.\n"+
			"A refusal (Unavailable, TooManyRequests) or a timeout is honest; only answers that contradict each other are findings.\n"+
			"A drill that fails every cluster cannot tell a broken one from a correct one.\n\nyour drill's finding, in full:\n%s",
			w.cluster.name, w.cluster.does, indent(w.finding.Error()))}
}

// catches is the check that the drill catches each of the broken clusters
// cls on enough seeds, and cries wolf on no correct cluster.
func catches(name string, cls ...cluster) scene.Check[*world] {
	return scene.Check[*world]{Name: name, Plays: plays(slices.Concat(cls, correctClusters)),
		Judges: judges,
		Tally: func(plays [][]*suite.Failure) *suite.Failure {
			for _, out := range plays[:len(cls)] {
				if f := broke(out); f != nil {
					return f
				}
				if !enough(caught(out), len(out)) {
					return missedOn(out, "")
				}
			}
			out := plays[0]
			return noFalseAlarm(plays[len(cls):], fmt.Sprintf("your drill caught the cluster %q on %d of %d seeds, but it also ", cls[0].name, caught(out), len(out)))
		}}
}

// passesCorrect tallies the check that the drill leaves the correct
// clusters alone (the first plays) and is not simply silent: it catches at
// least one of the broken ones (the plays after).
func passesCorrect(plays [][]*suite.Failure) *suite.Failure {
	if f := noFalseAlarm(plays[:len(correctClusters)], ""); f != nil {
		return f
	}
	var first []*suite.Failure
	for _, out := range plays[len(correctClusters):] {
		if f := broke(out); f != nil {
			return f
		}
		if enough(caught(out), len(out)) {
			return nil // it tells at least one broken cluster from the correct ones
		}
		if first == nil {
			first = out
		}
	}
	return missedOn(first, "your drill passed every correct cluster, but it passes the broken ones too: a drill that never fails proves nothing.")
}

// broke is the first world of a play in which the drill could not run.
func broke(out []*suite.Failure) *suite.Failure {
	for _, f := range out {
		if f != nil && f.Name != nameSilence && f.Name != nameFalseAlarm {
			return f
		}
	}
	return nil
}

// caught counts the seeds of a broken cluster's play on which the drill
// flagged it.
func caught(out []*suite.Failure) int {
	n := 0
	for _, f := range out {
		if f == nil {
			n++
		}
	}
	return n
}

func enough(n, of int) bool { return n*100 >= of*catchPercent }

// missedOn tells the first seed of a broken cluster's play on which the
// drill declared it healthy, and on how many it did, after lead if any.
func missedOn(out []*suite.Failure, lead string) *suite.Failure {
	f := *out[slices.IndexFunc(out, func(f *suite.Failure) bool { return f != nil })]
	f.Story += fmt.Sprintf(" on %d of %d seeds (it must catch it on %d%%)", len(out)-caught(out), len(out), catchPercent)
	if lead != "" {
		f.Story = lead + " " + suite.UpperFirst(f.Story)
	}
	return &f
}

// noFalseAlarm is the first failure in the correct clusters' plays: a world
// in which the drill could not run, then a finding. prefix, if any, starts
// the story and ends where a verb follows ("your drill ... but it also ").
func noFalseAlarm(plays [][]*suite.Failure, prefix string) *suite.Failure {
	for _, out := range plays {
		if f := broke(out); f != nil {
			return f
		}
		if i := slices.IndexFunc(out, func(f *suite.Failure) bool { return f != nil }); i >= 0 {
			f := *out[i]
			f.Story = cmp.Or(prefix, "your drill ") + f.Story
			return &f
		}
	}
	return nil
}

// describe says what the drill did in one world: the faults, the writes
// and reads its clients sent (and how many while a fault was on), the
// servers they reached; and the moment to center the timeline on.
func describe(w *world) (string, time.Duration) {
	var b strings.Builder
	fmt.Fprintf(&b, "what your drill did in this world (seed %d):\n", w.Seed)
	if runs, _ := w.drill.Ran(); runs == 0 {
		b.WriteString("  it never ran the world (c.Run): nothing happened, and it declared the cluster healthy\n")
		return b.String(), 0
	}
	faults := w.W.Faults()
	focus := time.Duration(-1)
	b.WriteString("  faults:")
	if len(faults) == 0 {
		b.WriteString(" none")
	} else {
		focus = faults[0].Start
	}
	for _, f := range faults {
		if f.Open {
			f.End = f.Start // told by when it began
		}
		fmt.Fprintf(&b, " %s;", f)
	}
	b.WriteString("\n")
	// on: fault f was on at at; otherAway: a fault that downs or cuts off
	// a server other than id was.
	on := func(f sim.Fault, at time.Duration) bool { return at >= f.Start && (f.Open || at <= f.End) }
	during := func(at time.Duration) bool {
		return slices.ContainsFunc(faults, func(f sim.Fault) bool { return on(f, at) })
	}
	otherAway := func(id sim.NodeID, at time.Duration) bool {
		return slices.ContainsFunc(faults, func(f sim.Fault) bool {
			return on(f, at) && slices.ContainsFunc(w.drill.Servers(), func(s sim.NodeID) bool { return s != id && f.Touches(s) })
		})
	}
	clients := w.drill.Clients()
	var writes, writesDuring, reads, readsDuring int
	readBy, readWhileOtherAway := map[sim.NodeID]int{}, map[sim.NodeID]int{}
	for ev := range w.W.Trace().All() {
		if ev.Kind != sim.EvSend || !slices.Contains(clients, ev.Node) {
			continue
		}
		switch {
		case kube.IsWrite(ev.Msg):
			writes++
			if during(ev.At) {
				writesDuring++
			}
			if focus < 0 {
				focus = ev.At
			}
		case isRead(ev.Msg):
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
	fmt.Fprintf(&b, "  writes sent: %d (%d while a fault was on)%s\n", writes, writesDuring, writeOutcomes(w))
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
		for _, id := range w.drill.Servers() {
			parts = append(parts, fmt.Sprintf("%s %d", id, readWhileOtherAway[id]))
		}
		fmt.Fprintf(&b, "\n  reads sent to a server while the other was down or cut off: %s", strings.Join(parts, ", "))
	}
	b.WriteString("\n  then it returned nil: \"healthy\"\n")
	b.WriteString("a drill catches a broken cluster only by making it contradict itself: writes during the fault, reads from every server, a comparison.\n")
	if focus < 0 {
		focus = w.W.Now()
	}
	return b.String(), focus
}

// writeOutcomes splits the drill's writes by the server they were sent to
// and by what came back: ", to server-1 8 (6 ok, 2 timed out), to server-2
// 0", so a drill whose first write failed, or whose writes all went to a
// server that was cut off, sees it.
func writeOutcomes(w *world) string {
	by := map[sim.NodeID]map[string]int{}
	for _, c := range calls(w) {
		if !kube.IsWrite(c.req) {
			continue
		}
		if by[c.server] == nil {
			by[c.server] = map[string]int{}
		}
		var se kube.StatusError
		switch {
		case c.ok:
			by[c.server]["ok"]++
		case c.answered < 0:
			by[c.server]["no answer in time"]++
		case errors.As(c.err, &se):
			by[c.server][se.Reason]++
		case errors.Is(c.err, sim.ErrNodeDown):
			by[c.server]["server down"]++
		case errors.Is(c.err, sim.ErrUnreachable):
			by[c.server]["server not serving"]++
		default:
			by[c.server]["failed"]++
		}
	}
	var parts []string
	for _, id := range w.drill.Servers() {
		n, outs := 0, []string{}
		for _, out := range slices.Sorted(maps.Keys(by[id])) {
			n += by[id][out]
			outs = append(outs, fmt.Sprintf("%d %s", by[id][out], out))
		}
		part := fmt.Sprintf("to %s %d", id, n)
		if n > 0 {
			part += " (" + strings.Join(outs, ", ") + ")"
		}
		parts = append(parts, part)
	}
	return ", " + strings.Join(parts, ", ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
