// Package ex08suite is the hidden suite of chapter ex08, "More copies is
// not more truth". It runs the learner's API server on every server of
// three- and five-server clusters whose servers[0] is the leader, sends
// every kind of request to every server, and judges what the clients were
// told against what the servers' disks and histories hold:
//
//   - story: the book's scenario. Five servers, server-5's clock 400ms
//     ahead; web is scaled to 5 through server-5, then to 2 through
//     server-1. The later write must be the one that stays, on every
//     server, and every answer must fit one order.
//   - agreement-first: randomized worlds. The moment a client hears yes
//     for a change, or reads a value with any read (Latest or Any, a get or
//     a list), a majority of the servers' disks must hold that change,
//     synced, at the position its resourceVersion names. Then the minority
//     scene: five servers, the leader cut off with one follower for longer
//     than a write waits, a write that reaches them both, and a reader on
//     their side.
//   - one-history: randomized worlds with crashes of any server (the leader
//     included), partitions, links slower than any timeout, skewed clocks
//     and torn log tails. The servers' histories are prefixes of one, each
//     server's log on its disk gives back every change it has applied, no
//     acknowledged write is lost or overwritten by an older one, and the
//     servers converge once the faults end.
//   - linearizable: the same worlds; porcupine must find one order of all
//     operations that explains every answer (timeouts are indefinite, a
//     history it cannot decide fails), and every acknowledged conditional
//     delete must have found its object at the version it named.
//   - available: the same worlds; every request sent to a server while the
//     leader and a majority, that server among them, had been up and
//     connected for a second gets an answer.
//   - catch-up: a follower away (crashed or cut off) while a burst of
//     writes, more than one Append's worth, is committed; Latest reads
//     parked on it as it comes back must reflect every acknowledged write,
//     be answered, and it must catch up to the one history.
//
// The servers' histories are read the way any client would, with a watch
// from resourceVersion 0 sent to each server; their logs are read straight
// off their disks, in the format the exercise's record.go gives.
package ex08suite

import (
	"testing"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/suite"
)

// Run runs the chapter's checks against serve, the exercise's Serve.
func Run(t *testing.T, serve scene.Boot) {
	r := &runner{serve: serve, judged: map[int64]*verdicts{}}
	suite.Run(t, "ex08", map[string]suite.CheckFunc{
		"story": func(t *testing.T) { storyCheck(t, serve) },
		"agreement-first": func(t *testing.T) {
			if r.search(t, "agreement-first"); !t.Failed() {
				minorityCheck(t, serve)
			}
		},
		"one-history":  func(t *testing.T) { r.search(t, "one-history") },
		"linearizable": func(t *testing.T) { r.search(t, "linearizable") },
		"available":    func(t *testing.T) { r.search(t, "available") },
		"catch-up":     func(t *testing.T) { catchUpCheck(t, serve) },
	})
}

// Default seeds: the story's jitter a few ways, and enough randomized
// worlds that every kind of fault meets every kind of request, few enough
// that the chapter stays well under a second or two. The four randomized
// checks judge the same worlds, each world built once.
const (
	storySeeds = 10
	chaosSeeds = 60
)

// The vacuous-run guard: a world counts when at least minCompleted
// requests got an answer and a fault overlapped one, and nearly every
// world must count.
const (
	minCompleted = 30
	minCovered   = 0.9
)

// storyCheck: the later write stays, everywhere, and every answer fits one
// order. Its first world's notes are the figure "notes": what each client
// asked and got, and what each server noted, when.
func storyCheck(t *testing.T, serve scene.Boot) {
	for i, seed := range suite.StorySeeds(storySeeds) {
		w := story(seed, serve)
		if i == 0 {
			suite.Figure(t, "notes", w.notes())
		}
		ok := w.ReportRun(t) &&
			failure(t, w, overwritten(w, storySkewSays())) &&
			failure(t, w, w.early) &&
			failure(t, w, unanswered(w)) &&
			w.Report(t, check.Durable(w.History, w.Longest())) &&
			w.Report(t, check.OneHistory(w.Histories)) &&
			w.Report(t, check.Converged(w.States, w.AuditedAt)) &&
			w.Linearizable(t)
		w.Close()
		if !ok {
			return
		}
	}
}

// runner runs the randomized checks. Each chaos world is built and run
// once, and judged for all four checks at once; a check reads the verdicts
// of its seeds, so the four cost what one costs.
type runner struct {
	serve  scene.Boot
	judged map[int64]*verdicts
}

// verdicts is what one chaos world showed: each check's failure (nil: it
// passed) and whether the run exercised anything (nil: it did).
type verdicts struct {
	failures  map[string]*suite.Failure
	exercised *check.Violation
}

// search is one randomized check over its seeds: the first failing seed is
// reported, and a search whose faults mostly met an idle cluster fails.
func (r *runner) search(t *testing.T, name string) {
	var cov check.Coverage
	for _, seed := range suite.Seeds(chaosSeeds) {
		v := r.verdicts(t, seed)
		cov.Add(seed, v.exercised)
		if f := v.failures[name]; f != nil {
			suite.Report(t, *f)
			return
		}
	}
	suite.Coverage(t, &cov, minCovered)
}

// verdicts builds, runs and judges the world of seed, once.
func (r *runner) verdicts(t *testing.T, seed int64) *verdicts {
	if v, ok := r.judged[seed]; ok {
		return v
	}
	w := chaos(seed, r.serve)
	defer w.Close()
	v := &verdicts{failures: map[string]*suite.Failure{}, exercised: check.Exercised(w.History, w.Faults, minCompleted)}
	if f := ran(w); f != nil {
		for _, name := range []string{"agreement-first", "one-history", "linearizable", "available"} {
			v.failures[name] = f
		}
	} else {
		v.failures["agreement-first"] = w.early
		v.failures["one-history"] = first(overwritten(w, ""),
			lostOnRestart(w),
			w.violation(check.OneHistory(w.Histories)),
			w.violation(check.Durable(w.History, w.Longest())),
			w.violation(check.Converged(w.States, w.AuditedAt)))
		v.failures["linearizable"] = first(w.violation(check.StaleDelete(w.History, w.Longest())), w.linearizable(t))
		v.failures["available"] = stalled(w, workStart, calmMargin)
	}
	for _, f := range v.failures {
		if f != nil {
			w.finish(f)
		}
	}
	r.judged[seed] = v
	return v
}

// first is the first failure that is not nil.
func first(fs ...*suite.Failure) *suite.Failure {
	for _, f := range fs {
		if f != nil {
			return f
		}
	}
	return nil
}

// failure reports f, if there is one, with the world's faults, and says
// whether the check may go on.
func failure(t *testing.T, w *world, f *suite.Failure) bool {
	t.Helper()
	if f == nil {
		return true
	}
	w.finish(f)
	w.Fail(t, *f)
	return false
}
