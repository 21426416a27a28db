// Package ex06suite is the hidden suite of chapter 6, "Both servers say
// yes". It runs the learner's API server as server-1 and server-2 of
// simulated clusters, has clients scale Deployments through both at once,
// and then asks every server for its history:
//
//   - story: the book's scenario. controller-a scales deployments/web to 5
//     through server-1 while controller-b scales it to 2 through server-2.
//     Both must be told yes, and both servers must end with one history and
//     the same Deployment.
//   - one-history: randomized clients and slow links. The servers' histories
//     must be prefixes of one sequence, the servers must converge once the
//     clients stop, and no acknowledged write may be missing.
//   - linearizable: randomized clients reading and writing; porcupine must
//     find one order of all operations that explains every answer.
//
// The servers' histories are read the way any client would: a watch of
// deployments from resourceVersion 0, sent to each server.
//
// Figures (go1.26): the reference solution passes all three checks on each
// of seeds 1–1000 (RUNS=1000, about 3 s). Over seeds 1–1000 the pristine
// stub diverges in "story" and in "one-history" on 1000 of 1000 (the named
// failure, divergent-history), and its client history is not linearizable
// on 1000 of 1000. The default suite (20 + 150 + 150 seeds) takes about
// 0.3 s of wall time for the solution on an idle machine.
package ex06suite

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// Server is the learner's API server, as the thin test file hands it over
// (the exercise's Serve): the boot function of one server node. self is the
// node it runs on; servers lists every server node, self included, in the
// same order for each.
type Server func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID)

// Run runs the chapter's checks against serve.
func Run(t *testing.T, serve Server) {
	suite.Run(t, "ex06", map[string]suite.CheckFunc{
		"story":        func(t *testing.T) { storyCheck(t, serve) },
		"one-history":  func(t *testing.T) { oneHistoryCheck(t, serve) },
		"linearizable": func(t *testing.T) { linearizableCheck(t, serve) },
	})
}

// Default seeds per check: enough to meet the story's race and the slow
// links many ways, few enough that the suite stays well under a second.
const (
	storySeeds        = 20
	oneHistorySeeds   = 150
	linearizableSeeds = 150
)

var (
	oneHistoryWork   = workload{clients: 3, keys: []string{"deployments/web", "deployments/api"}, reads: 0.2, duration: 1500 * time.Millisecond}
	linearizableWork = workload{clients: 3, keys: []string{"deployments/web", "deployments/api"}, reads: 0.5, duration: 1500 * time.Millisecond}
)

// storyCheck: both clients are told yes, and both servers end with one
// history holding both changes and the same Deployment.
func storyCheck(t *testing.T, serve Server) {
	for _, seed := range suite.StorySeeds(storySeeds) {
		r := runStory(seed, serve)
		ok := reportRun(t, seed, r) &&
			reportWritesRefused(t, seed, r, 1.0) &&
			reportStoryDivergence(t, seed, r) &&
			report(t, seed, r, check.Converged(r.states, r.auditedAt)) &&
			report(t, seed, r, check.Durable(r.h, r.longest())) &&
			reportLinearizable(t, seed, r)
		r.w.Close()
		if !ok {
			return
		}
	}
}

// oneHistoryCheck: randomized concurrent writes over slow links; one
// history, convergence, nothing acknowledged lost.
func oneHistoryCheck(t *testing.T, serve Server) {
	var cov check.Coverage
	for _, seed := range suite.Seeds(oneHistorySeeds) {
		r := runWorkload(seed, serve, oneHistoryWork)
		ok := reportRun(t, seed, r) &&
			reportWritesRefused(t, seed, r, 0.8) &&
			report(t, seed, r, check.OneHistory(r.histories)) &&
			report(t, seed, r, check.Converged(r.states, r.auditedAt)) &&
			report(t, seed, r, check.Durable(r.h, r.longest()))
		cov.Add(seed, check.Exercised(r.h, r.faults, 20))
		r.w.Close()
		if !ok {
			return
		}
	}
	reportCoverage(t, &cov)
}

// linearizableCheck: randomized reads and writes; one order explains every
// answer.
func linearizableCheck(t *testing.T, serve Server) {
	var cov check.Coverage
	for _, seed := range suite.Seeds(linearizableSeeds) {
		r := runWorkload(seed, serve, linearizableWork)
		ok := reportRun(t, seed, r) &&
			reportWritesRefused(t, seed, r, 0.8) &&
			reportLinearizable(t, seed, r)
		cov.Add(seed, check.Exercised(r.h, r.faults, 20))
		r.w.Close()
		if !ok {
			return
		}
	}
	reportCoverage(t, &cov)
}

// The columns of a timeline: the servers between the clients.
func columns(r *run) []sim.NodeID {
	var out []sim.NodeID
	for _, id := range r.w.Nodes() {
		if strings.HasPrefix(string(id), "controller-") {
			out = append(out, id)
		}
	}
	if len(out) == 2 { // the story: controller-a | server-1 | server-2 | controller-b
		return []sim.NodeID{out[0], "server-1", "server-2", out[1]}
	}
	return append([]sim.NodeID{"server-1", "server-2"}, out...)
}

// timeline is the run around virtual time at: every note, and the messages
// the servers send each other. A client's requests and answers show as its
// own notes ("write web=5 via server-1", "yes: web=5 rv 2").
func timeline(r *run, at time.Duration) string {
	cols := columns(r)
	width := 26
	if len(cols) > 4 {
		width = 24
	}
	isServer := func(id sim.NodeID) bool { return slices.Contains(servers, id) }
	keep := func(e sim.Event) bool {
		switch e.Kind {
		case sim.EvDisk:
			return false
		case sim.EvNote, sim.EvCrash, sim.EvRestart, sim.EvFault:
			return true
		}
		return isServer(e.Node) && isServer(e.Peer)
	}
	return r.w.Timeline(sim.TimelineOptions{Columns: cols, Focus: at, MaxRows: 40, Width: width, Filter: keep})
}

// ms rounds a virtual time to a tenth of a millisecond, for stories.
func ms(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }

// report reports v, if there is one, with the run's timeline around it, and
// says whether the check may go on.
func report(t *testing.T, seed int64, r *run, v *check.Violation) bool {
	if v == nil {
		return true
	}
	suite.Report(t, suite.Failure{Name: v.Name, Clause: v.Clause, Story: v.Story, At: ms(v.At),
		Seed: seed, Details: v.Details, Timeline: timeline(r, v.At)})
	return false
}

// reportRun reports a world that could not run to its end (deadlock, panic,
// stuck process), answers the suite could not read, or an audit that never
// finished.
func reportRun(t *testing.T, seed int64, r *run) bool {
	var f suite.Failure
	if r.err != nil {
		f = suite.RunFailure(r.err)
	}
	switch {
	case f.Name != "":
	case len(r.problems) > 0:
		f = suite.Failure{Name: "bad-reply", Clause: course.OneHistory, At: r.w.Now(), Story: r.problems[0],
			Details: strings.Join(r.problems, "\n")}
	case !r.audited:
		f = suite.Failure{Name: "no-audit", At: r.w.Now(), Story: "the world ended before the suite could read the servers' histories"}
	default:
		return true
	}
	f.Seed, f.At = seed, ms(f.At)
	f.Timeline = timeline(r, f.At)
	suite.Report(t, f)
	return false
}

// reportWritesRefused guards against the cluster that keeps one history by
// accepting nothing: at least share of the writes must be acknowledged.
func reportWritesRefused(t *testing.T, seed int64, r *run, share float64) bool {
	all, acked := r.writes()
	if all > 0 && float64(acked) >= share*float64(all) {
		return true
	}
	var firstNo time.Duration
	var lines []string
	for _, op := range r.h.Operations() {
		if op.Input.Kind == check.KindWrite && !op.Acknowledged() {
			if len(lines) == 0 {
				firstNo = op.Return
			}
			lines = append(lines, "  "+op.String())
		}
	}
	suite.Report(t, suite.Failure{Name: "writes-refused", Clause: course.OneHistory, At: firstNo, Seed: seed,
		Story:   fmt.Sprintf("only %d of %d scale requests were acknowledged; a cluster keeps one history by ordering writes, not by refusing them", acked, all),
		Details: "writes not acknowledged:\n" + strings.Join(lines, "\n"), Timeline: timeline(r, firstNo)})
	return false
}

// reportStoryDivergence tells the story's divergence in the story's words:
// who scaled to what where, what each server ended with, and the two
// histories side by side at the first position where they differ.
func reportStoryDivergence(t *testing.T, seed int64, r *run) bool {
	v := check.OneHistory(r.histories)
	if v == nil {
		return true
	}
	var a, b check.Operation
	for _, op := range r.h.Operations() {
		if op.Input.Kind == check.KindWrite && op.Client == "controller-a" {
			a = op
		}
		if op.Input.Kind == check.KindWrite && op.Client == "controller-b" {
			b = op
		}
	}
	replicas := func(server string) string {
		if n, ok := r.states[server][storyKey]; ok {
			return fmt.Sprintf("replicas=%v", n)
		}
		return "no " + storyKey
	}
	story := fmt.Sprintf("controller-a scaled %s to 5 through server-1 at %s and controller-b scaled it to 2 through server-2 at %s; "+
		"both servers said yes, each copied its change to the other, and at %s server-1 holds %s while server-2 holds %s. %s",
		storyKey, suite.FormatTime(ms(a.Call)), suite.FormatTime(ms(b.Call)), suite.FormatTime(ms(r.auditedAt)),
		replicas("server-1"), replicas("server-2"), upperFirst(v.Story))
	at := ms(max(a.Return, b.Return))
	suite.Report(t, suite.Failure{Name: v.Name, Clause: v.Clause, Story: story, At: at, Seed: seed,
		Details: v.Details, Timeline: timeline(r, storyScaleAt+400*time.Millisecond)})
	return false
}

// reportLinearizable checks the run's client history with porcupine and
// reports the first contradiction, with its visualization.
func reportLinearizable(t *testing.T, seed int64, r *run) bool {
	l := check.Linearizable(r.h, 0)
	if l.OK() {
		return true
	}
	v := l.Violation
	f := suite.Failure{Name: v.Name, Clause: v.Clause, Story: v.Story, At: ms(v.At), Seed: seed,
		Details: v.Details, Timeline: timeline(r, v.At)}
	if html, err := l.WriteHTML(suite.OutputDir(), fmt.Sprintf("ex06-%s-seed-%d", checkName(t), seed), r.faults); err == nil {
		f.HTML = html
	}
	suite.Report(t, f)
	return false
}

// reportCoverage fails a randomized check whose slow links mostly met an
// idle cluster.
func reportCoverage(t *testing.T, cov *check.Coverage) { suite.Coverage(t, cov, 0.9) }

func checkName(t *testing.T) string {
	_, name, _ := strings.Cut(t.Name(), "/")
	return name
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
