// Package ex14 is chapter 14 of One History, "Slow is not dead", a bonus
// chapter: the node controller, which watches every node's heartbeat and
// decides which nodes are gone.
//
// Read book/ex14-slow-is-not-dead.md first, then run
//
//	make ex14
//
// to watch the controller evict the pod of a node whose heartbeat was only
// late, while the pods of a node whose clock runs ahead stay bound to it
// long after it lost power.
//
// Your work is in one place, at the TODO(ex14) comments of detector.go:
// the Detector, which is told every heartbeat the controller sees and
// says, for each node, whether it is healthy, suspected or convicted.
// Today it compares the heartbeat's own timestamp, written on the node's
// clock, with the controller's clock, and convicts past one fixed timeout.
//
// controller.go (the loop around the detector: it watches the nodes, taints
// a suspected node NoSchedule and evicts a convicted node's pods) needs no
// change.
package ex14
