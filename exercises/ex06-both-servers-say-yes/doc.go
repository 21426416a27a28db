// Package ex06 is chapter 6 of One History, "Both servers say yes": two API
// servers that each accept writes, and the one order they must agree on.
//
// Read book/ex06-both-servers-say-yes.md first, then run
//
//	make ex06
//
// to watch two clients scale deployments/web at the same instant, to 5
// through server-1 and to 2 through server-2. Each server says yes, each
// copies its change to the other, and they end swapped, forever.
//
// Your work is in server.go, at the TODO(ex06) comments: make one server the
// sequencer that gives every accepted change its position, and make every
// server apply changes strictly in that order, answering a client only once
// its change has been ordered. history.go, one server's copy of the history,
// needs no change.
package ex06
