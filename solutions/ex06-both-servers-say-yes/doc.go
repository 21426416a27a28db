// Package ex06 is the reference solution of chapter 6 of One History, "Both
// servers say yes" (book/ex06-both-servers-say-yes.md).
//
// One server, servers[0], is the sequencer: every write, wherever a client
// sent it, is decided there and given the next position of the one history.
// The sequencer sends each decided change to every other server and answers
// only once they all hold it (replica.go, chapter 4's work), so a follower
// that forwarded a write already holds the change when the answer comes
// back. A follower never decides a write itself, and never sends an Order
// twice: after a timeout the write may have been ordered, so the client is
// told the outcome is unknown.
//
// The sequencer is one machine again: while it is down or cut off, no write
// is accepted. Agreement among several machines is the work of chapters 7
// and 8.
package ex06
