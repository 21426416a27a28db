// Package ex08 is the cluster of chapter ex08, "More copies is not more
// truth" (book/ex08-more-copies-is-not-more-truth.md).
//
// As shipped, the cluster answers the partition with copies: every server
// (three, then five) takes writes on its own, stamps each with its own
// clock, says yes at once, and a repair job makes the copies converge, the
// copy with the later stamp winning. Skew one clock and the copies converge
// on an older write: an acknowledged change is gone, and every copy agrees
// that it never happened.
//
// What you have:
//   - history.go: one server's state, the changes applied in order
//     (decide a write without applying it, apply a decided change, get,
//     list, watch). You do not need to change it.
//   - record.go: the log's format on the disk, as chapter ex02 built it:
//     encodeEntry frames one Entry, decodeEntries reads the whole frames
//     back and says where a torn one begins. The hidden suite reads every
//     server's log file with this format: keep the file name and the
//     format.
//   - server.go: the copies and their repair job. This is where you work
//     (TODO(ex08)); add files as you like.
//
// Your task: one authoritative history instead of many copies. servers[0]
// is the leader, fixed (choosing another one is the next investigation's
// subject; while the leader is down, writes wait or fail, honestly):
//   - the leader decides each write against the committed state and writes
//     it as the next entry of its log, synced to its disk;
//   - followers append entries only in order, right after the ones they
//     hold, sync them, and tell the leader how far their log goes;
//   - a client hears yes only once a majority of the servers (the leader
//     counted once) hold the entry on their disks; that is when it is
//     committed, and only committed entries are applied;
//   - a server that restarts reads its log back (cutting off a torn last
//     entry) and catches up on what it missed; a restarted leader answers
//     nothing before the log it recovered is committed again;
//   - a Latest read reflects every write acknowledged before it began: a
//     follower asks the leader how far the log is committed and answers
//     once it has applied that far. An Any ("0") read may be stale.
//
// Errors: a refusal that is certain (the leader refused the connection, or
// is still recovering) is a TooManyRequests status (429), which a client
// takes as "not done, retry"; a timeout is kube.ErrTimeout (it may have
// happened). Run the chapter with
//
//	make ex08
package ex08
