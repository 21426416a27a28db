package ex11

import (
	"slices"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/sim"
)

// wal is this server's copy of the log: its entries in memory, and the same
// entries, framed, in logFile on the node's disk. Entry i (counting from 1)
// is entries[i-1]; ends[i-1] is where its frame ends in the file, so that a
// conflicting suffix can be cut off the file as well as the memory.
type wal struct {
	file    *sim.File
	entries []Entry
	ends    []int
	// views is the log as the hidden suite's monitor reads it, built as
	// entries are appended. A slice of it handed out is never changed
	// afterwards: truncate starts a new array.
	views []check.LogEntry
}

// openLog reads the log back at boot, cutting off a torn last frame.
func openLog(p *sim.Proc) *wal {
	f := p.Disk().Open(logFile)
	data := f.ReadAll()
	entries, ends, good := decode[Entry](data)
	if good < len(data) {
		f.Truncate(good)
	}
	l := &wal{file: f, entries: entries, ends: ends}
	for _, e := range entries {
		l.views = append(l.views, check.LogEntry{Term: e.Term, What: e.What()})
	}
	return l
}

// last is the index of the last entry; 0 for an empty log.
func (l *wal) last() int64 { return int64(len(l.entries)) }

// term is the term of entry i, 0 for i = 0 (before the first entry).
func (l *wal) term(i int64) int64 {
	if i <= 0 || i > l.last() {
		return 0
	}
	return l.entries[i-1].Term
}

// entry is entry i (1 <= i <= last()).
func (l *wal) entry(i int64) Entry { return l.entries[i-1] }

// from returns up to n entries from index i on, as a fresh slice.
func (l *wal) from(i int64, n int) []Entry {
	if i > l.last() {
		return nil
	}
	end := min(l.last(), i-1+int64(n))
	return append([]Entry(nil), l.entries[i-1:end]...)
}

// truncate drops entry i and every entry after it, from memory and disk.
func (l *wal) truncate(i int64) {
	if i > l.last() {
		return
	}
	off := 0
	if i > 1 {
		off = l.ends[i-2]
	}
	l.file.Truncate(off)
	l.entries = l.entries[: i-1 : i-1]
	l.ends = l.ends[: i-1 : i-1]
	l.views = slices.Clone(l.views[:i-1])
}

// append writes entries at the end of the log and syncs them: when it
// returns they are durable here.
func (l *wal) append(p *sim.Proc, entries ...Entry) {
	for _, e := range entries {
		l.file.Append(encode(e))
		l.entries = append(l.entries, e)
		l.ends = append(l.ends, l.file.Size())
		l.views = append(l.views, check.LogEntry{Term: e.Term, What: e.What()})
	}
	l.file.Sync(p)
}

// view is the log as the hidden suite's monitor reads it: a slice that
// nothing changes afterwards.
func (l *wal) view() []check.LogEntry { return l.views[:len(l.views):len(l.views)] }

// votes is the server's term and vote, in stateFile on the disk.
type votes struct {
	file *sim.File
	Vote
}

// openVotes reads back the last whole record of stateFile.
func openVotes(p *sim.Proc) *votes {
	f := p.Disk().Open(stateFile)
	data := f.ReadAll()
	records, _, good := decode[Vote](data)
	if good < len(data) {
		f.Truncate(good)
	}
	v := &votes{file: f}
	if len(records) > 0 {
		v.Vote = records[len(records)-1]
	}
	return v
}

// save writes v as the current term and vote and syncs it: only after save
// returns may the server tell anyone about them.
func (v *votes) save(p *sim.Proc, nv Vote) {
	v.Vote = nv
	v.file.Append(encode(nv))
	v.file.Sync(p)
}
