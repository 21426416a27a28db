package ex08suite

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"slices"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The log format the exercise's record.go gives the learner, read back here
// from outside the world: the file logFile on each server's disk, one frame
// per entry (the payload's length and CRC32, four bytes each, big-endian,
// then the entry as JSON).
const (
	logFile    = "log"
	headerSize = 8
)

// entry is one record of a server's log, as record.go writes it.
type entry struct {
	Index int64
	Event kube.Event
}

// durableFrames returns the payloads of the whole frames in the synced part
// of id's log: what that server's disk holds for sure right now, one payload
// per entry, not yet decoded. A server that never opened the log holds
// nothing.
func durableFrames(w *sim.World, id sim.NodeID) [][]byte {
	d := w.Disk(id)
	if !slices.Contains(d.Files(), logFile) {
		return nil
	}
	f := d.Open(logFile)
	data := f.ReadAll()[:f.Synced()]
	var out [][]byte
	for len(data) >= headerSize {
		n := int(binary.BigEndian.Uint32(data[0:4]))
		if len(data)-headerSize < n {
			break
		}
		payload := data[headerSize : headerSize+n]
		if crc32.ChecksumIEEE(payload) != binary.BigEndian.Uint32(data[4:8]) {
			break
		}
		out = append(out, payload)
		data = data[headerSize+n:]
	}
	return out
}

// decoder decodes frames' payloads into entries, each distinct payload
// once: the same entries sit on every server's disk, and the suite looks at
// them again at every answer a client gets.
type decoder map[string]*entry

// decode returns the entry payload holds, or nil if it holds none.
func (d decoder) decode(payload []byte) *entry {
	if e, ok := d[string(payload)]; ok {
		return e
	}
	var e *entry
	var v entry
	if json.Unmarshal(payload, &v) == nil {
		e = &v
	}
	if d != nil {
		d[string(payload)] = e
	}
	return e
}

// durableFrame is the payload of the frame at position index (from 1) in
// the synced part of id's log, or nil if there is no whole frame there
// whose checksum holds. It checks only that frame's checksum: a torn frame
// before it shifts every later frame, and the checksum then fails.
func durableFrame(w *sim.World, id sim.NodeID, index int64) []byte {
	d := w.Disk(id)
	if index < 1 || !slices.Contains(d.Files(), logFile) {
		return nil
	}
	f := d.Open(logFile)
	data := f.ReadAll()[:f.Synced()]
	for i := int64(1); len(data) >= headerSize; i++ {
		n := int(binary.BigEndian.Uint32(data[0:4]))
		if len(data)-headerSize < n {
			return nil
		}
		if i == index {
			payload := data[headerSize : headerSize+n]
			if crc32.ChecksumIEEE(payload) != binary.BigEndian.Uint32(data[4:8]) {
				return nil
			}
			return payload
		}
		data = data[headerSize+n:]
	}
	return nil
}

// durableLog is durableFrames decoded, up to the first frame that is not an
// entry.
func durableLog(w *sim.World, id sim.NodeID) []entry { return decoder(nil).log(w, id) }

// log is durableLog with d's decoded entries.
func (d decoder) log(w *sim.World, id sim.NodeID) []entry {
	var out []entry
	for _, payload := range durableFrames(w, id) {
		e := d.decode(payload)
		if e == nil {
			break
		}
		out = append(out, *e)
	}
	return out
}

// holds reports whether id's disk holds, synced, at position index of its
// log, the change a client was told about: an entry numbered index, for the
// same key, with the same replicas (or a deletion).
func holds(w *sim.World, id sim.NodeID, index int64, key string, deleted bool, replicas int) bool {
	return decoder(nil).holds(w, id, index, key, deleted, replicas)
}

// holds is the package's holds with d's decoded entries.
func (d decoder) holds(w *sim.World, id sim.NodeID, index int64, key string, deleted bool, replicas int) bool {
	payload := durableFrame(w, id, index)
	if payload == nil {
		return false
	}
	e := d.decode(payload)
	if e == nil {
		return false
	}
	if e.Index != index || e.Event.Object.Key() != key || (e.Event.Type == kube.Deleted) != deleted {
		return false
	}
	return deleted || e.Event.Object.Replicas == replicas
}

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
		log := w.decoded.log(w.W, id)
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
