package sim

import (
	"fmt"
	"strconv"
	"time"
)

// Pause freezes a running node: its processes stop where they are, keeping
// their memory (a long garbage collection, a stopped or migrating virtual
// machine). While it lasts nothing of the node runs: messages to it queue and
// are handled after Resume, and its timers and sleeps that come due fire
// late, at Resume, all in an order drawn from the seed. The node does not
// know it was paused, except by reading its clock. Called by harness code
// running in a process of the node itself (a client's callback), Pause
// freezes that process right there, between one statement and the next: the
// pause that falls between a decision and the write it leads to. It is
// recorded as a fault of kind FaultPause until Resume. Pausing a paused or
// crashed node does nothing; a crash ends a pause.
func (w *World) Pause(id NodeID) {
	n := w.node(id, "Pause")
	if !n.up || n.paused {
		return
	}
	n.paused = true
	w.record(Event{Kind: EvFault, Node: id, Text: "pause"})
	w.faultStart(Fault{Kind: FaultPause, Desc: "pause " + string(id), Nodes: []NodeID{id}})
	if p := w.current; p != nil && p.node == n {
		k := p.waker()
		n.hold(action{p: p, wait: k.seq})
		p.block("paused", false)
	}
}

// Resume lets a paused node run again from where it stopped: what came due
// while it was paused (arrived messages, timers, sleeps) runs now. Resuming a
// node that is not paused does nothing.
func (w *World) Resume(id NodeID) {
	n := w.node(id, "Resume")
	if !n.paused {
		return
	}
	due := n.deferred
	w.unpause(n)
	w.record(Event{Kind: EvFault, Node: id, Text: "resume"})
	for _, a := range due {
		w.scheduleAction(w.now, a)
	}
}

// Paused reports whether the node is paused (World.Pause).
func (w *World) Paused(id NodeID) bool { return w.node(id, "Paused").paused }

// unpause ends n's pause, if any, dropping what waited for it.
func (w *World) unpause(n *node) {
	if !n.paused {
		return
	}
	n.paused, n.deferred = false, nil
	w.faultEnd(FaultPause, n.id)
}

// hold keeps a, which came due while n is paused, for n's Resume. Its
// callers ask n.paused first, so that a node that is not paused costs them
// no action, and no closure.
func (n *node) hold(a action) { n.deferred = append(n.deferred, a) }

// SetClockRate makes node id's clock run at rate r from now on: r seconds of
// its Clock for each second of virtual time (1.5: fast, 0.5: slow, 1: true
// again). Its clock keeps what it reads now (no jump), and SetSkew still adds
// its offset. The node's own waits are measured on its own clock: a Sleep,
// a Call's timeout, a GetTimeout or WaitTimeout of d started at rate r lasts
// d/r of virtual time (a node at rate 2 sleeping 1s wakes after 0.5s). Disk
// syncs and the network do not change. It is recorded as a fault of kind
// FaultClockRate while the rate is not 1.
func (w *World) SetClockRate(id NodeID, r float64) {
	if !(r > 0) || r > 1000 {
		misuse("SetClockRate(%q, %g): a clock's rate is a positive factor, at most 1000", id, r)
	}
	n := w.node(id, "SetClockRate")
	n.driftBase = n.drift(w.now)
	n.rateFrom = w.now
	n.rate = r
	w.faultEnd(FaultClockRate, id)
	desc := fmt.Sprintf("clock of %s running at %s×", id, strconv.FormatFloat(r, 'g', -1, 64))
	if r != 1 {
		w.faultStart(Fault{Kind: FaultClockRate, Desc: desc, Nodes: []NodeID{id}})
	}
	w.record(Event{Kind: EvFault, Node: id, Text: "clock rate " + strconv.FormatFloat(r, 'g', -1, 64) + "×"})
}

// drift is how far the clock's rates have moved n's clock by virtual time
// now, on top of its skew.
func (n *node) drift(now time.Duration) time.Duration {
	if n.rate == 0 {
		return 0
	}
	return n.driftBase + time.Duration(float64(now-n.rateFrom)*(n.rate-1))
}

// local is how much virtual time a wait of d on the node's own clock lasts.
func (n *node) local(d time.Duration) time.Duration {
	if n.rate == 0 || n.rate == 1 {
		return d
	}
	return time.Duration(float64(d) / n.rate)
}
