// Package ex12 is chapter 12 of One History, "The edit that erased a scale",
// a bonus chapter: three API servers that share one agreed log, and two
// writers that change different fields of one object.
//
// Read book/ex12-the-edit-that-erased-a-scale.md first, then run
//
//	make ex12
//
// to watch an autoscaler scale deployments/web to 7 while an engineer sets
// its image: both are told "accepted", every write is in the one agreed
// log, and the scale is gone.
//
// Your work is in two places, at the TODO(ex12) comments:
//
//   - store.go: where a write's precondition is decided. Today the server
//     checks it at the door, against what it has applied so far, and the
//     entry then applies unconditionally.
//   - update.go: GuaranteedUpdate, the helper every writer uses to change one field
//     of an object. Today it reads, changes and writes the whole object
//     back, and sends a timed-out write again.
//
// server.go (the server around the log), history.go (the changes, applied)
// and the agreed log itself (package agreed, given) need no change.
package ex12
