// Package ex11 is the reference solution of chapter ex11, "The leader that
// did not come back" (book/ex11-the-leader-that-did-not-come-back.md).
//
// The servers elect their leader, Raft-style, on ex08's log. Each keeps its
// term and vote in stateFile, synced before it answers anyone; votes at most
// once per term, only for a candidate whose log is at least as up to date
// (last entry's term, then length); and steps down on any higher term. A
// server that hears no leader for a randomized election timeout first asks
// a pre-vote (would a majority vote for me?), and only then stands; a
// server in a later term answers a pre-vote with that term, which the
// candidate moves to (else it would ask forever for a term no one grants). A
// leader appends a no-op in its term, sends Append{Prev, PrevTerm, Entries,
// Commit}; a follower takes entries only where its log matches at Prev,
// cutting off a conflicting suffix it has not committed. The leader commits
// by counting only entries of its own term. Latest reads go through the log
// as a no-op, so a deposed leader can never answer one. A leader that has
// not heard from a majority for an election timeout steps down
// (check-quorum). Every change of term, role, log or commit is told to the
// hidden suite's monitor with p.SetStatus.
package ex11
