package ex14

import (
	"time"

	"onehistory/internal/harness/kube"
)

// grace is how long a node may be silent before it is convicted.
//
// TODO(ex14): one timeout for every node cannot be right. A node next to
// the store sends a heartbeat every ten seconds to the millisecond; one
// across a long-tailed link goes forty seconds without one now and then,
// and is alive. Learn each node's own rhythm from the heartbeats you see.
const grace = 40 * time.Second

// Detector decides, from the heartbeats the controller sees, which nodes
// are healthy, suspected or convicted. The controller calls it from one
// process at a time; it needs no lock.
type Detector struct {
	heartbeat map[string]time.Duration // each node's last heartbeat, as it wrote it
}

// NewDetector is a detector for nodes, none of which it has heard from.
func NewDetector(nodes []string) *Detector {
	return &Detector{heartbeat: map[string]time.Duration{}}
}

// Observe is told node as the controller saw it change, at now on the
// controller's own clock: a heartbeat of its kubelet, or the controller's
// own taint.
//
// TODO(ex14): the heartbeat's time is written on the node's clock, which
// may run a minute ahead or behind the controller's, or step back. What
// does the controller itself know about when it heard from the node?
func (d *Detector) Observe(node kube.Object, now time.Duration) {
	d.heartbeat[node.Name] = node.Status.Heartbeat
}

// Judge is the verdict on every node at now, on the controller's clock.
//
// TODO(ex14): suspicion is not conviction (taint first, evict only if the
// silence goes on), and when most nodes fall silent at once, the trouble
// is more likely the controller's own.
func (d *Detector) Judge(now time.Duration) map[string]Verdict {
	out := map[string]Verdict{}
	for name, hb := range d.heartbeat {
		if now-hb > grace {
			out[name] = Convict
		}
	}
	return out
}
