package disklog

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// File is the name of the log on every server's disk; HeaderSize is the
// length of a frame's header (the payload's length and its CRC32).
const (
	File       = "log"
	HeaderSize = 8
)

// Entry is one record of a server's log, as the chapters write it.
type Entry struct {
	Index int64
	Event kube.Event
}

// Frame encodes e as one record of the log, the way the chapters' code
// does: what a test writes on a disk by hand.
func Frame(e Entry) []byte {
	payload, err := json.Marshal(e)
	if err != nil {
		panic(err) // an Entry is plain data
	}
	b := make([]byte, HeaderSize, HeaderSize+len(payload))
	binary.BigEndian.PutUint32(b[0:4], uint32(len(payload)))
	binary.BigEndian.PutUint32(b[4:8], crc32.ChecksumIEEE(payload))
	return append(b, payload...)
}

// Frames returns the payloads of the whole frames in the synced part of
// id's log: what that server's disk holds for sure right now, one payload
// per entry, not yet decoded. A server that never opened the log holds
// nothing.
func Frames(w *sim.World, id sim.NodeID) [][]byte {
	var out [][]byte
	for data := synced(w, id); ; {
		payload, sum, rest, whole := nextFrame(data)
		if !whole || crc32.ChecksumIEEE(payload) != sum {
			return out
		}
		out = append(out, payload)
		data = rest
	}
}

// FrameAt is the payload of the frame at position index (from 1) in the
// synced part of id's log, or nil if there is no whole frame there whose
// checksum holds. It checks only that frame's checksum: a torn frame before
// it shifts every later frame, and the checksum then fails.
func FrameAt(w *sim.World, id sim.NodeID, index int64) []byte {
	if index < 1 {
		return nil
	}
	data := synced(w, id)
	for i := int64(1); ; i++ {
		payload, sum, rest, whole := nextFrame(data)
		switch {
		case !whole:
			return nil
		case i < index:
			data = rest
		case crc32.ChecksumIEEE(payload) != sum:
			return nil
		default:
			return payload
		}
	}
}

// synced is the synced part of id's log, or nothing if it never opened one.
func synced(w *sim.World, id sim.NodeID) []byte {
	d := w.Disk(id)
	if !slices.Contains(d.Files(), File) {
		return nil
	}
	f := d.Open(File)
	return f.ReadAll()[:f.Synced()]
}

// nextFrame splits the frame at the head of data into its payload, the
// checksum its header gives, and the rest of data; whole is false when data
// does not begin with a whole frame.
func nextFrame(data []byte) (payload []byte, sum uint32, rest []byte, whole bool) {
	if len(data) < HeaderSize {
		return nil, 0, nil, false
	}
	n := int(binary.BigEndian.Uint32(data[0:4]))
	if len(data)-HeaderSize < n {
		return nil, 0, nil, false
	}
	return data[HeaderSize : HeaderSize+n], binary.BigEndian.Uint32(data[4:8]), data[HeaderSize+n:], true
}

// A Decoder decodes frames' payloads into entries, each distinct payload
// once. The zero Decoder (nil) decodes without remembering; make one with
// Decoder{} to remember.
type Decoder map[string]*Entry

// Decode returns the entry payload holds, or nil if it holds none.
func (d Decoder) Decode(payload []byte) *Entry {
	if e, ok := d[string(payload)]; ok {
		return e
	}
	var e *Entry
	var v Entry
	if json.Unmarshal(payload, &v) == nil {
		e = &v
	}
	if d != nil {
		d[string(payload)] = e
	}
	return e
}

// Log is Frames decoded, up to the first frame that is not an entry: id's
// log as a crash now would leave it.
func (d Decoder) Log(w *sim.World, id sim.NodeID) []Entry {
	var out []Entry
	for _, payload := range Frames(w, id) {
		e := d.Decode(payload)
		if e == nil {
			break
		}
		out = append(out, *e)
	}
	return out
}

// Holds reports whether id's disk holds, synced, at position index of its
// log, the change a client was told about: an entry numbered index, for the
// same key, with the same replicas (or a deletion).
func (d Decoder) Holds(w *sim.World, id sim.NodeID, index int64, key string, deleted bool, replicas int) bool {
	payload := FrameAt(w, id, index)
	if payload == nil {
		return false
	}
	e := d.Decode(payload)
	if e == nil {
		return false
	}
	if e.Index != index || e.Event.Object.Key() != key || (e.Event.Type == kube.Deleted) != deleted {
		return false
	}
	return deleted || e.Event.Object.Replicas == replicas
}

// Holders returns the servers, of servers, whose disks hold that change
// (see Holds), in order.
func (d Decoder) Holders(w *sim.World, servers []sim.NodeID, index int64, key string, deleted bool, replicas int) []string {
	var out []string
	for _, id := range servers {
		if d.Holds(w, id, index, key, deleted, replicas) {
			out = append(out, string(id))
		}
	}
	return out
}

// Disks tells what each server's disk held, synced, around position index,
// for a failure's details.
func Disks(w *sim.World, servers []sim.NodeID, index int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "each server's log on its disk, synced, around position %d:\n", index)
	for _, id := range servers {
		log := Decoder(nil).Log(w, id)
		fmt.Fprintf(&b, "  %-9s %3d entries", id, len(log))
		for i := max(index-2, 1); i <= index+1 && i <= int64(len(log)); i++ {
			e := log[i-1]
			fmt.Fprintf(&b, " · %d: %s", e.Index, e.Event)
		}
		b.WriteString("\n")
	}
	return b.String()
}
