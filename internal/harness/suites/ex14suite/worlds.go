package ex14suite

import (
	"fmt"
	"math/rand"
	"time"

	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// The story's scene, stated once.
var (
	storyLAN      = []string{"node-1", "node-2", "node-3", "node-4"}
	storyDisk     = scene.SlowDisk{Node: store, Sync: 200 * ms, Upto: 2 * time.Second, From: 30 * time.Second, For: 40 * time.Second}
	storyLate     = lateHeartbeats{Node: "node-7", Delay: 36 * time.Second, From: 120 * time.Second, For: 21 * time.Second}
	storyPause    = scene.Pause{Node: "node-3", From: 170 * time.Second, For: 15 * time.Second}
	storyAhead    = scene.Skew{Node: "node-4", By: time.Minute}
	storyCrash    = scene.Crash{Node: "node-2", At: 200 * time.Second}
	storyCrashAhd = scene.Crash{Node: "node-4", At: 215 * time.Second}
	storyEnd      = 360 * time.Second
)

// lateHeartbeats makes every message Node sends the store take Delay, from
// From for For: a spell in which the long tail of its link is longer still.
type lateHeartbeats struct {
	Node      sim.NodeID
	Delay     time.Duration
	From, For time.Duration
}

func (f lateHeartbeats) String() string {
	return fmt.Sprintf("link %s → %s taking %s from %s for %s", f.Node, store, sim.FormatTime(f.Delay), sim.FormatTime(f.From), sim.FormatTime(f.For))
}

// inject schedules the spell in w's world, recorded as a slow link.
func (f lateHeartbeats) inject(w *world) {
	w.spells = append(w.spells, f)
	normal := w.pop[string(f.Node)].Up
	w.W.At(f.From, func() {
		w.W.SetLink(f.Node, store, sim.Link{Min: f.Delay, Max: f.Delay})
		w.W.Fault(sim.Fault{Kind: sim.FaultSlow, Desc: fmt.Sprintf("link %s → %s taking %s", f.Node, store, sim.FormatTime(f.Delay)),
			Nodes: []sim.NodeID{f.Node, store}, Start: f.From, End: f.From + f.For})
	})
	w.W.At(f.From+f.For, func() { w.W.SetLink(f.Node, store, normal) })
}

func storyWorld(seed int64, impl Impl) *world {
	w := newWorld(seed, impl, storyLAN, storyEnd)
	w.Inject(storyDisk, storyPause, storyAhead, storyCrash, storyCrashAhd)
	storyLate.inject(w)
	return w.run()
}

// The random worlds' schedule, stated once.
const (
	randomEnd  = 360 * time.Second
	clockOff   = time.Minute // one clock this far behind, one this far ahead
	stepBack   = time.Minute // one clock stepped back this far, once
	smallSkew  = 5 * time.Second
	crashFrom  = 130 * time.Second
	lanCrashTo = 240 * time.Second
	wanCrashTo = 170 * time.Second
)

func randomWorld(seed int64, impl Impl) *world {
	r := rand.New(rand.NewSource(seed)) // the schedule's own draws: the world's stay its own
	names := make([]string, nodeCount)
	for i, j := range r.Perm(nodeCount) {
		names[i] = fmt.Sprintf("node-%d", j+1)
	}
	lans, wans := names[:4], names[4:]
	w := newWorld(seed, impl, lans, randomEnd)
	between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(r.Int63n(int64(hi-lo)+1)) }
	// Who does what: a LAN node crashes, another pauses; a WAN node may
	// crash; one live node's clock is a minute behind, and one node's
	// (perhaps the crashed one's) a minute ahead.
	lanCrash, paused := lans[0], lans[1]
	behind, ahead, stepped := lans[2], names[r.Intn(nodeCount)], wans[1]
	if ahead == behind {
		ahead = lans[3]
	}
	faults := []scene.Fault{
		scene.SlowDisk{Node: store, Sync: 100 * ms, Upto: 1500 * ms, From: between(40*time.Second, 80*time.Second), For: between(30*time.Second, 50*time.Second)},
		scene.Pause{Node: sim.NodeID(paused), From: between(60*time.Second, 260*time.Second), For: between(5*time.Second, 15*time.Second)},
		scene.Crash{Node: sim.NodeID(lanCrash), At: between(crashFrom, lanCrashTo)},
	}
	if r.Intn(2) == 0 {
		faults = append(faults, scene.Crash{Node: sim.NodeID(wans[0]), At: between(crashFrom, wanCrashTo)})
	}
	for _, name := range names {
		by := between(-smallSkew, smallSkew)
		switch name {
		case behind:
			by = -clockOff
		case ahead:
			by = clockOff
		}
		faults = append(faults, scene.Skew{Node: sim.NodeID(name), By: by},
			scene.ClockRate{Node: sim.NodeID(name), Rate: 0.95 + 0.1*r.Float64()})
		if name == stepped {
			faults = append(faults, scene.Skew{Node: sim.NodeID(name), By: by - stepBack, From: between(60*time.Second, 200*time.Second)})
		}
	}
	w.Inject(faults...)
	return w.run()
}

// The disruption's scene: the story's cluster, every node cut off from the
// store and the controller for a minute.
var (
	disruptionFrom = 150 * time.Second
	disruptionFor  = time.Minute
)

func disruptionWorld(seed int64, impl Impl) *world {
	w := newWorld(seed, impl, storyLAN, storyEnd)
	w.cutFrom, w.cutTo = disruptionFrom, disruptionFrom+disruptionFor
	w.Inject(scene.Partition{Groups: [][]sim.NodeID{{store, controller}}, From: disruptionFrom, For: disruptionFor})
	return w.run()
}
