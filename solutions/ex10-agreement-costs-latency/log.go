package ex10

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// You do not need to change this file. It is the replicated log as each
// server keeps it on its disk: the log you built in chapter 8, given here so
// that this chapter is only about how fast agreement can go.

// Entry is one position of the replicated log: the change decided for it.
// Entry n holds the change whose ResourceVersion is n.
type Entry struct {
	Index int64
	Event kube.Event
}

// LogFile is the name of the log on every server's disk. Its format is part
// of the chapter: the hidden suite reads every server's disk to see which
// servers held a change when its client was told yes.
const LogFile = "log"

// diskLog is one server's log on its disk. Entries are framed as a 4-byte
// length, a 4-byte CRC32 of the payload, then the entry as JSON. Appends are
// not durable until sync.
type diskLog struct {
	file    *sim.File
	entries []Entry // every entry on disk or appended since, in order
	durable int64   // the index of the last entry synced
}

// openLog reads the log back after a boot. A crash may have left the last
// record torn: it is cut off, and the log ends at the last whole record.
func openLog(p *sim.Proc) *diskLog {
	l := &diskLog{file: p.Disk().Open(LogFile)}
	data := l.file.ReadAll()
	good := 0
	for {
		entry, n, ok := decodeRecord(data[good:])
		if !ok || entry.Index != int64(len(l.entries))+1 {
			break
		}
		l.entries = append(l.entries, entry)
		good += n
	}
	if good < len(data) {
		p.Logf("log: cut a torn record (%dB) after entry %d", len(data)-good, len(l.entries))
		l.file.Truncate(good)
	}
	l.durable = l.last()
	return l
}

// last is the index of the last entry in the log, 0 for an empty log.
func (l *diskLog) last() int64 { return int64(len(l.entries)) }

// append adds entries at the end of the log. They must follow on: the first
// one's Index is last()+1. They are not durable until sync.
func (l *diskLog) append(entries ...Entry) {
	for _, e := range entries {
		if e.Index != l.last()+1 {
			panic("log: entry out of order")
		}
		l.entries = append(l.entries, e)
		l.file.Append(encodeRecord(e))
	}
}

// sync makes every entry appended so far durable, and returns the index of
// the last durable entry. It takes virtual time; entries appended while it
// runs are made durable by the next sync.
func (l *diskLog) sync(p *sim.Proc) int64 {
	upTo := l.last()
	l.file.Sync(p)
	l.durable = max(l.durable, upTo)
	return l.durable
}

// slice returns entries from (exclusive) to upTo (inclusive).
func (l *diskLog) slice(from, upTo int64) []Entry {
	return append([]Entry(nil), l.entries[from:upTo]...)
}

func encodeRecord(e Entry) []byte {
	payload, err := json.Marshal(e)
	if err != nil {
		panic(err) // an Entry is plain data: this cannot happen
	}
	rec := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint32(rec[0:4], uint32(len(payload)))
	binary.BigEndian.PutUint32(rec[4:8], crc32.ChecksumIEEE(payload))
	return append(rec, payload...)
}

// decodeRecord reads the record at the start of data and says how many
// bytes it took; ok is false for a record that is incomplete or damaged.
func decodeRecord(data []byte) (e Entry, n int, ok bool) {
	if len(data) < 8 {
		return Entry{}, 0, false
	}
	size := int(binary.BigEndian.Uint32(data[0:4]))
	if len(data) < 8+size {
		return Entry{}, 0, false
	}
	payload := data[8 : 8+size]
	if crc32.ChecksumIEEE(payload) != binary.BigEndian.Uint32(data[4:8]) {
		return Entry{}, 0, false
	}
	if err := json.Unmarshal(payload, &e); err != nil {
		return Entry{}, 0, false
	}
	return e, 8 + size, true
}
