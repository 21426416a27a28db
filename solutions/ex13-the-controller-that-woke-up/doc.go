// Package ex13 is chapter 13 of One History, "The controller that woke up",
// a bonus chapter: two copies of a ReplicaSet controller that elect one
// leader through a lease, and a store that can fence off a deposed one.
//
// Read book/ex13-the-controller-that-woke-up.md first, then run
//
//	make ex13
//
// to watch controller-a decide to create three pods, freeze for 20s, and
// wake to create them after controller-b has taken the lease and created
// them too: 8 pods where 5 were wanted.
//
// Your work is in elector.go, at the TODO(ex13) comments: the Elector each
// controller runs. Today it judges the lease by the holder's renewTime read
// against its own clock, never stops leading while it cannot renew, and
// hands out no fence, so the store cannot tell a deposed leader's writes
// from the leader's.
//
// The controller around it (read web and its pods, decide, create the
// missing ones with the fence Leading gave), the API server and its store
// (a kube.MemStore, which refuses a write whose fence names a lease token
// that has passed) are given and need no change.
package ex13
