package sim

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Link describes the network from one node to another: each message takes a
// delay drawn uniformly from [Min, Max] (so messages can overtake each other),
// is lost with probability Drop, and arrives twice with probability Duplicate.
//
// A link may also have a long tail: with probability Tail a message falls in
// it and takes a delay between Max and TailMax instead, drawn log-uniformly
// (a delay between 1s and 2s as likely as one between 2s and 4s), so that
// most messages are quick, a few are late by seconds and a rare one by tens
// of seconds. On such a link a message that has not arrived yet may still
// arrive: a silent sender is slow or gone, and only how long silences
// usually last tells which is likelier. A link with no tail (Tail 0) draws
// exactly what it drew before tails existed.
type Link struct {
	Min, Max  time.Duration
	Drop      float64
	Duplicate float64
	Tail      float64       // the probability that a message falls in the tail
	TailMax   time.Duration // the longest delay in the tail; at least Max when Tail > 0
}

// check panics with a MisuseError naming what when l is not a link.
func (l Link) check(what string) {
	checkDuration(what, l.Min)
	checkDuration(what, l.Max)
	if l.Max < l.Min {
		misuse("%s: Max %v is below Min %v", what, l.Max, l.Min)
	}
	if l.Drop < 0 || l.Drop > 1 || l.Duplicate < 0 || l.Duplicate > 1 || l.Tail < 0 || l.Tail > 1 {
		misuse("%s: Drop, Duplicate and Tail are probabilities in [0, 1]", what)
	}
	if l.Tail > 0 && l.TailMax < l.Max {
		misuse("%s: a tail of %g ends at TailMax %v, below Max %v", what, l.Tail, l.TailMax, l.Max)
	}
}

// delay draws one message's delay on the link from r: uniform in [Min, Max],
// or, with probability Tail, log-uniform in [Max, TailMax]. A link without a
// tail makes no draw for it.
func (l Link) delay(r *rand.Rand) time.Duration {
	if l.Tail > 0 && r.Float64() < l.Tail {
		lo := max(l.Max, time.Microsecond)
		if l.TailMax <= lo {
			return l.TailMax
		}
		return time.Duration(float64(lo) * math.Pow(float64(l.TailMax)/float64(lo), r.Float64()))
	}
	d := l.Min
	if l.Max > l.Min {
		d += time.Duration(r.Int63n(int64(l.Max-l.Min) + 1))
	}
	return d
}

// SetLink sets the link from one node to another (one direction).
func (w *World) SetLink(from, to NodeID, l Link) {
	w.node(from, "SetLink")
	w.node(to, "SetLink")
	l.check(fmt.Sprintf("SetLink(%s→%s)", from, to))
	w.links[[2]NodeID{from, to}] = l
}

// SetLinks sets the link in both directions between a and b.
func (w *World) SetLinks(a, b NodeID, l Link) {
	w.SetLink(a, b, l)
	w.SetLink(b, a, l)
}

// ResetLink removes the link of its own from from to to: messages that way
// take the default link again.
func (w *World) ResetLink(from, to NodeID) {
	w.node(from, "ResetLink")
	w.node(to, "ResetLink")
	delete(w.links, [2]NodeID{from, to})
}

// ResetLinks removes the links of their own between a and b, both ways:
// messages between them take the default link again.
func (w *World) ResetLinks(a, b NodeID) {
	w.ResetLink(a, b)
	w.ResetLink(b, a)
}

// SetDefaultLink sets the link used between nodes that have none of their own.
func (w *World) SetDefaultLink(l Link) {
	l.check("SetDefaultLink")
	w.defaultLink = l
}

func (w *World) link(from, to NodeID) Link {
	if l, ok := w.links[[2]NodeID{from, to}]; ok {
		return l
	}
	return w.defaultLink
}

// Partition splits the network into the given groups: messages between
// nodes of different groups are lost (including those already in flight).
// Nodes named in no group form one more group together. Partition replaces
// any earlier partition.
func (w *World) Partition(groups ...[]NodeID) {
	w.groups = map[NodeID]int{}
	var names []string
	for i, g := range groups {
		var ids []string
		for _, id := range g {
			w.node(id, "Partition")
			if _, twice := w.groups[id]; twice {
				misuse("Partition: node %q is in two groups", id)
			}
			w.groups[id] = i + 1
			ids = append(ids, string(id))
		}
		names = append(names, strings.Join(ids, ","))
	}
	desc := "partition " + strings.Join(names, " | ")
	w.record(Event{Kind: EvFault, Text: desc})
	w.faultEnd(FaultPartition, "")
	w.faultStart(Fault{Kind: FaultPartition, Desc: desc, Nodes: slices.Concat(groups...)})
}

// Isolate cuts one node off from all others.
func (w *World) Isolate(id NodeID) { w.Partition([]NodeID{id}) }

// Heal ends any partition.
func (w *World) Heal() {
	if w.groups == nil {
		return
	}
	w.groups = nil
	w.record(Event{Kind: EvFault, Text: "heal"})
	w.faultEnd(FaultPartition, "")
}

// Connected reports whether messages can pass between a and b now.
func (w *World) Connected(a, b NodeID) bool {
	if w.groups == nil || a == b {
		return true
	}
	return w.groups[a] == w.groups[b]
}

// pending is a call waiting for its reply.
type pending struct {
	caller *Proc
	k      waker
}

// message is what travels on a link: a request (reply == false) or a reply.
type message struct {
	id      uint64 // call id; 0 for a one-way Send
	from    NodeID
	to      NodeID
	reply   bool
	payload any
	err     error
}

// Call sends req to node to and waits for the reply, at most timeout of
// virtual time. The request runs there as a new process of to's Handler. It
// returns the handler's reply and error, or ErrTimeout (no reply in time: the
// outcome is unknown), ErrNodeDown or ErrUnreachable (not handled).
func (p *Proc) Call(to NodeID, req any, timeout time.Duration) (any, error) {
	p.mustBeCurrent()
	checkDuration("Call", timeout)
	w := p.w
	w.node(to, "Call")
	w.callID++
	id := w.callID
	k := p.waker()
	w.calls[id] = &pending{caller: p, k: k}
	w.send(message{id: id, from: p.node.id, to: to, payload: req})
	k.wakeAt(w.now+p.node.local(timeout), wakeMsg{err: ErrTimeout})
	p.waitCall, p.waitReq = to, req // named only if a deadlock report asks (Proc.waiting)
	msg := p.block("", false)
	p.waitCall, p.waitReq = "", nil
	delete(w.calls, id)
	if msg.err == ErrTimeout {
		w.record(Event{Kind: EvTimeout, Node: p.node.id, Peer: to, Proc: p.name, Msg: req})
	}
	return msg.val, msg.err
}

// Send sends req to node to without waiting: the handler runs there, its
// reply is discarded. Nothing tells the sender whether it arrived.
func (p *Proc) Send(to NodeID, req any) {
	p.mustBeCurrent()
	p.w.node(to, "Send")
	p.w.send(message{from: p.node.id, to: to, payload: req})
}

// send puts a message on the link, subject to partition, loss, delay and
// duplication.
func (w *World) send(out message) {
	m := out.copied() // what the sender does next does not travel
	kind := EvSend
	if m.reply {
		kind = EvReply
	}
	w.record(Event{Kind: kind, Node: m.from, Peer: m.to, Msg: m.payload, Err: m.err})
	if !w.Connected(m.from, m.to) {
		w.record(Event{Kind: EvDrop, Node: m.from, Peer: m.to, Msg: m.payload, Text: "partitioned"})
		return
	}
	l := w.link(m.from, m.to)
	copies := 1
	if l.Duplicate > 0 && w.rng.Float64() < l.Duplicate {
		copies = 2
	}
	for i := 0; i < copies; i++ {
		if l.Drop > 0 && w.rng.Float64() < l.Drop {
			w.record(Event{Kind: EvDrop, Node: m.from, Peer: m.to, Msg: m.payload, Text: "lost"})
			continue
		}
		w.schedule(w.now+l.delay(w.rng), func() { w.deliver(m) })
	}
}

// deliver hands an arrived message to its destination.
func (w *World) deliver(m message) {
	if !w.Connected(m.from, m.to) {
		w.record(Event{Kind: EvDrop, Node: m.to, Peer: m.from, Msg: m.payload, Text: "partitioned in flight"})
		return
	}
	n := w.byID[m.to]
	if !m.reply && n.paused {
		n.hold(action{fn: func() { w.handle(n, m) }})
		return // the request waits for the node's Resume
	}
	if m.reply {
		c, ok := w.calls[m.id]
		if !ok || !c.k.pending() || !n.up {
			return // the caller gave up, already has a reply, or crashed
		}
		w.record(Event{Kind: EvRecvReply, Node: m.to, Peer: m.from, Msg: m.payload, Err: m.err})
		val, err := m.copy()
		c.k.wakeNow(wakeMsg{val: val, err: err})
		return
	}
	w.handle(n, m)
}

// handle serves a request that arrived at n.
func (w *World) handle(n *node, m message) {
	if !n.up || n.handler == nil {
		err := ErrNodeDown
		if n.up {
			err = ErrUnreachable
		}
		if m.id != 0 {
			w.send(message{id: m.id, from: m.to, to: m.from, reply: true, err: err})
		}
		return
	}
	w.record(Event{Kind: EvRecv, Node: m.to, Peer: m.from, Msg: m.payload})
	h := n.handler
	req, _ := m.copy()
	w.spawn(n, "handle#"+strconv.Itoa(w.next+1)+" "+TypeName(m.payload), func(p *Proc) {
		val, err := h(p, m.from, req)
		if m.id != 0 {
			w.send(message{id: m.id, from: m.to, to: m.from, reply: true, payload: val, err: err})
		}
	})
}

// copied is the message with a copy of its payload and error. Each
// delivery send schedules keeps the copied message itself, never assigned
// again, rather than a variable the closures would share on the heap.
func (m message) copied() message {
	m.payload, m.err = m.copy()
	return m
}

// copy is a copy of the message's payload and error that shares no memory
// with them (see copyMessage).
func (m message) copy() (any, error) {
	payload := copyMessage(m.payload, m.describe)
	err, _ := copyMessage(m.err, func() string { return m.describe() + " (its error)" }).(error)
	return payload, err
}

// describe names the message, for a misuse report.
func (m message) describe() string {
	kind := "message"
	if m.reply {
		kind = "reply"
	}
	return fmt.Sprintf("the %s %s from %s to %s", kind, TypeName(m.payload), m.from, m.to)
}

// TypeName is the short name of a message's type: "Replicate" for a
// Replicate struct, or for a *Replicate.
func TypeName(v any) string {
	if v == nil {
		return "nil"
	}
	t := reflect.TypeOf(v)
	if name, ok := typeNames.Load(t); ok {
		return name.(string)
	}
	name := typeNameOf(t)
	typeNames.Store(t, name)
	return name
}

// typeNames caches TypeName by type: every message sent and delivered is
// named (a process's wait, a handler's name), and reflect works a generic
// type's name out from its full string each time it is asked.
var typeNames sync.Map // reflect.Type → string

func typeNameOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "" {
		return t.String()
	}
	return t.Name()
}
