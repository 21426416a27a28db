package ex08

import (
	"fmt"

	"onehistory/internal/harness/sim"
)

// wal is this server's copy of the replicated log: its entries in memory,
// and the same entries, framed, in the file logFile on the node's disk.
// Entry i (counting from 1) is entries[i-1]; its Index is i.
type wal struct {
	file    *sim.File
	entries []Entry
	synced  int64 // how many entries are durable: a crash keeps at least these
}

// openLog reads the log back from the disk at boot: every whole entry, in
// order. A crash can leave a torn last frame behind the whole ones; it is
// cut off the file, or the next entry would be appended after it and the
// next boot would stop reading at the torn bytes, losing that entry and
// every later one.
func openLog(p *sim.Proc) *wal {
	f := p.Disk().Open(logFile)
	data := f.ReadAll()
	entries, good := decodeEntries(data)
	for i, e := range entries {
		if e.Index != int64(i+1) {
			panic(fmt.Sprintf("ex08: %s's log holds entry %d at position %d", p.Node(), e.Index, i+1))
		}
	}
	if good < len(data) {
		p.Logf("log: dropping a torn entry (%dB after byte %d)", len(data)-good, good)
		f.Truncate(good)
	}
	p.Logf("log opened: %d entries", len(entries))
	return &wal{file: f, entries: entries, synced: int64(len(entries))}
}

// last is the Index of the last entry, synced or not; 0 for an empty log.
func (l *wal) last() int64 { return int64(len(l.entries)) }

// entry is the entry at index i (1 <= i <= last()).
func (l *wal) entry(i int64) Entry { return l.entries[i-1] }

// after returns the synced entries that follow index i, at most n of them:
// what may leave this server. An entry that is not yet synced here may
// still vanish in a crash, so no other server may hold it before this one
// does.
func (l *wal) after(i int64, n int) []Entry {
	end := min(l.synced, i+int64(n))
	if i >= end {
		return nil
	}
	return l.entries[i:end]
}

// append writes entries at the end of the log, each at the next index, and
// syncs them: when append returns they are durable here.
func (l *wal) append(p *sim.Proc, entries ...Entry) {
	for _, e := range entries {
		if e.Index != l.last()+1 {
			panic(fmt.Sprintf("ex08: appending entry %d after entry %d", e.Index, l.last()))
		}
		l.file.Append(encodeEntry(e))
		l.entries = append(l.entries, e)
	}
	target := l.last()
	l.file.Sync(p)
	l.synced = max(l.synced, target)
}
