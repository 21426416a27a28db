// Package ex14suite is the hidden suite of chapter 14, "Slow is not dead", a
// bonus chapter. It runs the learner's node controller beside one API
// server over a correct store, and eight kubelets that write a heartbeat
// into their nodes every ten seconds of their own clocks. Four nodes sit
// next to the store (LAN: their heartbeats arrive within milliseconds) and
// four across a long-tailed link (WAN: seconds, and now and then tens of
// seconds). Every node runs one pod. Its worlds:
//
//   - story: node-1 to node-4 are LAN, node-5 to node-8 WAN. The store's
//     disk slows for a while; one heartbeat of node-7 takes 36 seconds on
//     the way; node-3 pauses for 15 seconds; node-2 loses power, and so
//     does node-4, whose clock runs a minute ahead.
//   - random: which four nodes are LAN is drawn; so are a slow spell of the
//     store's disk, pauses of LAN nodes, clocks set off (one a minute
//     behind, one a minute ahead), a clock stepped back, clock rates, and
//     one or two real crashes.
//   - disruption: every node is cut off from the store at once for a
//     minute, then the network heals.
//
// The verdicts are the world's ground truth: a node the controller evicted
// was alive or dead when it did; a crashed node was suspected and evicted
// within its population's bounds, or not. The checks, their worlds and
// their judges, in order, are declared once, in chapter.
package ex14suite

import (
	"testing"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// Impl is what the learner's package hands the suite.
type Impl struct {
	// Control runs the node controller on p until the world ends: it
	// watches the nodes through api, taints a node it suspects, and evicts
	// the pods of a node it convicts (the exercise's Run).
	Control func(p *sim.Proc, api *kube.Client, nodes []string)
}

// Run runs the chapter's checks against impl.
func Run(t *testing.T, impl Impl) { chapter(impl).Run(t) }

// Default seeds per check.
const (
	storySeeds      = 3
	randomSeeds     = 150
	disruptionSeeds = 3
)

// chapter is the chapter declared.
func chapter(impl Impl) scene.Chapter[*world] {
	built := scene.Against[*world](impl)
	return scene.Chapter[*world]{
		ID:  "ex14",
		Ran: ran,
		Worlds: map[string]scene.Build[*world]{"story": built(storyWorld), "random": built(randomWorld),
			"disruption": built(disruptionWorld)},
		Checks: []scene.Check[*world]{{
			// No live node evicted; both dead ones found in time.
			Name:   "story",
			Plays:  []scene.Play{{World: "story", Seeds: scene.Story(storySeeds)}},
			Judges: []scene.Judge[*world]{slowTakenForDead, convictedOnSuspicion, deadUnsuspected, deadKept},
		}, {
			// No node that was up is ever evicted, whatever its link, its
			// pauses or its clock.
			Name:   "accuracy",
			Plays:  []scene.Play{{World: "random", Seeds: scene.Random(randomSeeds)}},
			Judges: []scene.Judge[*world]{slowTakenForDead, convictedOnSuspicion},
			Sum:    &scene.Sum[*world]{Count: liveSuspicions, Judge: suspicionRate},
		}, {
			// Every crashed node suspected and evicted within its
			// population's bounds.
			Name:   "completeness",
			Plays:  []scene.Play{{World: "random", Seeds: scene.Random(randomSeeds)}},
			Judges: []scene.Judge[*world]{deadUnsuspected, deadKept},
		}, {
			// Every node silent at once is the controller's own trouble: no
			// evictions, during the cut or after the heal.
			Name:   "disruption",
			Plays:  []scene.Play{{World: "disruption", Seeds: scene.Scenes(disruptionSeeds)}},
			Judges: []scene.Judge[*world]{evictedInDisruption, slowTakenForDead},
		}},
	}
}

// ran is the first judge of every check: the world ran to its end.
func ran(w *world) *suite.Failure { return scene.Ran(w.Scene) }
