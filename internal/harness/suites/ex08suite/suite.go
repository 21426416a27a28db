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
//     for a change, a majority of the servers' disks must hold it, synced,
//     at the position its resourceVersion names.
//   - one-history: randomized worlds with crashes of any server (the leader
//     included), partitions, links slower than any timeout, skewed clocks
//     and torn log tails. The servers' histories are prefixes of one, no
//     acknowledged write is lost or overwritten by an older one, and the
//     servers converge once the faults end.
//   - linearizable: the same worlds; porcupine must find one order of all
//     operations that explains every answer (timeouts are indefinite, a
//     history it cannot decide fails).
//   - available: the same worlds; every request sent while the leader and
//     every follower were up and connected (a second after the last fault)
//     gets an answer.
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
	suite.Run(t, "ex08", map[string]suite.CheckFunc{
		"story":           func(t *testing.T) { storyCheck(t, serve) },
		"agreement-first": func(t *testing.T) { agreementCheck(t, serve) },
		"one-history":     func(t *testing.T) { oneHistoryCheck(t, serve) },
		"linearizable":    func(t *testing.T) { linearizableCheck(t, serve) },
		"available":       func(t *testing.T) { availableCheck(t, serve) },
	})
}

// Default seeds per check: the story's jitter a few ways, and enough
// randomized worlds that every kind of fault meets every kind of request,
// few enough that the chapter stays well under a second or two.
const (
	storySeeds        = 10
	agreementSeeds    = 60
	oneHistorySeeds   = 60
	linearizableSeeds = 60
	availableSeeds    = 40
)

// The vacuous-run guard: a world counts when at least minCompleted
// requests got an answer and a fault overlapped one, and nearly every
// world must count.
const (
	minCompleted = 30
	minCovered   = 0.9
)

// storyCheck: the later write stays, everywhere, and every answer fits one
// order.
func storyCheck(t *testing.T, serve scene.Boot) {
	for _, seed := range suite.StorySeeds(storySeeds) {
		w := story(seed, serve)
		ok := w.ReportRun(t) &&
			failure(t, w, overwritten(w, storySkewSays())) &&
			failure(t, w, w.early) &&
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

// search runs a randomized check: one chaos world per seed, judged.
func search(t *testing.T, serve scene.Boot, seeds int, judge func(t *testing.T, w *world) bool) {
	worlds := map[*scene.Scene]*world{}
	scene.Search{
		Seeds: suite.Seeds(seeds),
		Build: func(seed int64) *scene.Scene {
			w := chaos(seed, serve)
			worlds[w.Scene] = w
			return w.Scene
		},
		Judge: func(t *testing.T, s *scene.Scene) bool {
			w := worlds[s]
			delete(worlds, s)
			return s.ReportRun(t) && judge(t, w)
		},
		MinCompleted: minCompleted,
		MinCovered:   minCovered,
	}.Run(t)
}

// agreementCheck: no yes before a majority of disks hold the change.
func agreementCheck(t *testing.T, serve scene.Boot) {
	search(t, serve, agreementSeeds, func(t *testing.T, w *world) bool {
		return failure(t, w, w.early)
	})
}

// oneHistoryCheck: one history, nothing acknowledged lost or overwritten,
// convergence.
func oneHistoryCheck(t *testing.T, serve scene.Boot) {
	search(t, serve, oneHistorySeeds, func(t *testing.T, w *world) bool {
		return failure(t, w, overwritten(w, "")) &&
			w.Report(t, check.OneHistory(w.Histories)) &&
			w.Report(t, check.Durable(w.History, w.Longest())) &&
			w.Report(t, check.Converged(w.States, w.AuditedAt))
	})
}

// linearizableCheck: one order explains every answer.
func linearizableCheck(t *testing.T, serve scene.Boot) {
	search(t, serve, linearizableSeeds, func(t *testing.T, w *world) bool {
		return w.Linearizable(t)
	})
}

// availableCheck: every request sent to a whole cluster gets an answer.
func availableCheck(t *testing.T, serve scene.Boot) {
	search(t, serve, availableSeeds, func(t *testing.T, w *world) bool {
		return failure(t, w, stalled(w, workStart, calmMargin))
	})
}

// failure reports f, if there is one, with the world's faults, and says
// whether the check may go on.
func failure(t *testing.T, w *world, f *suite.Failure) bool {
	t.Helper()
	if f == nil {
		return true
	}
	g := *f
	if len(w.Declared()) > 0 {
		if g.Details != "" {
			g.Details += "\n"
		}
		g.Details += describe(w)
	}
	w.Fail(t, g)
	return false
}
