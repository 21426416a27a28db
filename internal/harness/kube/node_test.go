package kube_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// A kubelet registers its node, Ready, and writes a heartbeat every 10s in
// its own clock: node-1's clock runs 60s ahead, so its heartbeats read a
// minute from the future on a reader's clock. Each heartbeat is a change of
// the one history.
func TestAKubeletHeartbeatsInItsOwnClock(t *testing.T) {
	w := sim.New(1, sim.Latency(ms, 5*ms))
	defer w.Close()
	store := kube.NewMemStore(0)
	w.AddNode("server-1", serveStore(store))
	w.AddNode("node-1", func(p *sim.Proc) {
		kube.Kubelet(p, kube.NewClient(p, "server-1").Named("kubelet-1"), "node-1", 10*time.Second)
	})
	w.SetSkew("node-1", time.Minute)
	require.NoError(t, w.Run(35*time.Second))
	n, err := store.Get(nil, kube.NodeKey("node-1"), kube.ReadOptions{})
	require.NoError(t, err)
	assert.Equal(t, kube.ConditionTrue, n.Status.Ready)
	// The fourth heartbeat, written at about 30s (each interval begins after
	// the last heartbeat's two round trips), reads about 90s: the kubelet's clock.
	assert.InDelta(t, float64(90*time.Second), float64(n.Status.Heartbeat), float64(50*ms))
	assert.Len(t, store.Changes(), 4, "registered, then three heartbeats")
	assert.Equal(t, "nodes/node-1{ready=True heartbeat=90031.5ms rv=4}", n.String())
}

// A node whose machine crashed writes no more heartbeats: the last one
// stays, Ready True, until a node controller says otherwise. Nothing in the
// store tells a crash from a slow network: only the silence.
func TestACrashedNodeFallsSilent(t *testing.T) {
	w := sim.New(2, sim.Latency(ms, 5*ms))
	defer w.Close()
	store := kube.NewMemStore(0)
	w.AddNode("server-1", serveStore(store))
	w.AddNode("node-1", func(p *sim.Proc) {
		kube.Kubelet(p, kube.NewClient(p, "server-1"), "node-1", 10*time.Second)
	})
	w.At(15*time.Second, func() { w.Crash("node-1") })
	require.NoError(t, w.Run(time.Minute))
	n, err := store.Get(nil, kube.NodeKey("node-1"), kube.ReadOptions{})
	require.NoError(t, err)
	assert.Equal(t, kube.ConditionTrue, n.Status.Ready)
	assert.Less(t, n.Status.Heartbeat, 11*time.Second, "the heartbeat of about 10s was the last")
}

// The node controller suspects node-1: Ready Unknown, tainted NoSchedule.
// The kubelet's next heartbeat (it is alive after all) sets Ready True again
// and keeps the taint, which only the controller lifts. A heartbeat that
// raced the controller's write is refused with Conflict, not written over it.
func TestAHeartbeatKeepsTheControllersTaintAndLosesARace(t *testing.T) {
	w := sim.New(3, sim.Latency(ms, ms))
	defer w.Close()
	store := kube.NewMemStore(0)
	w.AddNode("server-1", serveStore(store))
	var raced error
	var after kube.Object
	w.AddNode("node-1", func(p *sim.Proc) {
		c := kube.NewClient(p, "server-1")
		_, err := kube.Heartbeat(c, "node-1", p.Clock())
		require.NoError(t, err)
		p.Sleep(time.Second)
		// The controller (below) writes between this read and its update.
		n, err := c.Get(kube.NodeKey("node-1"), kube.ReadOptions{})
		require.NoError(t, err)
		p.Sleep(time.Second)
		n.Status.Heartbeat = p.Clock()
		_, raced = c.Update(n)
		after, err = kube.Heartbeat(c, "node-1", p.Clock())
		require.NoError(t, err)
	})
	w.AddNode("node-controller", func(p *sim.Proc) {
		p.Sleep(1500 * ms)
		c := kube.NewClient(p, "server-1")
		n, err := c.Get(kube.NodeKey("node-1"), kube.ReadOptions{})
		require.NoError(t, err)
		n.Status.Ready, n.Status.NoSchedule = kube.ConditionUnknown, true
		_, err = c.Update(n)
		require.NoError(t, err)
	})
	require.NoError(t, w.Run(time.Minute))
	assert.ErrorIs(t, raced, kube.ErrConflict)
	assert.Equal(t, kube.ConditionTrue, after.Status.Ready)
	assert.True(t, after.Status.NoSchedule, "the taint is the controller's to lift")
	assert.Equal(t, "ready=True heartbeat=2008ms noschedule", after.Status.String())
}

// Pods are bound to nodes; evicting a node's pods starts from the pods it runs.
func TestPodsAreBoundToNodes(t *testing.T) {
	objs := []kube.Object{
		kube.BoundPod("web-a", "deployments/web", "node-1"),
		kube.BoundPod("web-b", "deployments/web", "node-2"),
		kube.NewNode("node-1", 0),
		kube.BoundPod("web-c", "deployments/web", "node-1"),
		pod("web-d", "deployments/web"),
	}
	on := kube.PodsOn(objs, "node-1")
	require.Len(t, on, 2)
	assert.Equal(t, []string{"web-a", "web-c"}, []string{on[0].Name, on[1].Name})
	assert.Equal(t, "pods/web-a{owner=deployments/web node=node-1 rv=0}", objs[0].String())
	assert.Equal(t, "nodes/node-1{ready=True heartbeat=0ms rv=0}", objs[2].String())
	assert.Equal(t, "deployments/web", objs[0].Value(), "a pod's value is still its owner")
	assert.Equal(t, "ready=True heartbeat=0ms", objs[2].Value())
}
