package sim

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"
)

// EventKind says what kind of thing happened.
type EventKind int

// The kinds of events a trace records.
const (
	EvSend      EventKind = iota // a request left Node for Peer
	EvRecv                       // a request from Peer arrived at Node and its handler started
	EvReply                      // a reply left Node for Peer
	EvRecvReply                  // a reply from Peer arrived at Node
	EvDrop                       // a message from Node to Peer was lost (Text says why)
	EvTimeout                    // a call from Node to Peer gave up waiting
	EvCrash                      // Node crashed
	EvRestart                    // Node restarted
	EvFault                      // a network or clock fault began or ended (Text)
	EvDisk                       // Node's disk was written, synced or truncated (Text)
	EvNote                       // a process wrote a note (Text), e.g. a client's operation
)

var kindNames = [...]string{"send", "recv", "reply", "recv-reply", "drop", "timeout", "crash", "restart", "fault", "disk", "note"}

// String is the kind's short name: "send", "crash".
func (k EventKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Event is one recorded happening, at a virtual time, on a node.
type Event struct {
	At   time.Duration
	Kind EventKind
	Node NodeID  // where it happened (empty for world-wide faults)
	Peer NodeID  // the other end of a message
	Proc string  // the process, when one was involved
	Msg  any     // the message, for network events
	Err  error   // the error a reply carried
	Text string  // a note, or a description of a fault or disk event
	Disk *DiskOp // what a disk event did, for EvDisk
}

// DiskOp is what one disk event did to one file, as values a suite can read
// without parsing the event's Text: the kind of operation, the file, and the
// file's size and durable bytes once it was done.
type DiskOp struct {
	Op      DiskOpKind
	File    string
	Size    int // bytes in the file after the event
	Durable int // bytes a crash would keep after the event
}

// DiskOpKind says which operation a disk event was.
type DiskOpKind int

// The operations a disk event records.
const (
	DiskAppend   DiskOpKind = iota + 1 // bytes appended, not yet durable
	DiskSync                           // everything appended so far made durable
	DiskTruncate                       // the file cut short, durably
	DiskCrash                          // a crash took the unsynced bytes it did not keep
)

// Summary is the event in a few words, without time or node: "→ server-2
// Replicate{Key:web Value:5}".
func (e Event) Summary() string {
	switch e.Kind {
	case EvSend:
		return "→ " + string(e.Peer) + " " + e.Message()
	case EvRecv:
		return "← " + string(e.Peer) + " " + e.Message()
	case EvReply:
		return "⇢ " + string(e.Peer) + " " + e.Message()
	case EvRecvReply:
		return "⇠ " + string(e.Peer) + " " + e.Message()
	case EvDrop:
		return "✗ " + string(e.Peer) + " " + formatMsg(e.Msg) + " (" + e.Text + ")"
	case EvTimeout:
		return "⌁ " + string(e.Peer) + " " + formatMsg(e.Msg) + " timed out"
	case EvCrash:
		return "✖ CRASH"
	case EvRestart:
		return "↻ RESTART"
	}
	return e.Text
}

// Message is the message a network event carried, as the timeline prints
// it: "Replicate{Key:web Value:5}", or for a reply its answer or error.
func (e Event) Message() string {
	if e.Kind == EvReply || e.Kind == EvRecvReply {
		return formatReply(e.Msg, e.Err)
	}
	return formatMsg(e.Msg)
}

// String is the event on one line: "  412.0ms server-1  → server-2 Replicate{…}".
func (e Event) String() string {
	node := string(e.Node)
	if node == "" {
		node = "world"
	}
	return fmt.Sprintf("%9s %-12s %s", FormatTime(e.At), node, e.Summary())
}

func formatMsg(m any) string {
	if m == nil {
		return "nil"
	}
	if s, ok := m.(fmt.Stringer); ok {
		return s.String()
	}
	s := fmt.Sprintf("%+v", m)
	s = strings.TrimPrefix(s, "&")
	if name := TypeName(m); !strings.HasPrefix(s, name) && strings.HasPrefix(s, "{") {
		s = name + s
	}
	return s
}

func formatReply(m any, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return formatMsg(m)
}

// Trace is the ordered record of a run's events. The same seed gives the
// same trace, byte for byte, as long as the messages are plain values (a
// pointer inside a message would print as an address).
type Trace struct {
	chunks [][]Event // chunks of traceChunk events: appending never copies old events
	n      int
}

// traceChunk is the events a chunk holds: 256 of them fill 30 KB, under
// the 32 KB past which the runtime allocates from the heap itself, locked
// and cleared anew, rather than from the processor's own cache. A suite
// builds thousands of worlds of a few hundred events each.
const traceChunk = 256

func (t *Trace) add(e Event) {
	if len(t.chunks) == 0 || len(t.chunks[len(t.chunks)-1]) == traceChunk {
		t.chunks = append(t.chunks, make([]Event, 0, traceChunk))
	}
	last := len(t.chunks) - 1
	t.chunks[last] = append(t.chunks[last], e)
	t.n++
}

// Len is the number of events recorded.
func (t *Trace) Len() int { return t.n }

// Events returns every event in order (a copy).
func (t *Trace) Events() []Event {
	out := make([]Event, 0, t.n)
	for _, c := range t.chunks {
		out = append(out, c...)
	}
	return out
}

// Since returns the events recorded from the i-th on (counting from 0), a
// copy; none when i is Len or more. A hook run after every step (OnStep)
// reads what happened in that step with it, at the cost of what is new.
func (t *Trace) Since(i int) []Event { return t.AppendSince(nil, i) }

// AppendSince is Since appended to dst: a hook that reads the trace after
// every step hands back the same buffer each time, emptied (dst[:0]), and
// allocates nothing once it is large enough.
func (t *Trace) AppendSince(dst []Event, i int) []Event {
	if i >= t.n {
		return dst
	}
	i = max(i, 0)
	for _, c := range t.chunks {
		if i >= len(c) {
			i -= len(c)
			continue
		}
		dst = append(dst, c[i:]...)
		i = 0
	}
	return dst
}

// All yields every event in order, without copying the trace: for a judge
// that reads each event once.
func (t *Trace) All() iter.Seq[Event] {
	return func(yield func(Event) bool) {
		for _, c := range t.chunks {
			for _, e := range c {
				if !yield(e) {
					return
				}
			}
		}
	}
}

// String is the whole trace, one event a line.
func (t *Trace) String() string {
	var b strings.Builder
	for _, c := range t.chunks {
		for _, e := range c {
			b.WriteString(e.String())
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (w *World) record(e Event) {
	e.At = w.now
	if e.Proc == "" && w.current != nil && w.current.node.id == e.Node {
		e.Proc = w.current.name
	}
	w.trace.add(e)
}

func (w *World) faultStart(f Fault) {
	f.Start, f.Open = w.now, true
	w.faults = append(w.faults, f)
}

// faultEnd ends the open faults of kind that involve node (any node, if
// node is empty).
func (w *World) faultEnd(kind FaultKind, node NodeID) {
	for i := range w.faults {
		f := &w.faults[i]
		if f.Open && f.Kind == kind && (node == "" || slices.Contains(f.Nodes, node)) {
			f.End, f.Open = w.now, false
		}
	}
}
