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
//     a read is confirmed at, and must catch up rather than refuse or
//     answer from a copy that misses an acknowledged write. Then the five
//     split: five servers, the sequencer cut off with server-3, two of
//     five, so nothing may be acknowledged on its side; a committed
//     position taken from the wrong server, or a majority of a three-server
//     cluster written down as 2, says yes there. Then
//     randomized splits, heals, crashes of servers other than the sequencer
//     (and, now and then, the sequencer lost for good) and links slowed
//     past every timeout, under clients making every kind of request
//     through every server. Every promise of the page holds.
//   - linearizable: the same worlds with more reads; porcupine must find one
//     order of all operations that explains every answer.
//
// Each check names its judges once, in chapter, in the order a world is
// judged: the most specific cause first.
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
	"slices"
	"testing"

	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// Server is the learner's API server, as the thin test file hands it over
// (the exercise's Serve): the boot function of one server node. self is the
// node it runs on; servers lists every server node, self included, in the
// same order for each, the sequencer first.
type Server func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID)

// Run runs the chapter's checks against serve.
func Run(t *testing.T, serve Server) { chapter(serve).Run(t) }

// Default seeds per check: enough to meet every kind of fault at every
// moment of a request many times over, few enough that the suite stays
// well under a second.
const (
	storySeeds        = 10
	evenSplitSeeds    = 10
	partitionsSeeds   = 120
	linearizableSeeds = 80
	fiveSplitSeeds    = 2
)

// guard asks that the randomized worlds met their faults. A world runs
// about three seconds of traffic, and a server may take up to the bound
// over each request: a correct server that takes a few hundred milliseconds
// over a Latest read completes fewer than twenty requests in some worlds,
// and the guard must not blame it for the world's length.
var guard = &scene.Guard{MinCompleted: 10, MinCovered: 0.9}

// chapter declares the chapter's worlds and checks. promises are what the
// page promises of every world, whatever its faults; the split scenes add
// porcupine's verdict and what they promise of each controller; the
// linearizable check asks for one history, then porcupine's verdict.
func chapter(serve Server) scene.Chapter[*run] {
	durable, linearizable := scene.OnStage[*run](scene.Durable), scene.OnStage[*run](scene.Linearizable)
	promises := []scene.Judge[*run]{
		appendedTwice, splitBrain, appliedTwice, // one history
		claimedUnheld, ackedAlone, durable, readAlone, listedAlone, listedUnconfirmed, refusedAlone, // agreement first, and nothing acknowledged lost
		staleRead,                                  // every Latest read shows every write acknowledged before it
		slowAnswer, anyReadRefused, unclearRefusal, // an answer within the bound, Unavailable when it is no
		restartedBehind, converged, refusedWhileCalm, caughtUp, // the whole history after the heal, and yes whenever calm
	}
	splitJudges := func(sp split) []scene.Judge[*run] {
		return append(slices.Clip(promises), linearizable, sp.promised)
	}
	return scene.Chapter[*run]{
		ID: "ex07",
		Worlds: map[string]scene.Build[*run]{
			"story":        story.world(serve),
			"even-split":   evenSplit.world(serve),
			"burst":        func(seed int64) *run { return burstWorld(seed, serve) },
			"far":          func(seed int64) *run { return farWorld(seed, serve) },
			"rejoin":       func(seed int64) *run { return rejoinWorld(seed, serve) },
			"five-split":   fiveSplit.world(serve),
			"partitions":   partitionsWork.world(serve),
			"linearizable": linearizableWork.world(serve),
		},
		Checks: []scene.Check[*run]{{
			Name:   "story",
			Plays:  []scene.Play{{World: "story", Seeds: scene.Story(storySeeds)}},
			Judges: splitJudges(story),
			// The book quotes the solution's, where the cut-off side refuses.
			Figures: []scene.Figure[*run]{{Name: "split", Text: func(r *run) string { return r.Timeline(cutAt + cutFor/2) }}},
		}, {
			Name:   "even-split",
			Plays:  []scene.Play{{World: "even-split", Seeds: scene.Story(evenSplitSeeds)}},
			Judges: splitJudges(evenSplit),
		}, {
			Name: "partitions",
			Plays: []scene.Play{
				{World: "burst", Seeds: scene.Scenes(burstSeeds)},
				{World: "far", Seeds: scene.Scenes(farSeeds)},
				{World: "five-split", Seeds: scene.Scenes(fiveSplitSeeds)},
				{World: "rejoin", Seeds: scene.Scenes(rejoinSeeds)},
				{World: "partitions", Seeds: scene.Random(partitionsSeeds), Guard: guard},
			},
			Judges: promises,
		}, {
			Name:   "linearizable",
			Plays:  []scene.Play{{World: "linearizable", Seeds: scene.Random(linearizableSeeds), Guard: guard}},
			Judges: []scene.Judge[*run]{appendedTwice, splitBrain, appliedTwice, listedUnconfirmed, staleRead, linearizable},
		}},
	}
}
