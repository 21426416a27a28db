package ex04

import (
	"fmt"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// This file keeps a server's copy of the history in order. You need not
// change it.

// Replicate carries one change, decided and numbered by the primary, to the
// other server. Its reply is an Applied.
type Replicate struct{ Event kube.Event }

// Applied answers a Replicate: the receiving server has applied every change
// up to and including ResourceVersion.
type Applied struct{ ResourceVersion int64 }

// apply adds a change to this server's copy once every change before it is
// there. Changes can arrive out of order (two Replicates overtake each other
// on a link whose delay varies), and twice (a retry); a change that arrives
// early waits in s.early, one already applied is ignored. Every change
// applied wakes the processes waiting on s.applied.
func (s *Server) apply(p *sim.Proc, ev kube.Event) {
	rv := ev.Object.ResourceVersion
	if rv <= s.store.ResourceVersion() {
		return // applied already: a retry or a duplicate
	}
	s.early[rv] = ev
	for {
		next, ok := s.early[s.store.ResourceVersion()+1]
		if !ok {
			return
		}
		delete(s.early, next.Object.ResourceVersion)
		if err := s.store.Apply(p, next); err != nil {
			panic(fmt.Sprintf("ex04: %s: %v", s.self, err)) // numbered next: cannot happen
		}
		p.Logf("applied rv %d: %s", next.Object.ResourceVersion, short(next))
		s.applied.Broadcast()
	}
}

// receive handles a Replicate from the primary: it applies the change and
// answers once this server's copy holds it (and everything before it).
func (s *Server) receive(p *sim.Proc, ev kube.Event) (Applied, error) {
	s.apply(p, ev)
	for s.store.ResourceVersion() < ev.Object.ResourceVersion {
		s.applied.Wait(p)
	}
	return Applied{ResourceVersion: s.store.ResourceVersion()}, nil
}

// short tells a change in a few words, for the timeline: "web=5",
// "delete web".
func short(ev kube.Event) string {
	if ev.Type == kube.Deleted {
		return "delete " + ev.Object.Name
	}
	return fmt.Sprintf("%s=%v", ev.Object.Name, ev.Object.Value())
}
