// Package ex06 is the reference solution of chapter 6 of One History, "Both
// servers say yes" (book/ex06-both-servers-say-yes.md).
//
// One server, servers[0], is the sequencer: every write, wherever a client
// sent it, is decided there and given the next position of the one history.
// The sequencer sends each decided change to the other servers, which apply
// changes strictly in position order, holding back any that arrive early. A
// client hears yes only once the server it asked has applied its change, and
// a Latest read on a follower first asks the sequencer how far the history
// has come and waits until it has applied that far.
package ex06
