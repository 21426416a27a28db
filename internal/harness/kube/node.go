package kube

import (
	"fmt"
	"time"

	"onehistory/internal/harness/sim"
)

// Nodes and the pods bound to them, reduced to what failure detection needs.
//
// A node is the object "nodes/<name>" (kind "nodes"). Its kubelet keeps it
// alive by writing a heartbeat into its Status every interval (Kubelet):
// the time on the kubelet's own clock, which may be skewed, and its Ready
// condition True. The node controller, which watches the heartbeats, is the
// one that decides a node has gone quiet: it sets Ready to Unknown and
// taints the node NoSchedule (no new pods there), and evicts the node's
// pods (deletes the pods whose NodeName is the node) once it is convinced.
// Kubernetes today carries the heartbeat in a Lease of kube-node-lease and
// posts the node's status less often; here the heartbeat is the status
// update itself, as it was before node leases, so that a node is one object.

// ConditionStatus is the status of a node's condition, as Kubernetes spells
// it: True, False or Unknown.
type ConditionStatus string

// The statuses of a node's Ready condition.
const (
	// ConditionTrue: the kubelet says the node is ready.
	ConditionTrue ConditionStatus = "True"
	// ConditionFalse: the kubelet says the node is not ready.
	ConditionFalse ConditionStatus = "False"
	// ConditionUnknown: the node controller has stopped hearing from the
	// kubelet, and cannot tell whether the node is ready.
	ConditionUnknown ConditionStatus = "Unknown"
)

// NodeStatus is what a node's kubelet and the node controller say of it.
type NodeStatus struct {
	// Ready is the node's Ready condition: True from its kubelet's
	// heartbeat, Unknown once the node controller suspects it.
	Ready ConditionStatus
	// Heartbeat is the last heartbeat's time, on the kubelet's own clock
	// (its p.Clock(), skew and all): the writer's clock, which a reader on
	// another machine cannot compare with its own.
	Heartbeat time.Duration
	// NoSchedule is the node controller's taint on a suspected node: no new
	// pod is placed there, and the pods it runs stay until they are evicted.
	NoSchedule bool
}

// String is "ready=True heartbeat=10000ms", with " noschedule" for a
// tainted node.
func (s NodeStatus) String() string {
	ready := s.Ready
	if ready == "" {
		ready = "?"
	}
	out := fmt.Sprintf("ready=%s heartbeat=%s", ready, sim.FormatTime(s.Heartbeat))
	if s.NoSchedule {
		out += " noschedule"
	}
	return out
}

// NodeKey is the key of node name's object: "nodes/node-3".
func NodeKey(name string) string { return "nodes/" + name }

// NewNode is node name as its kubelet registers it: Ready, with its first
// heartbeat at clock.
func NewNode(name string, clock time.Duration) Object {
	return Object{Kind: "nodes", Name: name, Status: NodeStatus{Ready: ConditionTrue, Heartbeat: clock}}
}

// BoundPod is pod name, owned by owner ("deployments/web"), bound to node.
func BoundPod(name, owner, node string) Object {
	return Object{Kind: "pods", Name: name, Owner: owner, NodeName: node}
}

// PodsOn lists the pods among objs bound to node, in the order given.
func PodsOn(objs []Object, node string) []Object {
	var out []Object
	for _, o := range objs {
		if o.Kind == "pods" && o.NodeName == node {
			out = append(out, o)
		}
	}
	return out
}
