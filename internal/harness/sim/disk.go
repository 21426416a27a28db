package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Disk is a node's stable storage: named append-only files that outlive
// crashes, up to what was synced. It belongs to the node, not to a process;
// get it with p.Disk().
type Disk struct {
	w     *World
	node  *node
	files map[string]*File
	names []string // creation order
	// lose, during a CrashTearing, is how many of a file's unsynced bytes
	// the crash loses; nil: drawn.
	lose func(unsynced int) int
	// syncLatency, when not 0, is how long a Sync of this disk takes
	// instead of the world's (SetDiskSyncLatency); syncUpto, when above it,
	// the longest a Sync takes, each drawn in [syncLatency, syncUpto]
	// (SetDiskSyncLatencies).
	syncLatency, syncUpto time.Duration
}

// SetDiskSyncLatency makes a Sync on node id's disk take d from now on,
// instead of the world's DiskSyncLatency (0: the world's again): one slow
// disk among fast ones. A Sync already under way keeps its latency. It is
// recorded as a fault of kind FaultSlowDisk, from now on.
func (w *World) SetDiskSyncLatency(id NodeID, d time.Duration) {
	checkDuration("SetDiskSyncLatency", d)
	w.setDiskSync("SetDiskSyncLatency", id, d, d)
}

// SetDiskSyncLatencies makes each Sync on node id's disk take a latency
// drawn uniformly from [min, max] from now on, instead of the world's: a
// disk whose syncs vary from one to the next, as a busy disk's do (min and
// max 0: the world's again). It is recorded as a fault of kind
// FaultSlowDisk, as SetDiskSyncLatency's is; a disk with a single latency
// draws nothing.
func (w *World) SetDiskSyncLatencies(id NodeID, min, max time.Duration) {
	checkRange("SetDiskSyncLatencies", min, max)
	w.setDiskSync("SetDiskSyncLatencies", id, min, max)
}

func (w *World) setDiskSync(what string, id NodeID, min, max time.Duration) {
	disk := w.node(id, what).disk
	disk.syncLatency, disk.syncUpto = min, max
	span := FormatTime(min)
	if max > min {
		span = strings.TrimSuffix(span, "ms") + "–" + FormatTime(max)
	}
	w.faultEnd(FaultSlowDisk, id)
	if max != 0 {
		w.faultStart(Fault{Kind: FaultSlowDisk, Desc: fmt.Sprintf("disk of %s syncing in %s", id, span), Nodes: []NodeID{id}})
	}
	w.record(Event{Kind: EvFault, Node: id, Text: fmt.Sprintf("disk sync latency %s", span)})
}

// Loss is what one crash did to one file's unsynced bytes: of Unsynced
// bytes appended since the last Sync, the crash kept the first Kept (a
// torn write when 0 < Kept < Unsynced) and lost the rest.
type Loss struct {
	At       time.Duration // the crash's virtual time
	File     string
	Unsynced int
	Kept     int
}

// DiskLosses lists, in order, what each crash of node id did to each file
// of its disk that held unsynced bytes at the time. A file that was fully
// synced lost nothing and is not listed.
//
// It is the world's to tell, not the disk's: a node that could ask how much
// of its unsynced tail a crash kept would need no way of its own to find a
// torn record, and a real disk tells nobody. (So the record is kept with
// the node, where nothing a process holds leads: not even fmt, which
// prints a struct's unexported fields, finds it through a *Disk.) The harness reads it to judge
// a recovery against what the crash did.
func (w *World) DiskLosses(id NodeID) []Loss {
	return append([]Loss(nil), w.node(id, "DiskLosses").losses...)
}

// File is one file on a Disk. Append writes to the node's memory-backed
// cache at once; Sync makes what was appended so far durable, taking virtual
// time. At a crash, everything synced survives; of what was appended after
// the last Sync, a random prefix survives: none of it, all of it, or part of
// a record (a torn write).
type File struct {
	d      *Disk
	name   string
	data   []byte
	synced int // length known to be durable
}

// Disk is the disk of the process's node.
func (p *Proc) Disk() *Disk {
	p.mustBeCurrent()
	return p.node.disk
}

// Disk is the disk of node id, for inspecting what survived from outside.
func (w *World) Disk(id NodeID) *Disk { return w.node(id, "Disk").disk }

// FileBytes is file name on node id's disk as it is now, and how many of
// its first bytes are synced (nothing, if the node never opened it), for a
// suite that reads a disk from outside, often: a judge that reads every
// server's log at every answer a client gets. Unlike File.ReadAll it makes
// no copy: the bytes are the world's own, to read before the world runs
// again and never to change.
func (w *World) FileBytes(id NodeID, name string) (data []byte, synced int) {
	f, ok := w.node(id, "FileBytes").disk.files[name]
	if !ok {
		return nil, 0
	}
	return f.data[:len(f.data):len(f.data)], f.synced
}

// Open returns the named file, creating it empty if it does not exist.
func (d *Disk) Open(name string) *File {
	if f, ok := d.files[name]; ok {
		return f
	}
	f := &File{d: d, name: name}
	d.files[name] = f
	d.names = append(d.names, name)
	return f
}

// Files lists the disk's file names in creation order.
func (d *Disk) Files() []string { return append([]string(nil), d.names...) }

// Append adds b to the end of the file. It is not durable until Sync.
func (f *File) Append(b []byte) {
	f.d.mustBeUp("Append")
	f.data = append(f.data, b...)
	f.d.w.record(Event{Kind: EvDisk, Node: f.d.node.id, Text: fmt.Sprintf("append %s +%dB", f.name, len(b)), Disk: f.op(DiskAppend)})
}

// Sync blocks the process until everything appended so far is durable. A
// crash before Sync returns may lose it.
func (f *File) Sync(p *Proc) {
	p.mustBeCurrent()
	f.d.mustBeUp("Sync")
	target := len(f.data)
	latency := f.d.w.syncLatency
	if f.d.syncUpto != 0 {
		latency = f.d.syncLatency
		if f.d.syncUpto > latency {
			latency += time.Duration(f.d.w.rng.Int63n(int64(f.d.syncUpto-latency) + 1))
		}
	}
	p.sleep(latency)
	if target > f.synced {
		f.synced = target
	}
	f.d.w.record(Event{Kind: EvDisk, Node: f.d.node.id, Proc: p.name, Text: fmt.Sprintf("sync %s (%dB durable)", f.name, f.synced), Disk: f.op(DiskSync)})
}

// ReadAll returns a copy of the file's contents. The copy ends where the
// file does, capacity included: a reader that slices past the end of the
// file panics as it would on a real one, instead of reading zeros that a
// larger allocation happened to hold.
func (f *File) ReadAll() []byte { return slices.Clip(append([]byte(nil), f.data...)) }

// ReadAt returns a copy of up to n bytes of the file from offset off: fewer
// at the end of the file, none past it. Like ReadAll's, the copy has no
// capacity past what it holds.
func (f *File) ReadAt(off, n int) []byte {
	if off < 0 || n < 0 || off >= len(f.data) {
		return nil
	}
	return slices.Clip(append([]byte(nil), f.data[off:min(off+n, len(f.data))]...))
}

// Size is the file's length in bytes.
func (f *File) Size() int { return len(f.data) }

// Synced is how many of the file's first bytes are durable: a crash now
// would keep at least these. A suite reads it from outside (World.Disk) to
// see what a node's disk holds for sure at a given moment. It tells a node
// nothing a real one could not know: it is where the node's own last Sync
// (or Truncate) left the file, and after a crash it is the whole file.
func (f *File) Synced() int { return f.synced }

// Truncate cuts the file to n bytes, for example to drop a torn last record
// found at recovery. It is durable at once.
func (f *File) Truncate(n int) {
	if n < 0 || n > len(f.data) {
		misuse("Truncate(%d): file %s has %d bytes", n, f.name, len(f.data))
	}
	f.data = f.data[:n]
	if f.synced > n {
		f.synced = n
	}
	f.d.w.record(Event{Kind: EvDisk, Node: f.d.node.id, Text: fmt.Sprintf("truncate %s to %dB", f.name, n), Disk: f.op(DiskTruncate)})
}

// op is the record of a disk event of kind k on f, as f stands after it.
func (f *File) op(k DiskOpKind) *DiskOp {
	return &DiskOp{Op: k, File: f.name, Size: len(f.data), Durable: f.synced}
}

func (d *Disk) mustBeUp(what string) {
	if !d.node.up {
		misuse("%s: node %s is down", what, d.node.id)
	}
}

// crash keeps what was synced and a random prefix of the rest (during a
// CrashTearing, the prefix it asks for).
func (d *Disk) crash() {
	for _, name := range d.names {
		f := d.files[name]
		unsynced := len(f.data) - f.synced
		keep := 0
		switch {
		case unsynced > 0 && d.lose != nil:
			keep = unsynced - d.lose(unsynced)
		case unsynced > 0 && d.w.rng.Intn(2) == 0:
			keep = d.w.keepOfTear(unsynced)
		}
		f.data = f.data[:f.synced+keep]
		f.synced = len(f.data)
		if unsynced > 0 {
			d.node.losses = append(d.node.losses, Loss{At: d.w.now, File: name, Unsynced: unsynced, Kept: keep})
			d.w.record(Event{Kind: EvDisk, Node: d.node.id, Text: fmt.Sprintf("crash: %s lost %dB of %dB unsynced", name, unsynced-keep, unsynced), Disk: f.op(DiskCrash)})
		}
	}
}
