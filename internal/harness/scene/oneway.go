package scene

import (
	"fmt"
	"time"

	"onehistory/internal/harness/sim"
)

// SlowOneWay slows the link from Sender to Receiver, and not the way back,
// to Link from From for For, then puts back Normal on that way (the world's
// default link if zero). It composes with the other faults on the same link
// as SlowLink does. A message keeps the delay it was sent with, so an answer
// sent during the spell may land after a whole exchange that began later has
// come and gone: the way a call's answer is overtaken.
type SlowOneWay struct {
	Sender, Receiver sim.NodeID
	Link             sim.Link
	From, For        time.Duration
	Normal           sim.Link
}

func (f SlowOneWay) desc() string {
	return fmt.Sprintf("slow link %s → %s only (%s)", f.Sender, f.Receiver, describeLink(f.Link))
}

func (f SlowOneWay) String() string {
	return f.desc() + " from " + millis(f.From) + " for " + millis(f.For)
}

func (f SlowOneWay) inject(s *Scene) {
	s.slow(sim.Fault{Kind: sim.FaultSlow, Desc: f.desc(), Nodes: []sim.NodeID{f.Sender, f.Receiver}, Start: f.From, End: f.From + f.For},
		f.Link, f.Normal, [2]sim.NodeID{f.Sender, f.Receiver})
}
