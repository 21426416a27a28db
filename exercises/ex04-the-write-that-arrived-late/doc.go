// Package ex04 is chapter 4 of One History, "The write that arrived late":
// two API servers behind one load balancer, each accepting writes by its
// own rules and copying them to the other after it has said yes.
//
// Read the story first: book/ex04-the-write-that-arrived-late.md. Then run
//
//	make ex04
//
// and watch a dashboard read deployments/web through server-2 a few
// milliseconds after server-1 told a controller that web now has 5
// replicas, and get 3.
//
// # What is here
//
// Serve (server.go) runs one server on each node: it answers the API's
// requests from its own copy of the history (history.go, which you need not
// change) and, after saying yes to a write, sends the change to the other
// server once, in a Replicate message, which the other appends when it
// arrives.
//
// # What to do
//
// Change server.go, at the TODO(ex04) marks, so that a write a client was
// told is accepted is readable everywhere a Latest read may go:
//
//   - say yes to a write only once every other server has applied it,
//     whatever the link loses on the way;
//   - apply a change from the other server at the position its sender gave
//     it, once, and never before the change in front of it;
//   - make Latest gets and lists confirm they are up to date before they
//     answer; kube.Any reads may stay local.
//
// The hidden suite replays the story, kills the server that said yes, and
// checks many randomized runs (slow, lossy and repeating links) with
// porcupine. An untouched chapter earns nothing. `go run ./grader hint ex04`
// gives a hint.
package ex04
