package ex08suite

import (
	"fmt"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/suites/disklog"
)

// The exercise's record.go gives the learner the log's format; the suite
// reads it back from outside the world with package disklog.
const logFile = disklog.File

// lostOnRestart finds a server that has applied changes its own disk could
// not give back: the changes its history holds (from the audit) must be the
// first entries of its log, synced and readable, at the same positions. A
// log that stops early (a torn entry left in the middle of the file, an
// entry applied before it was synced) would lose them at the next restart.
func lostOnRestart(w *world) *suite.Failure {
	for _, id := range w.Servers {
		applied, ok := w.Histories[string(id)]
		if !ok {
			continue
		}
		log := w.decoded.Log(w.W, id)
		for i, c := range applied {
			if i < len(log) {
				e := log[i]
				if e.Index == int64(i+1) && e.Event.Object.Key() == c.Key && (e.Event.Type == kube.Deleted) == c.Deleted &&
					(c.Deleted || fmt.Sprint(e.Event.Object.Replicas) == fmt.Sprint(c.Value)) {
					continue
				}
			}
			file := w.W.Disk(id).Open(logFile)
			return &suite.Failure{
				Name:   "lost-on-restart",
				Clause: course.DurableAgreement,
				At:     w.AuditedAt,
				Story: fmt.Sprintf("%s has applied %d changes, but its log on disk gives back only the first %d of them (%d whole entries read from %d synced bytes): "+
					"a restart at %s would lose change %d, %s, and every one after it",
					id, len(applied), i, len(log), file.Synced(), suite.FormatTime(w.AuditedAt), i+1, c),
				Details: w.disks(int64(i + 1)),
			}
		}
	}
	return nil
}
