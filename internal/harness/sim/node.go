package sim

import (
	"fmt"
	"time"
)

// Handler serves one request that arrived at a node. It runs as a process of
// its own on the receiving node, so it may block (call other nodes, sleep,
// wait). What it returns travels back to the caller as the reply.
type Handler func(p *Proc, from NodeID, req any) (any, error)

type node struct {
	id      NodeID
	boot    func(p *Proc)
	up      bool
	epoch   int // incremented at every crash
	skew    time.Duration
	handler Handler
	disk    *Disk
	procs   []*Proc
	losses  []Loss // what each crash did to the disk's unsynced bytes: the world's to tell

	status        any    // what the node last said about itself (Proc.SetStatus); nil after a crash
	statusVersion uint64 // incremented at every SetStatus and crash

	paused   bool     // frozen by World.Pause: nothing of the node runs
	deferred []action // what would have run while paused, in order: run at Resume

	rate      float64       // the clock's rate (SetClockRate); 0: never set, the true rate
	rateFrom  time.Duration // the virtual time the rate was set
	driftBase time.Duration // how far rates had moved the clock by rateFrom
}

// AddNode adds a node that runs boot as its first process, "<id>/main", when
// the run starts and again after every Restart. Boot typically calls
// p.Serve(handler) and starts background processes with p.Go.
func (w *World) AddNode(id NodeID, boot func(p *Proc)) {
	if id == "" {
		misuse("AddNode: a node needs a name")
	}
	if _, dup := w.byID[id]; dup {
		misuse("AddNode(%q): a node with that name already exists", id)
	}
	if boot == nil {
		boot = func(*Proc) {}
	}
	n := &node{id: id, boot: boot, up: true}
	n.disk = &Disk{w: w, node: n, files: map[string]*File{}}
	w.nodes = append(w.nodes, n)
	w.byID[id] = n
	w.spawn(n, "main", boot)
}

// Nodes lists the nodes in the order they were added.
func (w *World) Nodes() []NodeID {
	ids := make([]NodeID, len(w.nodes))
	for i, n := range w.nodes {
		ids[i] = n.id
	}
	return ids
}

func (w *World) node(id NodeID, what string) *node {
	n, ok := w.byID[id]
	if !ok {
		misuse("%s: unknown node %q (nodes: %v)", what, id, w.Nodes())
	}
	return n
}

// Up reports whether the node is running (not crashed).
func (w *World) Up(id NodeID) bool { return w.node(id, "Up").up }

// Go starts a process on a running node from outside any process.
func (w *World) Go(id NodeID, name string, f func(p *Proc)) {
	n := w.node(id, "Go")
	if !n.up {
		misuse("Go(%q, %q): the node is down", id, name)
	}
	w.spawn(n, name, f)
}

// Serve makes the process's node answer requests with h, until it crashes.
// A restarted node serves nothing until its boot calls Serve again.
func (p *Proc) Serve(h Handler) {
	p.mustBeCurrent()
	p.node.handler = h
}

// SetSkew sets how far the node's Clock runs ahead of (or, negative, behind)
// the true virtual time.
func (w *World) SetSkew(id NodeID, skew time.Duration) {
	w.node(id, "SetSkew").skew = skew
	w.record(Event{Kind: EvFault, Node: id, Text: fmt.Sprintf("clock skew %+.1fms", float64(skew)/float64(time.Millisecond))})
}

// Crash stops a node at once: all its processes end, its memory (everything
// its processes held) is gone, requests to it are refused, and its disk
// keeps only what was synced (the first unsynced bytes may survive, torn).
// Crashing a crashed node does nothing.
func (w *World) Crash(id NodeID) {
	n := w.node(id, "Crash")
	if !n.up {
		return
	}
	n.up = false
	n.epoch++
	w.unpause(n) // a crash ends a pause: what waited for the node is lost with it
	n.handler = nil
	n.status = nil
	n.statusVersion++
	n.disk.crash()
	w.record(Event{Kind: EvCrash, Node: id, Text: "crash"})
	w.faultStart(Fault{Kind: FaultCrash, Desc: "crash " + string(id), Nodes: []NodeID{id}})
	self := false
	for _, p := range append([]*Proc(nil), n.procs...) {
		p.killed = true
		switch {
		case p == w.current:
			self = true
		case p.state == blocked || p.state == created:
			w.schedule(w.now, func() {
				if p.state != done {
					w.resume(p, wakeMsg{})
				}
			})
		}
	}
	if self {
		panic(crashSignal{}) // the process crashed its own node: it ends here
	}
}

// Restart boots a crashed node again: its disk is as the crash left it, its
// memory is empty, and its boot function runs as a new "<id>/main".
func (w *World) Restart(id NodeID) {
	n := w.node(id, "Restart")
	if n.up {
		misuse("Restart(%q): the node is running; crash it first", id)
	}
	n.up = true
	w.record(Event{Kind: EvRestart, Node: id, Text: "restart"})
	w.faultEnd(FaultCrash, id)
	w.spawn(n, "main", n.boot)
}

// SetStatus says what this node is, now, for a monitor that reads it after
// every step (World.Status): a server's term, role, log and commit, say. It
// is the node's word about itself, kept in its memory: a crash forgets it.
// The world keeps v as given and copies nothing: call SetStatus again after
// every change, with a value the node will not change afterwards (a fresh
// copy), and the monitor sees every change at the step that made it.
func (p *Proc) SetStatus(v any) {
	p.mustBeCurrent()
	n := p.node
	n.status = v
	n.statusVersion++
}

// Status is what node id last said about itself with Proc.SetStatus (nil if
// nothing since it last booted), and a version that changes whenever that
// does, at every SetStatus and every crash: a monitor compares versions to
// look only at the nodes that changed since the step before.
func (w *World) Status(id NodeID) (v any, version uint64) {
	n := w.node(id, "Status")
	return n.status, n.statusVersion
}
