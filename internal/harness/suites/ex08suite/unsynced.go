package ex08suite

import (
	"fmt"
	"reflect"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// sentUnsynced judges the leader's messages before its first crash for an
// Append that carried an entry its own log had not yet synced
// (sent-before-synced): the entry had reached the leader's file, but not for
// sure its disk, and a crash of the leader could take it back while a
// follower kept it. It reads the trace: each Append the leader sent, and how
// many bytes of its log were durable at that moment, against where the
// entry's frame ends in its log. Before the leader's first crash its log
// only grows, so the frames its file holds now are the frames it held then.
func sentUnsynced(w *world) *suite.Failure {
	leader := w.Servers[0]
	var log []Entry
	var ends []int
	read := false               // the leader's log is read at the first Append with entries
	durable, synced := 0, false // synced: a disk event has told how much is durable
	for e := range w.W.Trace().All() {
		if e.Node != leader {
			continue
		}
		switch e.Kind {
		case sim.EvCrash:
			return nil
		case sim.EvDisk:
			if e.Disk != nil && e.Disk.File == LogFile {
				durable, synced = e.Disk.Durable, true
			}
		case sim.EvSend, sim.EvReply:
			if !synced {
				continue
			}
			indexes := appendIndexes(e.Msg)
			if len(indexes) > 0 && !read {
				log, ends = w.disks.WrittenLog(leader)
				read = true
			}
			for _, i := range indexes {
				if i < 1 || i > int64(len(ends)) || durable >= ends[i-1] {
					continue
				}
				story := fmt.Sprintf("%s, the leader, sent %s entry %d (%s) at %s, when its own disk had synced %d bytes of its log and the entry's frame ends at byte %d: "+
					"the entry was in the leader's file, not yet on its disk for sure. %s. "+
					"A crash of the leader then takes the entry back while %s may keep it, and the two logs tell two histories: "+
					"the leader sends only entries its own disk has synced.",
					leader, e.Peer, i, log[i-1].Event, suite.FormatTime(e.At), durable, ends[i-1], syncedWhen(w, leader, ends[i-1], e), e.Peer)
				return &suite.Failure{Name: "sent-before-synced", Clause: course.DurableAgreement, At: e.At, Story: story,
					Timeline: w.Timeline(e.At)}
			}
		}
	}
	return nil
}

// syncedWhen tells when leader's disk came to hold size bytes for sure,
// after the message sent: "Its disk held it at 231.2ms", or that it never
// did before the world stopped.
func syncedWhen(w *world, leader sim.NodeID, size int, sent sim.Event) string {
	for e := range w.W.Trace().All() {
		if e.At < sent.At || e.Node != leader || e.Kind != sim.EvDisk || e.Disk == nil || e.Disk.File != LogFile {
			continue
		}
		if e.Disk.Durable >= size {
			return "Its disk held it for sure only at " + suite.FormatTime(e.At)
		}
	}
	return "Its disk never held it for sure before the world stopped at " + suite.FormatTime(w.W.Now())
}

// appendIndexes lists the Index of each entry msg carries, when msg is an
// Append (of the exercise's types, read by their fields' names, as carries
// does); nothing otherwise.
func appendIndexes(msg any) []int64 {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Struct || v.Type().Name() != "Append" {
		return nil
	}
	entries := v.FieldByName("Entries")
	if !entries.IsValid() || entries.Kind() != reflect.Slice {
		return nil
	}
	var out []int64
	for i := range entries.Len() {
		if e := entries.Index(i); e.Kind() == reflect.Struct {
			if x := e.FieldByName("Index"); x.IsValid() && x.CanInt() {
				out = append(out, x.Int())
			}
		}
	}
	return out
}
