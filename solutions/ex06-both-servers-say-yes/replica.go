package ex06

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// You do not need to change this file. It is what chapter 4 built: a change
// reaches every other server before anyone is told yes, each server applies
// the changes it receives at the positions their sender gave them, and a
// Latest read first catches up with how far the other servers have got.
// Your work is in server.go: who gives the changes their positions.

// Replicate carries a change one server accepted to another server. Its
// Object.ResourceVersion is the position the sender gave it; the reply is
// the receiver's position (an int64) once it holds that position.
type Replicate struct {
	Event kube.Event
}

// String is "Replicate web=5 at rv 2", for the timeline.
func (r Replicate) String() string {
	return fmt.Sprintf("Replicate %s at rv %d", short(r.Event), r.Event.Object.ResourceVersion)
}

// ReadIndex asks a server how far its history goes; the reply is its
// position, an int64.
type ReadIndex struct{}

// peerTimeout bounds one call to another server. It is longer than a round
// trip over the chapter's slowest link (400ms each way), so a call that
// times out was most likely lost, and is worth sending again.
const peerTimeout = time.Second

// replicate sends one change to every other server, each until it answers
// that it holds the change's position. A lost message, or a lost answer,
// only costs another try: receive takes a repeat in its stride.
func (s *server) replicate(p *sim.Proc, ev kube.Event) {
	for _, peer := range s.servers {
		if peer != s.self {
			ask(p, peer, Replicate{Event: ev})
		}
	}
}

// ask calls peer with msg until it answers, and returns the answer. A call
// that times out is sent again at once (the message or its answer was lost,
// or is late); a peer that refuses (it is down) is asked again after a
// pause. Only messages that may be repeated safely are sent this way.
func ask(p *sim.Proc, peer sim.NodeID, msg any) any {
	for {
		reply, err := p.Call(peer, msg, peerTimeout)
		if err == nil {
			return reply
		}
		if !errors.Is(err, sim.ErrTimeout) {
			p.Sleep(peerTimeout)
		}
	}
}

// receive applies a change from another server at the position its sender
// gave it, and returns this server's position once it has got that far.
// Changes travel over links that reorder and repeat messages: one that
// arrives before the change in front of it waits for it, and one whose
// position this server already holds is not applied again. (Whatever this
// server holds at that position stays: receive trusts that a position means
// the same change on every server.)
func (s *server) receive(p *sim.Proc, ev kube.Event) int64 {
	pos := ev.Object.ResourceVersion
	for s.h.position() < pos-1 {
		s.h.changed.Wait(p)
	}
	if s.h.position() == pos-1 {
		s.h.append(ev) // keeps its position: it is exactly the next one
		p.Logf("applied %s as rv %d", short(ev), pos)
	}
	return s.h.position()
}

// catchUp makes a kube.Latest read consistent: it asks every other server
// how far its history goes (its read index) and waits until this server's
// copy has got that far. A kube.Any read skips this: it may be stale by
// definition.
func (s *server) catchUp(p *sim.Proc, opts kube.ReadOptions) {
	if opts.ResourceVersion == kube.Any {
		return
	}
	for _, peer := range s.servers {
		if peer == s.self {
			continue
		}
		index := ask(p, peer, ReadIndex{}).(int64)
		for s.h.position() < index {
			s.h.changed.Wait(p)
		}
	}
}

// short tells a change in a few words, for the timeline: "web=5",
// "delete web".
func short(ev kube.Event) string {
	if ev.Type == kube.Deleted {
		return "delete " + ev.Object.Name
	}
	return fmt.Sprintf("%s=%v", ev.Object.Name, ev.Object.Value())
}
