package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Fault is one fault the world injected, as a value from the scene that
// declared it to the checker that judges it and the picture that shows it:
// what kind of fault, which nodes it touched, and the virtual times it began
// and ended (End is the time of the query for a fault still going on; a
// fault of a moment, such as a clock's jump, ends where it starts).
type Fault struct {
	Kind       FaultKind
	Desc       string   // "crash server-1", "partition server-1 | server-2"
	Nodes      []NodeID // the nodes it touched: the crashed node, a link's two ends, every node a partition names
	Start, End time.Duration
	Open       bool // still going on
}

// FaultKind says what a Fault did, so that no checker reads descriptions.
type FaultKind int

const (
	// FaultOther is a fault recorded with World.Fault that is none of the
	// kinds below.
	FaultOther FaultKind = iota
	// FaultCrash is a node's crash, from World.Crash to World.Restart.
	FaultCrash
	// FaultPartition is a partition, from World.Partition to World.Heal
	// (or to the next Partition, which replaces it).
	FaultPartition
	// FaultSlow is a link slowed (one way or both) for a spell.
	FaultSlow
	// FaultCut is a link cut both ways while the rest of the network works.
	FaultCut
	// FaultSkew is a node's clock set off by a constant.
	FaultSkew
	// FaultSlowDisk is a node's disk syncing slower (or faster) than the
	// world's, from World.SetDiskSyncLatency to its reset.
	FaultSlowDisk
	// FaultCutOneWay is a link cut one way only: what one node sends the
	// other is lost, what comes back arrives (a half-failed switch).
	FaultCutOneWay
	// FaultPause is a node paused, from World.Pause to World.Resume: its
	// processes frozen with their memory kept (a long garbage collection, a
	// stopped virtual machine), which is not a crash.
	FaultPause
	// FaultClockRate is a node's clock running fast or slow, from
	// World.SetClockRate to the rate's reset to 1.
	FaultClockRate
)

var faultKinds = [...]string{"fault", "crash", "partition", "slow link", "cut link", "clock skew", "slow disk", "one-way cut", "pause", "clock rate"}

// String names the kind: "crash", "partition", "slow link".
func (k FaultKind) String() string {
	if int(k) < len(faultKinds) {
		return faultKinds[k]
	}
	return "fault"
}

// Shade is the shade a drawing gives the kind, one of six: "crash";
// "cut", a cut link or a partition; "slow", a slow link or a slow disk;
// "skew", a clock set off or running at its own rate; "pause", a node
// frozen; and "other". The failure's picture and
// porcupine's view of a history both colour a fault by it, so that the two
// never tell one fault as two kinds.
func (k FaultKind) Shade() string {
	switch k {
	case FaultCrash:
		return "crash"
	case FaultPartition, FaultCut, FaultCutOneWay:
		return "cut"
	case FaultSlow, FaultSlowDisk:
		return "slow"
	case FaultSkew, FaultClockRate:
		return "skew"
	case FaultPause:
		return "pause"
	}
	return "other"
}

// Last is the fault's last moment: End, or Start for a fault of a moment.
func (f Fault) Last() time.Duration {
	if f.End < f.Start {
		return f.Start
	}
	return f.End
}

// Touches reports whether the fault touched node id.
func (f Fault) Touches(id NodeID) bool { return slices.Contains(f.Nodes, id) }

// String is "partition server-1 | server-2 from 2000ms to 4000ms" or
// "crash server-1 at 3100ms".
func (f Fault) String() string {
	if f.Last() == f.Start {
		return fmt.Sprintf("%s at %s", f.Desc, FormatTime(f.Start))
	}
	return fmt.Sprintf("%s from %s to %s", f.Desc, FormatTime(f.Start), FormatTime(f.Last()))
}

// Faults lists the faults injected so far, in the order they began.
func (w *World) Faults() []Fault {
	out := slices.Clone(w.faults)
	for i := range out {
		out[i].Nodes = slices.Clone(out[i].Nodes)
		if out[i].Open {
			out[i].End = w.now
		}
	}
	return out
}

// Fault records a fault that the caller injected by other means (a slow
// link, a skewed clock), for the checkers and the timeline.
func (w *World) Fault(f Fault) {
	f.Nodes, f.Open = slices.Clone(f.Nodes), false
	w.faults = append(w.faults, f)
	w.record(Event{Kind: EvFault, Text: f.String()})
}

// FormatTime prints a virtual instant or span the one way the workbook
// prints them, in milliseconds to a tenth: "1234.5ms", "400ms".
func FormatTime(d time.Duration) string {
	s := strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + "ms"
}
