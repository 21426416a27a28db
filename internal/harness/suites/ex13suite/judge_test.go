package ex13suite

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// judged is a world with nothing running, whose store's accepted writes
// the test writes by hand.
func judged(t *testing.T) *world {
	s := scene.New(1, nil, scene.Named(server))
	t.Cleanup(s.Close)
	return &world{Scene: s, store: kube.NewMemStore(0), samples: map[sim.NodeID][]sample{},
		clocks: map[sim.NodeID]string{}, decided: map[sim.NodeID]*decision{}, end: storyEnd}
}

// accept applies a write to the judged world's store as the API server would
// have, from the node given, at the time given.
func (w *world) accept(t *testing.T, at time.Duration, from sim.NodeID, req any) {
	t.Helper()
	ev, changed, err := w.store.Propose(req)
	require.NoError(t, err)
	require.True(t, changed)
	require.NoError(t, w.store.Apply(nil, ev))
	w.accepted = append(w.accepted, accepted{rv: ev.Object.ResourceVersion, at: at, from: from, ev: ev, req: req})
}

func leaseOf(holder sim.NodeID, clock time.Duration, transitions int64) kube.Object {
	return kube.Object{Kind: "leases", Name: "controller", Lease: kube.LeaseSpec{Holder: string(holder), LeaseDurationSeconds: 15,
		AcquireTime: clock, RenewTime: clock, Transitions: transitions}}
}

func podOf(name string, fence kube.Fence) kube.CreateRequest {
	return kube.CreateRequest{Object: kube.Object{Kind: "pods", Name: name, Owner: web, Fence: fence}}
}

// The story gone wrong: controller-a decided at 60010ms with token 1, was
// paused for 20s, and its creates were accepted after controller-b had
// taken the lease with token 2 at 75400ms. The story names the write, the
// token its writer held, the holder and since when.
func TestADeposedLeadersWriteIsNamedWithBothTokens(t *testing.T) {
	w := judged(t)
	w.accept(t, 10*ms, kubectl, kube.CreateRequest{Object: kube.Object{Kind: "deployments", Name: "web", Replicas: 5}})
	w.accept(t, 20*ms, ctrlA, kube.CreateRequest{Object: leaseOf(ctrlA, 20*ms, 1)})
	for i, at := range []time.Duration{30 * ms, 31 * ms} {
		w.accept(t, at, kubectl, podOf([]string{"web-1", "web-2"}[i], kube.Fence{}))
	}
	taken := leaseOf(ctrlB, 75400*ms, 2)
	taken.ResourceVersion = 2
	w.accept(t, 75400*ms, ctrlB, kube.UpdateRequest{Object: taken})
	for i, name := range []string{"web-3", "web-4", "web-5"} {
		w.accept(t, 75402*ms+time.Duration(i)*ms, ctrlB, podOf(name, kube.Fence{LeaseKey: leaseKey, Token: 2}))
	}
	w.paused = []*decision{{who: ctrlA, at: 60010 * ms, want: 5, have: 2, resumed: 80010 * ms}}
	w.accept(t, 80010*ms, ctrlA, podOf("web-6", kube.Fence{}))

	f := deposedWrote(w)
	require.NotNil(t, f)
	assert.Equal(t, "deposed-leader-wrote", f.Name)
	assert.Equal(t, 80010*ms, f.At)
	assert.Contains(t, f.Story, "at 80010ms controller-a created pods/web-6 holding lease token 1, but controller-b has held the lease with token 2 since 75400ms")
	assert.Contains(t, f.Story, "its write carried no fence")
	assert.Contains(t, f.Story, "it had decided at 60010ms, when web wanted 5 pods and had 2, and its node was paused from then until 80010ms")
	assert.Contains(t, f.Story, "web ends with 6 pods where 5 were wanted")
	assert.Contains(t, f.Details, "controller-b with token 2, accepted by the store at 75400ms")

	f = tooManyPods(w)
	require.NotNil(t, f, "the sixth pod is one too many")
	assert.Equal(t, "too-many-pods", f.Name)
}

// A healthy leader whose lease another takes over: the story shows both
// clocks' readings, which is where the naive elector's mistake lies.
func TestALiveLeaseTakenShowsBothClocks(t *testing.T) {
	w := judged(t)
	w.clocks[ctrlB] = scene.Skew{Node: ctrlB, By: 20 * time.Second}.String()
	w.accept(t, 5*ms, ctrlA, kube.CreateRequest{Object: leaseOf(ctrlA, 0, 1)})
	taken := leaseOf(ctrlB, 21000*ms, 2)
	taken.ResourceVersion = 1
	w.accept(t, 1004*ms, ctrlB, kube.UpdateRequest{Object: taken})
	f := liveLeaseTaken(w)
	require.NotNil(t, f)
	assert.Equal(t, "live-lease-taken", f.Name)
	assert.Contains(t, f.Story, "at 1004ms controller-b took leases/controller (token 2) from controller-a, whose last renewal the store had accepted at 5ms, 999ms before")
	assert.Contains(t, f.Story, "The lease's renewTime, 0ms, was written by controller-a's clock; controller-b's clock read 21000ms when it took it over (clock of controller-b skewed by +20000ms from 0ms)")
}

// A leader cut off from the server answers "leading" past its renew
// deadline, here by only 100ms of the cut world's true clocks: named with its
// last renewal and the deadline. The answer's way back (deadlineSlack) is
// allowed.
func TestALeaderPastItsDeadlineIsNamed(t *testing.T) {
	w := judged(t)
	w.cut = &cutPlan{at: cutAt, span: cutSpan, who: ctrlA}
	w.accept(t, 18000*ms, ctrlA, kube.CreateRequest{Object: leaseOf(ctrlA, 18000*ms, 1)})
	fence := kube.Fence{LeaseKey: leaseKey, Token: 1}
	w.samples[ctrlA] = []sample{{at: 25000 * ms, leading: true, fence: fence}, {at: 28050 * ms, leading: true, fence: fence}, {at: 28100 * ms, leading: true, fence: fence}}
	f := leadingWithoutLease(w)
	require.NotNil(t, f)
	assert.Equal(t, "leader-without-a-lease", f.Name)
	assert.Equal(t, 28100*ms, f.At, "18000ms + the 10000ms deadline, and 100ms more")
	assert.Contains(t, f.Story, "cut off from server-1 since 20000ms and the store last accepted its renewal at 18000ms, 10100ms before")

	w.samples[ctrlA][2].leading = false
	assert.Nil(t, leadingWithoutLease(w), "a leader that stepped down in time")
}

// With every clock true, a contender that takes the lease 5s after the
// store accepted its holder's renewal took a live lease: named with both
// times. One that waited a whole lease is not.
func TestAnEarlyTakeoverIsNamed(t *testing.T) {
	w := judged(t)
	w.accept(t, 18000*ms, ctrlA, kube.CreateRequest{Object: leaseOf(ctrlA, 18000*ms, 1)})
	taken := leaseOf(ctrlB, 23000*ms, 2)
	taken.ResourceVersion = 1
	w.accept(t, 23000*ms, ctrlB, kube.UpdateRequest{Object: taken})
	f := earlyTakeover(w)
	require.NotNil(t, f)
	assert.Equal(t, "live-lease-taken", f.Name)
	assert.Contains(t, f.Story, "controller-b took leases/controller (token 2) at 23000ms, 5000ms after the store accepted controller-a's renewal at 18000ms")

	w.clocks[ctrlB] = "clock of controller-b runs at 1.5"
	assert.Nil(t, earlyTakeover(w), "judged only where every clock runs true")
}

// A takeover after the lease ran out is the holder's fault, not the
// taker's: a holder nothing paused that stopped renewing is named as such,
// never called "well within the lease".
func TestALeaseTakenAfterItRanOutBlamesTheHolder(t *testing.T) {
	w := judged(t)
	w.accept(t, 5*ms, ctrlA, kube.CreateRequest{Object: leaseOf(ctrlA, 0, 1)})
	taken := leaseOf(ctrlB, 17030*ms, 2)
	taken.ResourceVersion = 1
	w.accept(t, 17030*ms, ctrlB, kube.UpdateRequest{Object: taken})
	f := liveLeaseTaken(w)
	require.NotNil(t, f)
	assert.Equal(t, "live-lease-taken", f.Name)
	assert.Contains(t, f.Story, "17025ms before by the world's clock, longer than the lease's 15000ms: controller-a, which nothing paused or cut off, stopped renewing a lease it held, and lost it")
	assert.NotContains(t, f.Story, "well within")
}
