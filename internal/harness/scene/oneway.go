package scene

import (
	"fmt"
	"time"

	"onehistory/internal/harness/sim"
)

// SlowOneWay slows the link from Sender to Receiver, and not the way back,
// to Link from From for For, then puts back Normal on that way (the scene's
// default latency if zero). A message keeps the delay it was sent with, so
// an answer sent during the spell may land after a whole exchange that
// began later has come and gone: the way a call's answer is overtaken.
type SlowOneWay struct {
	Sender, Receiver sim.NodeID
	Link             sim.Link
	From, For        time.Duration
	Normal           sim.Link
}

func (f SlowOneWay) String() string {
	return fmt.Sprintf("slow link %s → %s only (%s) from %s for %s", f.Sender, f.Receiver, describeLink(f.Link), millis(f.From), millis(f.For))
}

func (f SlowOneWay) inject(s *Scene) {
	w := s.W
	normal := f.Normal
	if normal == (sim.Link{}) {
		normal = s.latency
	}
	w.At(f.From, func() {
		w.SetLink(f.Sender, f.Receiver, f.Link)
		w.Fault(fmt.Sprintf("slow link %s → %s only (%s)", f.Sender, f.Receiver, describeLink(f.Link)), f.From, f.From+f.For)
	})
	w.At(f.From+f.For, func() { w.SetLink(f.Sender, f.Receiver, normal) })
}
