// Package ex13suite is the hidden suite of chapter 13, "The controller that
// woke up", a bonus chapter. Two copies of a ReplicaSet-style controller,
// controller-a and controller-b, run beside one API server whose store is
// given and correct (a kube.MemStore, which fences writes by a lease). They
// elect one leader through the lease leases/controller with the learner's
// elector, and the one that leads keeps web's pods at web's replicas: every
// half second of its own clock it asks its elector whether it leads and
// with which fence, reads web and its pods, decides, and creates the
// missing pods, each write carrying the fence it was given. The controller
// is the suite's; the elector, and the fence it hands out, are the
// learner's. Its worlds:
//
//   - story: web has 2 pods; at 59.9s it is scaled to 5. The leader decides
//     to create 3 pods, and its node pauses for 20s right there, between the
//     decision and the writes. The other takes the lease and creates them;
//     the paused one wakes and writes what it decided.
//   - clock: no pause, no cut; one controller's clock is 20s ahead, or the
//     leader's 20s behind, or the leader's runs at 0.7 of the world's
//     (within the 1.5 a 15s lease and a 10s renew deadline tolerate). A
//     healthy leader must keep its lease.
//   - cut: the leader is cut off from the API server for 30s while web is
//     scaled from 3 to 5.
//   - random: pauses of up to 30s in either controller (some between a
//     decision and its writes), clocks set off by up to 30s or running at
//     0.5 to 2 times the world's (beyond what a lease tolerates), cuts
//     between a controller and the server, and web scaled up every few
//     seconds.
//
// The checks, their worlds and their judges, in order, are declared once,
// in chapter.
package ex13suite

import (
	"testing"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// Leader is what the learner's elector offers the controller it runs in.
type Leader interface {
	// Leading reports whether the controller may act now as the leader,
	// and the fence every write it makes on that belief must carry.
	Leading(p *sim.Proc) (kube.Fence, bool)
}

// Impl is what the learner's package hands the suite.
type Impl[L Leader] struct {
	// Elect starts the election for controller id on p's node, talking to
	// the API server through api (the exercise's NewElector).
	Elect func(p *sim.Proc, api *kube.Client, id string) L
}

// Run runs the chapter's checks against impl.
func Run[L Leader](t *testing.T, impl Impl[L]) { chapter(elect(impl)).Run(t) }

// electFunc is an Impl's Elect with its elector seen as a Leader.
type electFunc func(p *sim.Proc, api *kube.Client, id string) Leader

func elect[L Leader](impl Impl[L]) electFunc {
	return func(p *sim.Proc, api *kube.Client, id string) Leader { return impl.Elect(p, api, id) }
}

// Default seeds per check.
const (
	storySeeds  = 3
	clockSeeds  = 3
	cutSeeds    = 2
	randomSeeds = 40
)

// chapter is the chapter declared.
func chapter(elect electFunc) scene.Chapter[*world] {
	built := scene.Against[*world](elect)
	return scene.Chapter[*world]{
		ID:  "ex13",
		Ran: ran,
		Worlds: map[string]scene.Build[*world]{"story": built(storyWorld), "clock": built(clockWorld),
			"cut": built(cutWorld), "random": built(randomWorld)},
		Checks: []scene.Check[*world]{{
			// The paused leader's writes are refused once the lease has
			// passed on, and web ends with the pods it wants.
			Name:   "story",
			Plays:  []scene.Play{{World: "story", Seeds: scene.Story(storySeeds)}},
			Judges: []scene.Judge[*world]{noLeader, storyPlayed, deposedWrote, tooManyPods, converged, earlyTakeover},
		}, {
			// A healthy leader keeps its lease whatever the clocks say,
			// and no two controllers act at once.
			Name:   "clock-skew",
			Plays:  []scene.Play{{World: "clock", Seeds: scene.Scenes(clockSeeds)}},
			Judges: []scene.Judge[*world]{noLeader, liveLeaseTaken, twoLeaders, deposedWrote, tooManyPods, converged},
		}, {
			// A leader that cannot renew stops acting before its lease can
			// pass; another takes over in time.
			Name:   "step-down",
			Plays:  []scene.Play{{World: "cut", Seeds: scene.Scenes(cutSeeds)}},
			Judges: []scene.Judge[*world]{noLeader, leadingWithoutLease, deposedWrote, tooManyPods, tookOver, earlyTakeover},
		}, {
			// Whatever pauses, clocks and cuts do, no write of a deposed
			// leader is accepted, and web never has more pods than wanted.
			Name:   "fenced",
			Plays:  []scene.Play{{World: "random", Seeds: scene.Random(randomSeeds)}},
			Judges: []scene.Judge[*world]{noLeader, deposedWrote, tooManyPods, earlyTakeover},
		}},
	}
}
