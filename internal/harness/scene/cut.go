package scene

import (
	"fmt"
	"time"

	"onehistory/internal/harness/sim"
)

// Cut breaks the link between A and B, both ways, from From for For, then
// puts back Normal (the world's default link if zero): every message sent
// between them meanwhile is lost, while both still reach every other node.
// A Partition cannot say that, since it splits the whole network into
// groups. Messages already on their way when the cut begins still arrive.
type Cut struct {
	A, B      sim.NodeID
	From, For time.Duration
	Normal    sim.Link
}

func (f Cut) String() string {
	return fmt.Sprintf("link %s ↔ %s cut from %s for %s", f.A, f.B, ms(f.From), ms(f.For))
}

func (f Cut) inject(s *Scene) {
	w := s.W
	w.At(f.From, func() {
		w.SetLinks(f.A, f.B, sim.Link{Drop: 1})
		w.Fault(fmt.Sprintf("link %s ↔ %s cut", f.A, f.B), f.From, f.From+f.For)
	})
	w.At(f.From+f.For, func() {
		if f.Normal != (sim.Link{}) {
			w.SetLinks(f.A, f.B, f.Normal)
		} else {
			w.ResetLinks(f.A, f.B)
		}
	})
}
