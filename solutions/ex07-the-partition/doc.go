// Package ex07 is the reference solution of chapter 7 of One History, "The
// partition" (book/ex07-the-partition.md).
//
// servers[0] is still the sequencer, and still the only server that orders
// writes. What changed is when anyone hears yes: the sequencer sends the
// history to every other server (replicate), learns how far each holds it,
// and answers a write only once a majority of the servers hold it
// (committed). A server that cannot get a majority in time answers
// Unavailable instead of waiting or guessing: a follower cut off from the
// sequencer, and a sequencer cut off from the others. A Latest read is
// answered only once a majority has confirmed, after the read arrived, how
// far the history is committed; an Any read is answered from the server's
// own copy, however stale. After a heal the sequencer sends each server what
// it missed, from the position that server reports, so the minority catches
// up to the one history.
//
// Nobody takes over from a sequencer that is gone: a side without it
// refuses writes until it is back. Choosing a new one safely is a problem of
// its own, beyond this chapter.
package ex07
