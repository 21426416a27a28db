// Package ex04 is chapter 4 of One History, "The write that arrived late":
// two API servers behind one load balancer, and a write that server-1
// acknowledges before server-2 has heard of it.
//
// Read the story first: book/ex04-the-write-that-arrived-late.md. Then run
//
//	make ex04
//
// and watch a dashboard read deployments/web from server-2 a few milliseconds
// after server-1 told a controller that web now has 5 replicas, and get 3.
//
// # What is here
//
// Each of the two nodes runs one Server. server-1 is the Primary: it orders
// every write (server-2 forwards the writes it receives), applies it to its
// copy of the history and sends the change on to server-2, which applies the
// changes in order (replica.go, which you need not change). Reads are served
// from the local copy.
//
// # What to do
//
// Change server.go, at the TODO(ex04) marks, so that once any client has
// been told a write succeeded, no Latest read on either server returns an
// older value. The hidden suite checks it with porcupine over many
// randomized runs with link delays up to 400ms, and checks that every
// request is still answered. `go run ./grader hint ex04` gives a hint.
package ex04
