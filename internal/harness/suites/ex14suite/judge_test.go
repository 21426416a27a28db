package ex14suite

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// evictsAt is a node controller that, at the given time, taints every node
// in order and evicts its pod at once: the verdict of a controller that
// takes every silence, or none, for death.
func evictsAt(at time.Duration, taintFirst bool) Impl {
	return Impl{Control: func(p *sim.Proc, api *kube.Client, nodes []string) {
		p.Sleep(at)
		for _, name := range nodes {
			if taintFirst {
				n, err := api.Get(kube.NodeKey(name), kube.ReadOptions{})
				if err == nil {
					n.Status.NoSchedule = true
					_, _ = api.Update(n)
				}
			}
			_, _ = api.Delete("pods/"+podName(name), 0)
		}
		for {
			p.Sleep(time.Hour)
		}
	}}
}

// A controller that evicts every pod 30s in, when every node is alive: the
// first eviction is told, with the node's kind, its link and its
// heartbeats around it, and it is the named failure of the chapter.
func TestEvictingALiveNodeIsSlowTakenForDead(t *testing.T) {
	w := storyWorld(1, evictsAt(30*time.Second, true))
	defer w.Close()
	require.NoError(t, w.Err)
	f := slowTakenForDead(w)
	require.NotNil(t, f)
	assert.Equal(t, "slow-taken-for-dead", f.Name)
	assert.Equal(t, course.DurableAgreement, f.Clause)
	assert.Contains(t, f.Story, "evicted pods/web-node-1 from node-1, which was alive: node-1 is a LAN node")
	assert.Contains(t, f.Details, "what the store accepted about node-1")
	assert.Contains(t, f.Details, "evicts pods/web-node-1")
}

// Evicting without a taint first, or the moment the taint is set, is
// conviction without suspicion.
func TestEvictingWithoutSuspicionIsNamed(t *testing.T) {
	for _, taint := range []bool{false, true} {
		w := storyWorld(1, evictsAt(300*time.Second, taint))
		f := convictedOnSuspicion(w)
		w.Close()
		require.NotNil(t, f)
		assert.Equal(t, "convicted-on-suspicion", f.Name)
		if taint {
			assert.Contains(t, f.Story, "after it tainted the node NoSchedule")
		} else {
			assert.Contains(t, f.Story, "without having tainted it NoSchedule first")
		}
	}
}

// A controller that does nothing never evicts a live node, and never finds
// a dead one: node-2's crash goes unsuspected, and node-4's story names the
// clock a minute ahead that makes its last heartbeat look fresh.
func TestADeadNodeLeftAloneIsNamed(t *testing.T) {
	w := storyWorld(1, idle)
	defer w.Close()
	assert.Nil(t, slowTakenForDead(w))
	assert.Nil(t, convictedOnSuspicion(w))
	f := deadUnsuspected(w)
	require.NotNil(t, f)
	assert.Equal(t, "dead-node-unsuspected", f.Name)
	assert.Contains(t, f.Story, "node-2 crashed at 200000ms")
	assert.Contains(t, f.Story, "A crashed LAN node must be suspected within 25000ms")
	f = deadKept(w)
	require.NotNil(t, f)
	assert.Equal(t, "dead-node-kept", f.Name)
	assert.Contains(t, f.Story, "and it was never evicted")
	w.names = []string{"node-4"}
	f = deadKept(w)
	require.NotNil(t, f)
	assert.Contains(t, f.Story, "which ran 60000ms ahead")
}

// Evicting while every node is cut off is the disruption's failure; doing
// nothing through the cut passes.
func TestEvictingDuringTheCutIsNamed(t *testing.T) {
	w := disruptionWorld(1, evictsAt(170*time.Second, true))
	f := evictedInDisruption(w)
	w.Close()
	require.NotNil(t, f)
	assert.Equal(t, "evicted-in-disruption", f.Name)
	assert.Contains(t, f.Story, "every node was cut off from the store and the controller from 150000ms to 210000ms")
	w = disruptionWorld(1, idle)
	defer w.Close()
	assert.Nil(t, evictedInDisruption(w))
	assert.Nil(t, slowTakenForDead(w))
}

// taintsAndLifts is a node controller that taints node NoSchedule at on,
// lifts the taint at off, and does nothing else.
func taintsAndLifts(node string, on, off time.Duration) Impl {
	set := func(api *kube.Client, taint bool) {
		n, err := api.Get(kube.NodeKey(node), kube.ReadOptions{})
		if err == nil {
			n.Status.NoSchedule = taint
			_, _ = api.Update(n)
		}
	}
	return Impl{Control: func(p *sim.Proc, api *kube.Client, _ []string) {
		p.Sleep(on)
		set(api, true)
		p.Sleep(off - on)
		set(api, false)
		for {
			p.Sleep(time.Hour)
		}
	}}
}

// A controller that tainted the crashed node and lifted the taint while
// the node was still silent is told so, with both times, never as one that
// did not taint it; the record labels the lift, and reaches back to the
// node's last heartbeat, its crash and the taint.
func TestALiftedTaintIsToldAsLifted(t *testing.T) {
	w := storyWorld(1, taintsAndLifts("node-2", 210*time.Second, 215*time.Second))
	defer w.Close()
	require.NoError(t, w.Err)
	f := deadUnsuspected(w)
	require.NotNil(t, f)
	assert.Equal(t, "dead-node-unsuspected", f.Name)
	assert.NotContains(t, f.Story, "still not tainted")
	assert.Regexp(t, `the node controller had tainted it NoSchedule at 210\d*(\.\d)?ms, then lifted the taint at 215\d*(\.\d)?ms, while the node was still silent`, f.Story)
	assert.Contains(t, f.Details, "node-controller lifts the NoSchedule taint")
	assert.Contains(t, f.Details, "node-controller taints it NoSchedule")
	assert.Contains(t, f.Details, "(the world) node-2 crashes")
	assert.Regexp(t, `heartbeat of node-2 \(its clock: 19\d+`, f.Details)
	t.Log(f.Story + "\n" + f.Details)
}

// An eviction after the cut has healed says how long after the heal it
// came.
func TestAnEvictionAfterTheHealSaysHowLongAfter(t *testing.T) {
	w := disruptionWorld(1, evictsAt(230*time.Second, true))
	defer w.Close()
	f := evictedInDisruption(w)
	require.NotNil(t, f)
	assert.Regexp(t, `at 230\d*(\.\d)?ms, 20\d*(\.\d)?ms after the heal, the node controller evicted`, f.Story)
}

// A clock stepped back is told as a step, by how much and when, never as
// a clock that ran behind all along.
func TestASteppedClockIsToldAsAStep(t *testing.T) {
	for seed := int64(1); seed < 50; seed++ {
		w := randomWorld(seed, idle)
		for _, node := range w.names {
			step, at, ok := w.stepOf(node, w.end)
			if !ok {
				continue
			}
			w.Close()
			require.Negative(t, step)
			s := w.silence(node, w.end)
			assert.Contains(t, s, "its clock was stepped back "+suiteTime(-step)+" at "+suiteTime(at))
			assert.NotContains(t, s, "its clock ran")
			return
		}
		w.Close()
	}
	t.Fatal("no world of the first 50 steps a clock")
}

func suiteTime(d time.Duration) string { return sim.FormatTime(d) }

// Suspecting a node that was up is counted over every world of the
// accuracy check: under the page's bound of suspicions per node-hour it
// holds; over it, the story gives the count, the hours and the bound.
func TestSuspectingTheLivingIsJudgedByTheHour(t *testing.T) {
	assert.Nil(t, suspicionRate(scene.Counts{"live-suspicions": 100, "node-seconds": 120 * 3600}, make([]int64, 150)))
	f := suspicionRate(scene.Counts{"live-suspicions": 600, "node-seconds": 120 * 3600}, make([]int64, 150))
	if assert.NotNil(t, f) {
		assert.Equal(t, "suspects-the-living", f.Name)
		assert.Contains(t, f.Story, "in 150 worlds (120.0 node-hours) the node controller tainted a node that was up, and not just paused, 600 times: 5.00 an hour for each node, over the page's bound of 3")
	}
	assert.Nil(t, suspicionRate(scene.Counts{}, nil), "no worlds, no rate")
}
