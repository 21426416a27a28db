package ex13suite

import (
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// The story's scene, stated once.
const (
	storyPods     = 2                // web's pods before the scale
	storyReplicas = 5                // what web is scaled to
	storyScale    = 59900 * ms       // when
	storyPause    = 20 * time.Second // how long the leader's node freezes after deciding
	storyEnd      = 100 * time.Second
)

// storyWorld: the leader decides to create web's missing pods and freezes
// for 20s between the decision and its writes.
func storyWorld(seed int64, elect electFunc) *world {
	w := newWorld(seed, elect, time.Second)
	w.kubectl(storyPods, scaleAt{storyScale, storyReplicas})
	w.plans = []*pausePlan{{after: storyScale, span: storyPause}}
	return w.run(storyEnd)
}

// The clock world's scenes, stated once: what is wrong with whose clock.
const (
	clockSkew = 20 * time.Second
	clockRate = 0.7 // within LeaseDuration/RenewDeadline = 1.5 of the others'
	clockEnd  = 70 * time.Second
)

// clockWorld: no pause and no cut, one clock wrong from the start, by the
// scene's seed: controller-b's 20s ahead, controller-a's 20s behind, or
// controller-a's running at 0.7 of the world's.
func clockWorld(seed int64, elect electFunc) *world {
	w := newWorld(seed, elect, time.Second)
	w.kubectl(2, scaleAt{20 * time.Second, 3}, scaleAt{40 * time.Second, 5})
	var f scene.Fault
	switch seed % 3 {
	case 1:
		f = scene.Skew{Node: ctrlB, By: clockSkew}
	case 2:
		f = scene.Skew{Node: ctrlA, By: -clockSkew}
	default:
		f = scene.ClockRate{Node: ctrlA, Rate: clockRate}
	}
	w.Inject(f)
	w.clocks[clockNode(f)] = f.String()
	return w.run(clockEnd)
}

// The cut world's scene, stated once.
const (
	cutAt      = 20 * time.Second
	cutSpan    = 30 * time.Second
	cutScale   = 21 * time.Second
	cutPods    = 3
	cutReplica = 5
	cutEnd     = 60 * time.Second
)

// cutWorld: at 20s the leader is cut off from everyone for 30s (crashed
// instead, in the second scene), and at 21s web is scaled from 3 to 5.
func cutWorld(seed int64, elect electFunc) *world {
	w := newWorld(seed, elect, time.Second)
	w.kubectl(cutPods, scaleAt{cutScale, cutReplica})
	w.cut = &cutPlan{crash: seed%2 == 0, at: cutAt, span: cutSpan}
	w.W.At(cutAt, func() {
		who := w.holder()
		if who == "" {
			return
		}
		w.cut.who = who
		if w.cut.crash {
			w.W.Crash(who)
			return
		}
		w.W.Partition([]sim.NodeID{who})
		w.W.At(cutAt+cutSpan, w.W.Heal)
	})
	return w.run(cutEnd)
}

// holder is who holds the lease in the store now.
func (w *world) holder() sim.NodeID {
	for i := len(w.accepted) - 1; i >= 0; i-- {
		if a := w.accepted[i]; a.ev.Object.Key() == leaseKey {
			return sim.NodeID(a.ev.Object.Lease.Holder)
		}
	}
	return ""
}

// randomEnd is how long a random world runs.
const randomEnd = 60 * time.Second

// randomWorld: pauses, clocks set off or running at their own rate, cuts
// between a controller and the server, and web scaled up every few seconds.
func randomWorld(seed int64, elect electFunc) *world {
	w := newWorld(seed, elect, 500*ms)
	r := w.W.Rand()
	between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(r.Int63n(int64(hi-lo))) }
	var scales []scaleAt
	at, replicas := time.Duration(0), 1
	for replicas < 12 {
		at += between(2*time.Second, 6*time.Second)
		if at > randomEnd-5*time.Second {
			break
		}
		replicas++
		scales = append(scales, scaleAt{at, replicas})
	}
	w.kubectl(1, scales...)
	var faults []scene.Fault
	for _, id := range []sim.NodeID{ctrlA, ctrlB} {
		if r.Intn(2) == 0 {
			skew := between(0, 60*time.Second) - 30*time.Second
			faults = append(faults, scene.Skew{Node: id, By: skew})
		}
		if r.Intn(5) < 2 {
			faults = append(faults, scene.ClockRate{Node: id, Rate: 0.5 + 1.5*r.Float64()})
		}
	}
	for range 1 + r.Intn(3) {
		who := []sim.NodeID{ctrlA, ctrlB}[r.Intn(2)]
		from, span := between(3*time.Second, 45*time.Second), between(time.Second, 30*time.Second)
		if r.Intn(2) == 0 {
			w.plans = append(w.plans, &pausePlan{who: who, after: from, span: span})
			continue
		}
		faults = append(faults, scene.Pause{Node: who, From: from, For: span})
	}
	if r.Intn(2) == 0 {
		who := []sim.NodeID{ctrlA, ctrlB}[r.Intn(2)]
		faults = append(faults, scene.Partition{Groups: [][]sim.NodeID{{who}}, From: between(5*time.Second, 40*time.Second), For: between(3*time.Second, 20*time.Second)})
	}
	w.Inject(faults...)
	for _, f := range faults {
		switch f := f.(type) {
		case scene.Skew:
			w.clocks[f.Node] += f.String() + "; "
		case scene.ClockRate:
			w.clocks[f.Node] += f.String() + "; "
		}
	}
	return w.run(randomEnd)
}

// describe is what the scene did to the world, for a story's details.
func (w *world) describe() string {
	var lines []string
	if s := w.Describe(); s != "" {
		lines = append(lines, s)
	}
	for _, plan := range w.plans {
		who := string(plan.who)
		if who == "" {
			who = "the leader"
		}
		lines = append(lines, fmt.Sprintf("  pause %s for %s after its first decision to create pods at or after %s", who, millis(plan.span), millis(plan.after)))
	}
	return strings.Join(lines, "\n")
}

// clockNode is the node a clock fault falls on.
func clockNode(f scene.Fault) sim.NodeID {
	switch f := f.(type) {
	case scene.Skew:
		return f.Node
	case scene.ClockRate:
		return f.Node
	}
	return ""
}
