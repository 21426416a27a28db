// Package ex10suite is the hidden suite of chapter 10, "Agreement costs
// latency". It runs the learner's servers (servers[0] the fixed leader)
// 380–400ms apart, sends every client write to the leader (and, in the
// faults check, some consistent reads to a follower), and at the instant
// each client hears yes reads every server's disk to see how many hold the
// write (the early judge), with chapter 8's reader of the log
// (ex08suite.Disks). Its worlds:
//
//   - story: four controllers write five changes each in a row over the
//     chapter's links. Its first world's figure is the latency of each
//     write: the same burst on one server (stored) beside three (agreed).
//   - throughput: bursts of three to five controllers and writes over links
//     of 100–400ms.
//   - faults: mixed reads and writes while the leader is cut off from one or
//     both followers (half of the cuts from both outlasting a write's
//     timeout), a follower crashes, a link outlasts an Append's timeout or
//     loses messages, or the leader crashes; in a quarter of the worlds a
//     follower also crashes once all is quiet.
//   - minority: five servers, the leader cut off with one follower for
//     longer than a write waits, a write that reaches them both, and a
//     reader on their side whose every Any get and list item, through that
//     follower or the leader, must be a change a majority of the servers'
//     disks hold.
//   - slowdisks: the story's burst while both followers' disks take 250 to
//     350ms to sync, so that Appends arrive while an earlier one's sync is
//     still running; every follower's answer to an Append is held to what
//     its disk had synced at that instant (ackedBeforeSync).
//
// The checks, their worlds and their judges, in order, are declared once,
// in chapter.
package ex10suite

import (
	"testing"

	"onehistory/internal/harness/scene"
)

// Run runs the chapter's checks against serve, the exercise's Serve.
func Run(t *testing.T, serve scene.Boot) { chapter(serve).Run(t) }

// Default seeds per check: enough to meet every fault many ways, few enough
// that the suite stays well under a second.
const (
	storySeeds      = 5
	throughputSeeds = 60
	faultSeeds      = 100
	minoritySeeds   = 3
	slowDiskSeeds   = 2
)

// chapter is the chapter declared, its worlds booting serve on every
// server. A faults world counts against the vacuous-run guard when at
// least 8 requests got an answer and its fault overlapped one, and nearly
// every world must count.
func chapter(serve scene.Boot) scene.Chapter[*world] {
	built := scene.Against[*world](serve)
	on := scene.OnStage[*world] // the judges every chapter shares
	story := func(seed int64, serve scene.Boot) *world {
		return runBurst(seed, serve, 3, burstNames, burstWrites, peerLink)
	}
	return scene.Chapter[*world]{
		ID:  "ex10",
		Ran: ran,
		Worlds: map[string]scene.Build[*world]{"story": built(story), "throughput": built(randomBurst),
			"faults": built(randomWorld), "minority": built(minority), "slowdisks": built(slowDisks)},
		Checks: []scene.Check[*world]{{
			// The burst over the chapter's links is agreed, and done
			// within its bound.
			Name:    "story",
			Plays:   []scene.Play{{World: "story", Seeds: scene.Story(storySeeds)}},
			Judges:  []scene.Judge[*world]{ackedBeforeSync, early, skipped, stalled, missing, slow},
			Figures: []scene.Figure[*world]{{Name: "latency", Text: latency(serve)}},
		}, {
			// Bursts of every size over links of every length are done
			// within one round trip per write in a row, plus one.
			Name:   "throughput",
			Plays:  []scene.Play{{World: "throughput", Seeds: scene.Random(throughputSeeds)}},
			Judges: []scene.Judge[*world]{ackedBeforeSync, early, skipped, stalled, missing, slow},
		}, {
			// No write acknowledged before a majority holds it, no read
			// ahead of what a majority holds, one history that holds every
			// acknowledged write, every answer fitting one order, every
			// write answered while a majority is there, and every request
			// to the leader answered within the write timeout. The most
			// specific explanation first: an early yes, two logs that
			// disagree, a lost write.
			Name: "faults",
			Plays: []scene.Play{{World: "faults", Seeds: scene.Random(faultSeeds), Guard: &scene.Guard{MinCompleted: 8, MinCovered: 0.9}},
				{World: "minority", Seeds: scene.Scenes(minoritySeeds)}, {World: "slowdisks", Seeds: scene.Scenes(slowDiskSeeds)}},
			Judges: []scene.Judge[*world]{ackedBeforeSync, early, refusedEarly, uncommitted, skipped, on(scene.OneHistory), notResentAfterRestart, on(scene.Durable),
				neverResent, commitNotPassedOn, on(scene.Converged), staleDelete, on(scene.Linearizable), refusing, unbounded},
		}},
	}
}
