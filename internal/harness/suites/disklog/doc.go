// Package disklog reads the replicated log of chapters 8 and 10 straight off
// the servers' simulated disks, from outside the world, and judges what
// clients were told against it. The log's format is part of both chapters
// (their record.go and log.go give it to the learner): the file File on
// each server's disk, one frame per entry, the payload's length and CRC32,
// four bytes each, big-endian, then the entry as JSON.
//
// # What a disk holds
//
// Only the synced part of a file survives a crash, so only that part
// counts. Holds says whether one server's disk holds a given change at a
// given position; Holders asks every server. A Decoder remembers the
// entries it has decoded, since the same entries sit on every disk and a
// suite looks at them again at every answer a client gets.
//
// # Judging a read
//
// A change is part of the one history once a majority of the servers'
// disks hold it, synced, at the position its resourceVersion names. A read
// of any kind, a Latest one or an Any one, a get or an item of a list, may
// show only such a change: an Any read may be stale, an earlier point of
// the one history, but never ahead of it.
//
//	if f := d.Uncommitted(s, p.Now(), disklog.Read{Client: "reader", Server: "server-2",
//		How: disklog.AnyRead, Key: "deployments/web", Object: obj}); f != nil {
//		// the story: who read what where, when, and what each disk held
//	}
package disklog
