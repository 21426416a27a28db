package ex08suite

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The replicated log on the servers' disks, as chapter 8's record.go gives
// it to the learner and chapter 10's log.go gives it again: the file
// LogFile on each server's disk, one frame per entry, the payload's length
// and CRC32, four bytes each, big-endian, then the entry as JSON. This file
// is the one place the suites read that format; ex10suite reads it here too.

// LogFile is the name of the log on every server's disk.
const LogFile = "log"

// headerSize is the length of a frame's header: the payload's length and
// its CRC32.
const headerSize = 8

// Entry is one record of a server's log: the change at position Index of
// the one history.
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
	b := make([]byte, headerSize, headerSize+len(payload))
	binary.BigEndian.PutUint32(b[0:4], uint32(len(payload)))
	binary.BigEndian.PutUint32(b[4:8], crc32.ChecksumIEEE(payload))
	return append(b, payload...)
}

// Is reports whether e is the change a client was told about: an entry for
// key, a deletion if deleted, else with that many replicas. A nil entry is
// no change.
func (e *Entry) Is(key string, deleted bool, replicas int) bool {
	return e != nil && e.Event.Object.Key() == key && (e.Event.Type == kube.Deleted) == deleted &&
		(deleted || e.Event.Object.Replicas == replicas)
}

// Disks reads the logs of a scene's servers straight off their disks, from
// outside the world. Only the synced part of a file survives a crash, so
// only that part counts: it is what a disk holds for sure at the moment it
// is read. Disks remembers the entries it has decoded, since the same
// entries sit on every disk and a suite reads them again at every answer a
// client gets.
type Disks struct {
	s       *scene.Scene
	decoded map[string]*Entry // by payload; nil: not an entry
}

// NewDisks reads the disks of s's servers.
func NewDisks(s *scene.Scene) *Disks { return &Disks{s: s, decoded: map[string]*Entry{}} }

// synced is the synced part of id's log, or nothing if it never opened
// one.
func (d *Disks) synced(id sim.NodeID) []byte {
	data, synced := d.file(id)
	return data[:synced]
}

// file is id's log as the file holds it now, synced or not, and how much
// of it is synced; nothing if it never opened one. The bytes are the
// world's own (sim.World.FileBytes): read at once, never kept or changed.
func (d *Disks) file(id sim.NodeID) (data []byte, synced int) {
	return d.s.W.FileBytes(id, LogFile)
}

// nextFrame splits the frame at the head of data into its payload, the
// checksum its header gives, and the rest of data; whole is false when data
// does not begin with a whole frame.
func nextFrame(data []byte) (payload []byte, sum uint32, rest []byte, whole bool) {
	if len(data) < headerSize {
		return nil, 0, nil, false
	}
	n := int(binary.BigEndian.Uint32(data[0:4]))
	if len(data)-headerSize < n {
		return nil, 0, nil, false
	}
	return data[headerSize : headerSize+n], binary.BigEndian.Uint32(data[4:8]), data[headerSize+n:], true
}

// decode returns the entry payload holds, or nil if it holds none.
func (d *Disks) decode(payload []byte) *Entry {
	if e, ok := d.decoded[string(payload)]; ok {
		return e
	}
	var e *Entry
	var v Entry
	if json.Unmarshal(payload, &v) == nil {
		e = &v
	}
	d.decoded[string(payload)] = e
	return e
}

// At is the entry at position index (from 1) of id's log, synced, whole,
// its checksum good and its own Index index; nil if there is none. Only
// that frame's checksum is checked: a torn frame before it shifts every
// later one, and the checksum then fails.
func (d *Disks) At(id sim.NodeID, index int64) *Entry {
	e, _ := d.entryAt(d.synced(id), index)
	return e
}

// Written is the entry at position index of id's log as the file holds it
// now, synced or not, by At's rules otherwise, and the length the file's
// synced part must reach to hold it for sure; nil if there is none. An
// entry written and not yet synced is a copy a crash may still take back.
func (d *Disks) Written(id sim.NodeID, index int64) (e *Entry, end int) {
	data, _ := d.file(id)
	return d.entryAt(data, index)
}

// WrittenLog is id's log as the file holds it now, synced or not, read
// once: its entries in order, by At's rules each (whole, its checksum good,
// its own Index its position), up to the first frame that breaks them, and
// for each the offset where its frame ends, the length the file's synced
// part must reach to hold it for sure. It is Written for every position at
// once, for a judge that walks a whole log.
func (d *Disks) WrittenLog(id sim.NodeID) (log []Entry, ends []int) {
	data, _ := d.file(id)
	size := len(data)
	for i := int64(1); ; i++ {
		payload, sum, rest, whole := nextFrame(data)
		if !whole || crc32.ChecksumIEEE(payload) != sum {
			return log, ends
		}
		e := d.decode(payload)
		if e == nil || e.Index != i {
			return log, ends
		}
		log, ends = append(log, *e), append(ends, size-len(rest))
		data = rest
	}
}

// entryAt is the entry at position index of data, and the offset where its
// frame ends.
func (d *Disks) entryAt(data []byte, index int64) (*Entry, int) {
	size := len(data)
	for i := int64(1); index >= 1; i++ {
		payload, sum, rest, whole := nextFrame(data)
		switch {
		case !whole:
			return nil, 0
		case i < index:
			data = rest
		case crc32.ChecksumIEEE(payload) != sum:
			return nil, 0
		default:
			if e := d.decode(payload); e != nil && e.Index == index {
				return e, size - len(rest)
			}
			return nil, 0
		}
	}
	return nil, 0
}

// Log is id's log as a crash now would leave it: the synced whole frames,
// decoded, up to the first that is not an entry.
func (d *Disks) Log(id sim.NodeID) []Entry {
	log, _ := d.read(id)
	return log
}

// Unread is how many synced bytes of id's log follow the last entry Log
// reads: a torn frame, and whatever was appended after it.
func (d *Disks) Unread(id sim.NodeID) int {
	_, unread := d.read(id)
	return unread
}

// read is Log, and the length of what follows it.
func (d *Disks) read(id sim.NodeID) ([]Entry, int) {
	var out []Entry
	for data := d.synced(id); ; {
		payload, sum, rest, whole := nextFrame(data)
		if !whole || crc32.ChecksumIEEE(payload) != sum {
			return out, len(data)
		}
		e := d.decode(payload)
		if e == nil {
			return out, len(data)
		}
		out = append(out, *e)
		data = rest
	}
}

// Holders returns the servers whose disks hold, synced, at position index
// of their log, the change a client was told about (Entry.Is), in order.
func (d *Disks) Holders(index int64, key string, deleted bool, replicas int) []string {
	var out []string
	for _, id := range d.s.Servers {
		if d.At(id, index).Is(key, deleted, replicas) {
			out = append(out, string(id))
		}
	}
	return out
}

// Around tells what each server's disk held, synced, around position
// index, for a failure's details.
func (d *Disks) Around(index int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "each server's log on its disk, synced, around position %d:\n", index)
	for _, id := range d.s.Servers {
		log := d.Log(id)
		fmt.Fprintf(&b, "  %-9s %3d entries", id, len(log))
		for i := max(index-2, 1); i <= index+1 && i <= int64(len(log)); i++ {
			e := log[i-1]
			fmt.Fprintf(&b, " · %d: %s", e.Index, e.Event)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// How a client read, as the stories name it.
const (
	LatestRead = "Latest read"
	AnyRead    = "Any read"
	LatestList = "Latest list"
	AnyList    = "Any list"
)

// A Read is one answer a client got from a read, or one item of a list's
// answer: Server answered Client's read (How) of Key with Object.
type Read struct {
	Client, Server string
	How            string // LatestRead, AnyRead, LatestList or AnyList
	Key            string
	Object         kube.Object
}

// Uncommitted judges r, answered at the virtual time at, against the
// disks: a change is part of the one history once a majority of the
// servers' disks hold it, synced, at the position its resourceVersion
// names, and a read of any kind (Latest or Any, a get or an item of a list)
// may show only such a change. It returns nil if r did, and otherwise the
// failure read-uncommitted (clause 3), told as a story: who answered whom
// with what, which write gave that value and what became of it, how many
// disks held it, and the rule; its details show every disk around that
// position. An Any read may be stale, an earlier point of the one history,
// but not ahead of it: a value that only some copies hold is not yet part
// of the one history, another read may not see it, and a crash may take it
// back.
func (d *Disks) Uncommitted(at time.Duration, r Read) *suite.Failure {
	s, obj := d.s, r.Object
	holders := d.Holders(obj.ResourceVersion, r.Key, false, obj.Replicas)
	majority := len(s.Servers)/2 + 1
	if len(holders) >= majority {
		return nil
	}
	held := "no server's disk held it"
	if len(holders) > 0 {
		held = fmt.Sprintf("only %d of %d servers' disks held it, synced (%s)", len(holders), len(s.Servers), strings.Join(holders, ", "))
	}
	rule := fmt.Sprintf("A %s must come from what the one history has committed, not from one machine's copy", r.How)
	if r.How == AnyRead || r.How == AnyList {
		rule = "An " + r.How + " may be stale, an earlier point of the one history, but never ahead of it: " +
			"it too must come from what the one history has committed, not from one machine's copy"
	}
	return &suite.Failure{
		Name:   "read-uncommitted",
		Clause: course.AgreementFirst,
		At:     at,
		Story: fmt.Sprintf("%s answered %s's %s of %s with replicas=%d (rv %d%s) at %s, but at that moment %s at position %d of the log; "+
			"a majority of the %d servers is %d. %s",
			r.Server, r.Client, r.How, r.Key, obj.Replicas, obj.ResourceVersion, writeOf(s.History, r.Key, obj.Replicas), suite.FormatTime(at), held,
			obj.ResourceVersion, len(s.Servers), majority, rule),
		Details: d.Around(obj.ResourceVersion),
	}
}

// writeOf names the write in h that gave key the value replicas, as a
// story's aside: ", written by client-a's write deployments/web=12 through
// server-1, sent at 520ms and not answered yet". Values are unique per key
// in every world of the chapters, so it names the one write; a value no
// recorded write gave says nothing.
func writeOf(h *check.History, key string, replicas int) string {
	for _, op := range h.Operations() {
		if op.Input.Key != key || !op.Input.Kind.Mutates() || op.Input.Kind == check.KindDelete || fmt.Sprint(op.Input.Value) != fmt.Sprint(replicas) {
			continue
		}
		answer := "not answered yet"
		if op.Result.Outcome != check.Pending {
			answer = fmt.Sprintf("answered %s at %s", op.Result.Outcome, suite.FormatTime(op.Return))
		}
		return fmt.Sprintf(", written by %s's %s through %s, sent at %s and %s", op.Client, op.Input, op.Server, suite.FormatTime(op.Call), answer)
	}
	return ""
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
		log := w.disks.Log(id)
		for i, c := range applied {
			if replicas, _ := c.Value.(int); i < len(log) && log[i].Index == int64(i+1) && log[i].Is(c.Key, c.Deleted, replicas) {
				continue
			}
			return &suite.Failure{
				Name:   "lost-on-restart",
				Clause: course.DurableAgreement,
				At:     w.AuditedAt,
				Story: fmt.Sprintf("%s has applied %d changes, but its log on disk gives back only the first %d of them (%d whole entries read from %d synced bytes): "+
					"a restart at %s would lose change %d, %s, and every one after it",
					id, len(applied), i, len(log), w.W.Disk(id).Open(LogFile).Synced(), suite.FormatTime(w.AuditedAt), i+1, c),
				Details: w.disks.Around(int64(i + 1)),
			}
		}
	}
	return nil
}
