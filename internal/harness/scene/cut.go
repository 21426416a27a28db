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
// message already on its way when the cut begins still arrives. The cut
// holds whatever else happens to the link meanwhile: a SlowLink or
// SlowOneWay spell that begins or ends during it leaves the link cut, and takes over when the cut
// ends if it is still in force. After For, with no other fault in force on
// the link, it is the scene's default again.
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
	s.cast(&linkSpell{cut: true}, sim.Fault{Kind: sim.FaultCut, Desc: fmt.Sprintf("link %s ↔ %s cut", f.A, f.B), Nodes: []sim.NodeID{f.A, f.B}, Start: f.From, End: f.Until()},
		bothWays(f.A, f.B)...)
}

// CutOneWay cuts the link from Sender to Receiver, and not the way back,
// from From for For: everything Sender sends Receiver in that time is lost,
// while Receiver's messages still reach Sender. It is the half-failed switch
// of a partial partition: Receiver hears nothing from Sender and may decide
// Sender is gone, while Sender still hears Receiver, and both still reach
// every other node. It composes with the other faults on that way of the
// link as Cut does, and is recorded as a fault of kind sim.FaultCutOneWay.
type CutOneWay struct {
	Sender, Receiver sim.NodeID
	From, For        time.Duration
}

func (f CutOneWay) desc() string {
	return fmt.Sprintf("link %s → %s cut one way", f.Sender, f.Receiver)
}

func (f CutOneWay) String() string {
	return fmt.Sprintf("%s from %s for %s", f.desc(), millis(f.From), millis(f.For))
}

// Until is when the link is restored: From + For.
func (f CutOneWay) Until() time.Duration { return f.From + f.For }

func (f CutOneWay) inject(s *Scene) {
	s.cast(&linkSpell{cut: true}, sim.Fault{Kind: sim.FaultCutOneWay, Desc: f.desc(), Nodes: []sim.NodeID{f.Sender, f.Receiver}, Start: f.From, End: f.Until()},
		[2]sim.NodeID{f.Sender, f.Receiver})
}
