package kube_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
)

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
