package ex14

import (
	"math"
	"time"

	"onehistory/internal/harness/kube"
)

// The detector's settings. A node is suspected once its silence passes
// its own bound: the mean gap between its heartbeats plus deviations
// standard deviations of it, and no less than beyondLongest times the
// longest gap it has shown. It is convicted once the silence passes the
// larger of that bound plus tolerance and twice the bound, unless most
// nodes are late together.
const (
	window        = 50                     // the gaps each node's bound is learned from
	minSamples    = 8                      // gaps needed before a node's bound is its own
	deviations    = 4                      // how far beyond its mean a node's silence must go to be suspected
	minStd        = 500 * time.Millisecond // the least deviation assumed, for a node as steady as a clock
	unlearned     = time.Minute            // the bound of a node not yet learned
	beyondLongest = 1.5                    // a bound is at least this many times the longest gap seen
	tolerance     = 18 * time.Second       // how much longer than suspicion conviction waits, at least
	disruption    = 0.7                    // the share of late nodes at which nobody is convicted
	overdue       = 1.5                    // a node is late once silent this many times its mean gap
)

// Detector decides, from the heartbeats the controller sees, which nodes
// are healthy, suspected or convicted. It judges by what it observed on its
// own clock (when it saw each heartbeat change), never by the time a node
// wrote into its heartbeat; each node by its own history of gaps. The
// controller calls it from one process at a time; it needs no lock.
type Detector struct {
	nodes     map[string]*history
	disrupted bool // a conviction was held back at the last Judge
}

// history is what the detector knows of one node.
type history struct {
	heartbeat time.Duration   // the node's last heartbeat, as written: compared for a change only
	seen      time.Duration   // when the detector saw it change, on its own clock
	heard     bool            // whether it has seen one
	gaps      []time.Duration // the last window gaps between changes it saw
}

// NewDetector is a detector for nodes, none of which it has heard from.
func NewDetector(nodes []string) *Detector {
	d := &Detector{nodes: map[string]*history{}}
	for _, n := range nodes {
		d.nodes[n] = &history{}
	}
	return d
}

// Observe is told node as the controller saw it change, at now on the
// controller's own clock. Any change of the heartbeat is a heartbeat, even
// one whose time is earlier than the last (a clock stepped back); a change
// that leaves the heartbeat as it was (the controller's own taint) is not.
func (d *Detector) Observe(node kube.Object, now time.Duration) {
	h := d.nodes[node.Name]
	if h == nil {
		h = &history{}
		d.nodes[node.Name] = h
	}
	if h.heard && node.Status.Heartbeat == h.heartbeat {
		return
	}
	if h.heard {
		h.gaps = append(h.gaps, now-h.seen)
		if len(h.gaps) > window {
			h.gaps = h.gaps[1:]
		}
	}
	h.heartbeat, h.seen, h.heard = node.Status.Heartbeat, now, true
}

// bound is how long h may be silent before it is suspected.
func (h *history) bound() time.Duration {
	if len(h.gaps) < minSamples {
		return unlearned
	}
	var sum, longest float64
	for _, g := range h.gaps {
		sum += float64(g)
		longest = max(longest, float64(g))
	}
	mean := sum / float64(len(h.gaps))
	var sq float64
	for _, g := range h.gaps {
		sq += (float64(g) - mean) * (float64(g) - mean)
	}
	std := max(math.Sqrt(sq/float64(len(h.gaps))), float64(minStd))
	return time.Duration(max(mean+deviations*std, beyondLongest*longest))
}

// Judge is the verdict on every node at now, on the controller's clock:
// suspect past its bound, convict past the larger of bound+tolerance and
// twice the bound; but no node is convicted while most nodes fell silent
// about when it did and are late, each by its own rhythm (the fault is
// likelier the controller's own). When that ends, every node's silence
// counts from then.
func (d *Detector) Judge(now time.Duration) map[string]Verdict {
	out, disrupted := d.verdicts(now)
	if d.disrupted && !disrupted {
		for _, h := range d.nodes {
			h.seen = max(h.seen, now)
		}
		out, disrupted = d.verdicts(now)
	}
	d.disrupted = disrupted
	return out
}

// verdicts is every node's verdict at now, and whether a conviction was
// held back because most nodes went silent with the convicted one.
func (d *Detector) verdicts(now time.Duration) (map[string]Verdict, bool) {
	out := map[string]Verdict{}
	held := false
	for name, h := range d.nodes {
		if !h.heard {
			continue
		}
		b, silent := h.bound(), now-h.seen
		switch {
		case silent > max(b+tolerance, 2*b):
			if d.lateWith(h, now) >= disruption*float64(len(d.nodes)) {
				out[name], held = Suspect, true
			} else {
				out[name] = Convict
			}
		case silent > b:
			out[name] = Suspect
		}
	}
	return out, held
}

// lateWith counts the nodes that fell silent together with h and are late
// at now: silent for longer than overdue times their mean gap, since about
// when h fell silent (no further from it than h's silence). A node that
// died long before h is not counted: it did not fall silent with it.
func (d *Detector) lateWith(h *history, now time.Duration) float64 {
	n := 0
	for _, o := range d.nodes {
		onset := o.seen - h.seen
		if o.heard && float64(now-o.seen) > overdue*o.mean() && max(onset, -onset) <= now-h.seen {
			n++
		}
	}
	return float64(n)
}

// mean is h's mean gap, or half the unlearned bound before it has one.
func (h *history) mean() float64 {
	if len(h.gaps) == 0 {
		return float64(unlearned / 2)
	}
	var sum float64
	for _, g := range h.gaps {
		sum += float64(g)
	}
	return sum / float64(len(h.gaps))
}
