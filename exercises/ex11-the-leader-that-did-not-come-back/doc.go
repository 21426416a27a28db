// Package ex11 is the cluster of chapter ex11, "The leader that did not
// come back" (book/ex11-the-leader-that-did-not-come-back.md).
//
// As shipped, it is ex08's log with its fixed leader, servers[0], and an
// automatic promotion: a follower that has heard nothing from the leader
// for 300ms bumps the epoch (the term) and declares itself leader. When the
// leader dies and a latency spike slows the link between the other two,
// both promote themselves in the same epoch, and each takes a different
// write at the same index: two histories inside the "one" log.
//
// What you have:
//   - history.go: one server's state, the changes applied in order. You
//     do not need to change it.
//   - record.go: the format of the two files on each server's disk (the
//     log's entries, each with its term; the term and vote). You do not
//     need to change it.
//   - log.go: the log on the disk (read back at boot, cut at a torn tail,
//     truncate a suffix, append and sync) and the term and vote file
//     (read back, save and sync).
//   - server.go: the servers. This is where you work (TODO(ex11)); add
//     files as you like.
//
// Your task: leaders that a majority elects, on the same log:
//   - a term and a vote kept on the disk and synced before any answer that
//     depends on them; at most one vote per term; a vote only for a
//     candidate whose log is at least as up to date (the term of its last
//     entry, then its length); any message with a higher term makes a
//     server a follower in that term;
//   - an election timeout drawn at random on each server, so that two
//     candidates rarely stand at once;
//   - Appends that carry the term of the entry before them: a follower
//     takes them only where its log matches, and cuts off a conflicting
//     suffix only if it is not committed;
//   - a leader commits by counting only entries of its own term, and
//     appends a no-op when elected so that it can;
//   - a Latest read that a deposed leader can never answer. Its own clock
//     is no proof that it still leads: the suite slows the clock of a
//     leader it cuts off, while the other side elects a leader and
//     commits, so a read answered on a lease or on check-quorum alone is
//     answered stale.
//   - Beyond the core, in a check of its own (no-disruption, 1 of the 18
//     points, needed to pass like every other): a pre-vote before bumping
//     the term, so a server cut off alone does not depose a healthy leader
//     when it returns. A leader that steps down when it has not heard from
//     a majority (check-quorum) is allowed, and no check needs it.
//
// Keep calling tell after every change of term, role, log or commit: the
// hidden suite checks what every server says about itself after every
// step. Run the chapter with
//
//	make ex11
package ex11
