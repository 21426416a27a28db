// Package ex12suite is the hidden suite of chapter 12, "The edit that erased
// a scale", a bonus chapter. It runs the learner's API servers on top of the
// agreed log (package agreed: one order, given), and writers that change
// deployments through the learner's GuaranteedUpdate or with conditional
// updates of their own. Its worlds:
//
//   - story: web is {replicas 5, image web:v1}. An engineer and an
//     autoscaler read it, then write 1ms apart, each conditional on the
//     version read: the autoscaler replicas 7, the engineer image web:v2.
//     The servers sit 150–200ms from the log, so neither write is applied
//     when the other arrives. Whoever hears Conflict applies its change
//     again through GuaranteedUpdate.
//   - faults: three writers add one to web's replicas five times each
//     through GuaranteedUpdate, while another client creates, updates and
//     deletes deployments/api on condition; a tenth of the servers' answers
//     are lost after the server acted, a twentieth of the requests arrive
//     twice, and one server crashes and restarts.
//   - no-op: updates of web that change nothing, with and without a
//     precondition, and through GuaranteedUpdate.
//   - no-op-behind: server-2 sits further from the log than the others.
//     writer-a sets web's replicas to 7 through server-1; 1ms after it is
//     acknowledged, writer-b sets them back to 5 through server-2, which
//     has not applied 7 yet.
//   - lost-answer: an engineer sets web's image and an autoscaler adds two
//     to api's replicas, each through GuaranteedUpdate, through a load
//     balancer that loses the answer to each one's first update after the
//     server made it. Once the autoscaler's is made, a scaler adds one to
//     api's replicas, and the balancer holds the autoscaler's next requests
//     until the scaler is answered.
//   - late-landing: the same two writers, through a balancer that holds
//     each one's first update past its timeout and delivers it just before
//     the writer's next update, so that a resend on condition meets the
//     Conflict its own first write caused.
//   - heal: two writers change web's replicas and its image through
//     GuaranteedUpdate at once, so that one hears Conflict, and a third
//     sets api's replicas through a balancer that loses its first update
//     before any server sees it; then nothing is lost and no one else
//     writes.
//
// The checks, their worlds and their judges, in order, are declared once,
// in chapter.
package ex12suite

import (
	"testing"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
)

// Impl is what the learner's package hands the suite.
type Impl struct {
	// Serve boots one API server (the exercise's Serve).
	Serve scene.Boot
	// Update changes the object at key by mutate, read-modify-write (the
	// exercise's GuaranteedUpdate).
	Update func(api *kube.Client, key string, mutate func(obj *kube.Object)) (kube.Object, error)
}

// Run runs the chapter's checks against impl.
func Run(t *testing.T, impl Impl) { chapter(impl).Run(t) }

// Default seeds per check.
const (
	storySeeds      = 3
	faultSeeds      = 60
	noopSeeds       = 2
	lostAnswerSeeds = 3
	lateSeeds       = 3
	healSeeds       = 20
)

// chapter is the chapter declared.
func chapter(impl Impl) scene.Chapter[*world] {
	built := scene.Against[*world](impl)
	guard := &scene.Guard{MinCompleted: 8, MinCovered: 0.9}
	return scene.Chapter[*world]{
		ID:  "ex12",
		Ran: ran,
		Worlds: map[string]scene.Build[*world]{"story": built(storyWorld), "faults": built(faultWorld),
			"no-op": built(noopWorld), "no-op-behind": built(noopBehindWorld), "lost-answer": built(lostAnswerWorld), "heal": built(healWorld),
			"late-landing": built(lateWorld)},
		Checks: []scene.Check[*world]{{
			// Both writers' changes survive, or the one that heard
			// Conflict applied its change again.
			Name:   "story",
			Plays:  []scene.Play{{World: "story", Seeds: scene.Story(storySeeds)}},
			Judges: []scene.Judge[*world]{unaudited, storyLost, oneHistory},
		}, {
			// Every acknowledged increment once, none twice, whatever was
			// lost, duplicated or crashed.
			Name:   "no-lost-update",
			Plays:  []scene.Play{{World: "faults", Seeds: scene.Random(faultSeeds), Guard: guard}},
			Judges: []scene.Judge[*world]{unaudited, oneHistory, counted},
		}, {
			// One order explains every answer, conditional writes, creates
			// and deletes included.
			Name:   "cas-linearizable",
			Plays:  []scene.Play{{World: "faults", Seeds: scene.Random(faultSeeds), Guard: guard}},
			Judges: []scene.Judge[*world]{unaudited, oneHistory, conflictUnordered, scene.OnStage[*world](scene.Linearizable)},
		}, {
			// A write that changes nothing creates no revision, and is
			// decided in the log's order like every other write.
			Name: "no-op-no-revision",
			Plays: []scene.Play{{World: "no-op", Seeds: scene.Scenes(noopSeeds)},
				{World: "no-op-behind", Seeds: scene.Scenes(noopSeeds)}},
			Judges: []scene.Judge[*world]{unaudited, noopRevision, noopUnordered, behindLinearizable},
		}, {
			// Every writer's change reaches the history once the lost
			// request and the Conflicts are behind it.
			Name:   "changes-made",
			Plays:  []scene.Play{{World: "heal", Seeds: scene.Random(healSeeds)}},
			Judges: []scene.Judge[*world]{unaudited, blindWrite, staleAccepted, changeGivenUp, oneHistory},
			Sum:    &scene.Sum[*world]{Count: healCounts, Judge: healedEnough},
		}, {
			// A write whose answer was lost is neither reported failed when
			// a read can tell it was made, nor made twice.
			Name: "indefinite-retry",
			Plays: []scene.Play{{World: "lost-answer", Seeds: scene.Scenes(lostAnswerSeeds)},
				{World: "late-landing", Seeds: scene.Scenes(lateSeeds)}},
			Judges: []scene.Judge[*world]{unaudited, answerNotLost, resentBlind, reportedFailed, lateLanded, oneHistory, counted},
		}},
	}
}
