// Package ex04 is the reference solution of chapter 4 of One History, "The
// write that arrived late" (book/ex04-the-write-that-arrived-late.md).
//
// Three rules make the two copies behave as one history while one server
// takes writes at a time:
//
//   - A server says yes to a write only once every other server has
//     applied it, calling again until the other answers: "accepted" means
//     readable on both servers, and survives the loss of the one that said
//     it.
//   - A server applies a change from the other at the position its sender
//     gave it, waiting for the change in front of it and ignoring one it
//     already holds.
//   - A Latest read (get or list) first asks every other server how far its
//     history goes and waits until its own copy has got that far, much as
//     etcd confirms a linearizable read against its leader's commit index
//     before answering. The first rule is not enough without it: a server
//     shows a write to its own readers before the other has it.
//
// Two servers that take writes at the same moment can still give one
// position to two different changes: that is chapter 6.
package ex04
