// Package ex08 is the reference solution of chapter ex08, "More copies is
// not more truth" (book/ex08-more-copies-is-not-more-truth.md).
//
// The cluster keeps one replicated log with a fixed leader, servers[0]. The
// log (log.go) is a list of entries, Entry{Index, Event}, in memory and on
// each server's disk in record.go's frames, synced before anyone hears of
// them. One write at a time, the leader decides the write against the
// committed state, appends and syncs it as the next entry, and sends it to
// every follower in an Append{Prev, Entries, Commit}; a follower takes
// entries only right after the ones it holds, syncs them and answers with
// an Ack{From, Have}. The leader commits an entry once a majority (itself
// counted once, with what it has synced) holds it, applies it, and only
// then answers the client. A heartbeat re-sends every follower what it is
// missing and how far the log is committed, so a follower that was down or
// cut off catches up. A Latest read on a follower first asks the leader for
// its commit index (ReadIndex) and waits until it has applied that far.
package ex08
