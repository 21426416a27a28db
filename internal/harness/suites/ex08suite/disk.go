package ex08suite

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"slices"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
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

// durableLog is durableFrames decoded, up to the first frame that is not an
// entry.
func durableLog(w *sim.World, id sim.NodeID) []entry {
	var out []entry
	for _, payload := range durableFrames(w, id) {
		var e entry
		if json.Unmarshal(payload, &e) != nil {
			break
		}
		out = append(out, e)
	}
	return out
}

// holds reports whether id's disk holds, synced, at position index of its
// log, the change a client was told about: an entry numbered index, for the
// same key, with the same replicas (or a deletion).
func holds(w *sim.World, id sim.NodeID, index int64, key string, deleted bool, replicas int) bool {
	frames := durableFrames(w, id)
	if index < 1 || int64(len(frames)) < index {
		return false
	}
	var e entry
	if json.Unmarshal(frames[index-1], &e) != nil {
		return false
	}
	if e.Index != index || e.Event.Object.Key() != key || (e.Event.Type == kube.Deleted) != deleted {
		return false
	}
	return deleted || e.Event.Object.Replicas == replicas
}
