// Package ex07suite is the hidden suite of chapter 7, "The partition". It
// runs the learner's API server on every server node of simulated clusters
// (server-1 is the sequencer), splits the network under clients that keep
// writing on both sides, and then asks every server for its history:
//
//   - story: the book's scenario. server-3 is cut off with controller-b while
//     controller-a scales deployments/web to 5 through server-1 and
//     controller-b scales it to 2 through server-3. The majority side says
//     yes; server-3 says Unavailable within the bound, still answers Any
//     reads, answers a Latest read the moment the split heals only once it
//     has caught up, and after the heal holds the one history.
//   - even-split: four servers split two and two. Neither side has a
//     majority, so both refuse, within the bound; after the heal both say yes.
//   - partitions: first a calm burst (burst.go): no fault, writes back to
//     back through the sequencer and server-2, Latest reads through
//     server-3, which is now and then several changes behind the position
//     a read is confirmed at, and must catch up rather than refuse. Then
//     randomized splits, heals, crashes of servers other than the sequencer
//     (and, now and then, the sequencer lost for good) and links slowed
//     past every timeout, under clients making every kind of request
//     through every server. One history, nothing acknowledged lost, no yes
//     and no definite no without a majority (the sequencer included), every
//     answer within the bound, convergence after the heal, and yes whenever
//     the cluster is calm.
//   - linearizable: the same worlds with more reads; porcupine must find one
//     order of all operations that explains every answer.
//
// A world is judged in this order, the most specific cause first:
// split-brain, write-applied-twice, acknowledged-without-majority, lost-write,
// read-without-majority, no-answer-in-time, stale-read-refused,
// unclear-refusal, no-convergence (the objects), refused-while-healthy,
// no-convergence (a server that holds the same objects but not the whole
// history), then porcupine's verdict.
//
// The chapter's promise, which the suite holds a server to: every write and
// Latest read is answered within bound (1 s), with kube.Unavailable when no
// majority can be had; Any reads are always answered; and while the network
// has been whole and every server up for settle (0.5 s), and stays so for
// the bound, every write and Latest read is answered yes or with a definite
// no. The sequencer never restarts: when it crashes it stays down, and the
// suite then asks only that nothing acknowledged was lost on the servers
// left.
package ex07suite

import (
	"testing"

	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// Server is the learner's API server, as the thin test file hands it over
// (the exercise's Serve): the boot function of one server node. self is the
// node it runs on; servers lists every server node, self included, in the
// same order for each, the sequencer first.
type Server func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID)

// Run runs the chapter's checks against serve.
func Run(t *testing.T, serve Server) {
	suite.Run(t, "ex07", map[string]suite.CheckFunc{
		"story":        func(t *testing.T) { storyCheck(t, serve) },
		"even-split":   func(t *testing.T) { evenSplitCheck(t, serve) },
		"partitions":   func(t *testing.T) { partitionsCheck(t, serve) },
		"linearizable": func(t *testing.T) { linearizableCheck(t, serve) },
	})
}

// Default seeds per check: enough to meet every kind of fault at every
// moment of a request many times over, few enough that the suite stays
// well under a second.
const (
	storySeeds        = 10
	evenSplitSeeds    = 10
	partitionsSeeds   = 120
	linearizableSeeds = 80
)

// partitionsCheck: the calm burst, then randomized faults; every judge but
// porcupine.
func partitionsCheck(t *testing.T, serve Server) {
	if !burstWorlds(t, serve, partitionsJudge) {
		return
	}
	search(t, serve, partitionsSeeds, partitionsWork, partitionsJudge)
}

// partitionsJudge judges one world of the partitions check.
func partitionsJudge(t *testing.T, r *run) bool {
	return r.s.ReportRun(t) && r.splitBrain(t) && r.appliedTwice(t) && r.ackedAlone(t) && r.lostWrite(t) && r.readAlone(t) &&
		r.slowAnswer(t) && r.converged(t) && r.refusedWhileCalm(t) && r.caughtUp(t)
}

// linearizableCheck: randomized faults, more reads; one history, then
// porcupine.
func linearizableCheck(t *testing.T, serve Server) {
	search(t, serve, linearizableSeeds, linearizableWork, func(t *testing.T, r *run) bool {
		return r.s.ReportRun(t) && r.splitBrain(t) && r.appliedTwice(t) && r.s.Linearizable(t)
	})
}

// search runs the randomized worlds of wl over the check's seeds, with the
// guard against worlds whose faults met an idle cluster.
func search(t *testing.T, serve Server, seeds int, wl workload, judge func(t *testing.T, r *run) bool) {
	scene.SearchOf[*run]{
		Seeds: suite.Seeds(seeds),
		Build: func(seed int64) (*scene.Scene, *run) {
			r := runWorkload(seed, serve, wl)
			return r.s, r
		},
		Judge: judge,
		// A world runs about three seconds of traffic, and a server may
		// take up to the bound over each request: a correct server that
		// takes a few hundred milliseconds over a Latest read completes
		// fewer than twenty requests in some worlds, and the guard must
		// not blame it for the world's length.
		MinCompleted: 10,
		MinCovered:   0.9,
	}.Run(t)
}
