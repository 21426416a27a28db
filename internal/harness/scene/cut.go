package scene

import (
	"fmt"
	"time"

	"onehistory/internal/harness/sim"
)

// Cut cuts the link between A and B, both ways, from From for For: every
// message either sends to the other in that time is lost, while both still
// reach every other node. It is the fault a partition cannot describe when
// the cut is not a split of the network into groups: an API server that
// still hears its clients and the other servers, but not its store. A
// message already on its way when the cut begins still arrives. After For,
// the link is the scene's default again.
type Cut struct {
	A, B      sim.NodeID
	From, For time.Duration
}

func (f Cut) String() string {
	return fmt.Sprintf("link %s ↔ %s cut from %s for %s", f.A, f.B, millis(f.From), millis(f.For))
}

// Until is when the link is restored: From + For.
func (f Cut) Until() time.Duration { return f.From + f.For }

// During reports whether t falls inside the cut: From <= t < From + For.
func (f Cut) During(t time.Duration) bool { return t >= f.From && t < f.Until() }

func (f Cut) inject(s *Scene) {
	w := s.W
	w.At(f.From, func() {
		w.SetLinks(f.A, f.B, sim.Link{Drop: 1})
		w.Fault(fmt.Sprintf("link %s ↔ %s cut", f.A, f.B), f.From, f.Until())
	})
	w.At(f.Until(), func() { w.ResetLinks(f.A, f.B) })
}
