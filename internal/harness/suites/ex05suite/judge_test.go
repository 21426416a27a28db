package ex05suite

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"onehistory/internal/harness/sim"
)

// overAt builds the overshoot of a create of key by "by", accepted at 4.5s
// when the history wanted desired (scaled at 3.8s) and held pods, with the
// creator's belief b.
func overAt(by sim.NodeID, key string, pods, desired, justified int, b belief) (*cluster, *overshoot) {
	c := change{at: 4500 * ms, what: "ADDED " + key, key: key, create: true, by: by, via: b.server, pods: pods, desired: desired, overshot: true}
	cl := &cluster{log: []change{c}}
	v := &overshoot{change: c, justified: justified, scaledAt: 3800 * ms, index: 0,
		beliefs: map[sim.NodeID]belief{by: b}}
	return cl, v
}

// A create made on a desired count the history had left behind is blamed on
// that read, named with the server that answered it and when, before
// anything is said about pod counts.
func TestAStaleCachedDesiredCountIsTheCause(t *testing.T) {
	b := belief{server: server2,
		desired:  read{value: 5, cached: true, at: 4119500 * time.Microsecond, ok: true},
		decision: read{value: 2, cached: false, at: 4300 * ms, ok: true}, creates: 3}
	f := overFailure(overAt(controllerB, "pods/web-2", 3, 2, 2, b))
	assert.Equal(t, "stale-desired-count", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, "controller-b acted on a stale desired count: server-2 answered from its cache at 4119.5ms that web wants 5, "+
		"but the history had been scaled to 2 at 3800ms (accepted by etcd)"), f.Story)
}

// A controller that read the new count but created up to one it had been
// told before (a remembered count) is blamed on that earlier read.
func TestARememberedDesiredCountIsTheCause(t *testing.T) {
	b := belief{server: server1,
		earlier:  []read{{value: 5, at: 300 * ms, ok: true}},
		desired:  read{value: 2, at: 4200 * ms, ok: true},
		decision: read{value: 2, at: 4210 * ms, ok: true}, creates: 3}
	f := overFailure(overAt(controllerA, "pods/web-4", 3, 2, 2, b))
	assert.Equal(t, "stale-desired-count", f.Name)
	assert.Contains(t, f.Story, "as if web still wanted 5, the count it was told at 300ms (read with Latest)")
}

// Filling a gap below the count it last read is not acting on a remembered
// count, even when the numbers happen to add up to one: the pods it kept
// are the trouble.
func TestFillingAGapBesideKeptExtrasIsTooManyPods(t *testing.T) {
	b := belief{server: server1,
		earlier:  []read{{value: 5, at: 300 * ms, ok: true}},
		desired:  read{value: 4, at: 8000 * ms, ok: true},
		decision: read{value: 4, at: 8010 * ms, ok: true}, creates: 1}
	f := overFailure(overAt(controllerA, "pods/web-3", 5, 4, 4, b))
	assert.Equal(t, "too-many-pods", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, "controller-a created more pods than its own count called for"), f.Story)
}

// Two controllers that each filled the same shortfall are told together,
// with the counts they acted on, where those came from and when.
func TestTwoControllersOnOneShortfall(t *testing.T) {
	a := belief{server: server1, desired: read{value: 5, cached: true, at: 107 * ms, ok: true},
		decision: read{value: 2, cached: true, at: 110 * ms, ok: true}, creates: 3}
	b := belief{server: server2, desired: read{value: 5, cached: true, at: 111 * ms, ok: true},
		decision: read{value: 2, cached: true, at: 118 * ms, ok: true}, creates: 3}
	cl, v := overAt(controllerB, "pods/web-x", 6, 5, 0, b)
	v.beliefs[controllerA] = a
	cl.log = append(cl.log, change{at: 4600 * ms, create: true, pods: 8, desired: 5})
	f := overFailure(cl, v)
	assert.Equal(t, "too-many-pods", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, "controller-a and controller-b each created pods for the same shortfall of deployments/web"), f.Story)
	assert.Contains(t, f.Story, `controller-b counted 2 (server-2's cache, rv="0", answered at 118ms) and sent 3 creates`)
	assert.Contains(t, f.Story, "the one history went on to 8 pods (the last of them accepted at 4600ms)")
}

// The story's scene is told from the values it is built from.
func TestTheSceneIsToldFromItsValues(t *testing.T) {
	sc := storyScenario()
	assert.Equal(t, storyDesired, sc.initial)
	assert.Contains(t, storyScene(), "takes 400ms–410ms each way")
	assert.Equal(t, slowMin, slowLink(sc.end).Link.Min)
}

// Some randomized runs scale web to 0 and hold it there longer than a pod
// may stand while web wants none, and end late enough for the slow
// controller's last creates to be deleted; the others keep 5→2→6→4.
func TestSomeRunsScaleWebToZeroAndHoldIt(t *testing.T) {
	zero := 0
	for seed := int64(1); seed <= 200; seed++ {
		sc := randomScenario(seed)
		if sc.scales[0].replicas != 0 {
			assert.Equal(t, 2, sc.scales[0].replicas)
			continue
		}
		zero++
		assert.Equal(t, zeroHold, sc.scales[1].at-sc.scales[0].at)
		assert.Greater(t, zeroHold, zeroSettle)
		assert.Less(t, sc.scales[2].at, sc.end-4*time.Second)
	}
	assert.Greater(t, zero, 20, "about a quarter of the runs")
	assert.Less(t, zero, 80)
}
