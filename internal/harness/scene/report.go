package scene

import (
	"slices"
	"time"

	"onehistory/internal/harness/sim"
)

// Lanes sets the timeline's columns, left to right. The default is every
// client added before the first server, then the servers, then the rest.
func (s *Scene) Lanes(ids ...sim.NodeID) { s.lanes = ids }

// Show sets which events the timeline keeps. The default keeps every note
// (each client request and its answer, and what the servers log), crashes,
// restarts and faults, and the messages the servers send each other.
func (s *Scene) Show(keep func(sim.Event) bool) { s.keep = keep }

// ShowMessages sets the timeline to keep what the default keeps but for the
// messages: every note, crash, restart and fault, never a disk event, and,
// of the messages (their sends, deliveries, replies and losses), the ones
// message says.
func (s *Scene) ShowMessages(message func(sim.Event) bool) { s.keep = showing(message) }

// showing is the filter of ShowMessages.
func showing(message func(sim.Event) bool) func(sim.Event) bool {
	return func(e sim.Event) bool {
		switch e.Kind {
		case sim.EvDisk:
			return false
		case sim.EvNote, sim.EvCrash, sim.EvRestart, sim.EvFault:
			return true
		}
		return message(e)
	}
}

// IsServer reports whether id is one of the scene's servers.
func (s *Scene) IsServer(id sim.NodeID) bool { return slices.Contains(s.Servers, id) }

// Timeline renders the run around virtual time at.
func (s *Scene) Timeline(at time.Duration) string {
	return s.W.Timeline(sim.TimelineOptions{Columns: s.columns(), Focus: at, MaxRows: 40, Filter: s.filter()})
}

// columns are the timeline's lanes, left to right (see Lanes).
func (s *Scene) columns() []sim.NodeID {
	cols := s.lanes
	if cols == nil {
		var clients, rest []sim.NodeID
		for _, id := range s.W.Nodes() {
			switch {
			case s.IsServer(id):
			case id == Auditor:
				rest = append(rest, id)
			default:
				clients = append(clients, id)
			}
		}
		cols = append(append(append(cols, clients...), s.Servers...), rest...)
	}
	return slices.Clone(cols)
}

// filter is which events the timeline keeps (see Show). The default holds
// a copy of the servers' names, not the scene: a picture drawn later keeps
// the filter, and need not keep the world.
func (s *Scene) filter() func(sim.Event) bool {
	if s.keep != nil {
		return s.keep
	}
	servers := slices.Clone(s.Servers)
	return showing(func(e sim.Event) bool {
		return slices.Contains(servers, e.Node) && slices.Contains(servers, e.Peer)
	})
}
