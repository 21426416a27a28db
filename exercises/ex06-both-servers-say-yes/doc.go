// Package ex06 is chapter 6 of One History, "Both servers say yes": the two
// API servers of chapter 4, now taking writes at the same moment, and the
// one order they must agree on.
//
// Read book/ex06-both-servers-say-yes.md first, then run
//
//	make ex06
//
// to watch two clients scale deployments/web at the same instant, to 5
// through server-1 and to 2 through server-2. Each server says yes, each
// gives its change the same position, each keeps its own when the other's
// arrives, and they disagree forever.
//
// # What is here
//
// replica.go is what chapter 4 built, given: a change reaches every other
// server before anyone is told yes (replicate), each server applies the
// changes it receives at their sender's positions (receive), and a Latest
// read catches up first (catchUp). history.go is one server's copy of the
// history. Neither needs a change.
//
// # What to do
//
// Your work is in server.go, at the TODO(ex06) comments: make one server,
// servers[0], the sequencer that decides every write and gives it its
// position, wherever the client sent it. An untouched chapter earns
// nothing. `go run ./grader hint ex06` gives a hint.
package ex06
