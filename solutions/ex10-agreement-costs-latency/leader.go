package ex10

import (
	"slices"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// leader is what the leader keeps beside its log: the log's own history,
// which writes are decided against, and how far each follower has the log.
type leader struct {
	ahead    *history             // every change in the log, committed or not, in order
	sent     map[sim.NodeID]int64 // the last entry sent to each follower
	match    map[sim.NodeID]int64 // the last entry each follower holds durably, as far as the leader knows
	appended sim.Cond             // broadcast when an entry is appended or made durable, or a follower needs entries again
}

// lead makes this server the leader: its log's history is replayed, and a
// process keeps the log synced while one per follower keeps it sent.
func (s *server) lead(p *sim.Proc) {
	s.ahead = newHistory()
	for _, e := range s.log.entries {
		s.ahead.append(e.Event)
	}
	s.sent, s.match = map[sim.NodeID]int64{}, map[sim.NodeID]int64{}
	s.appended = sim.Cond{Name: "log appended"}
	p.Go("sync", s.syncer)
	for _, f := range s.followers() {
		p.Go("replicate to "+string(f), func(p *sim.Proc) { s.replicator(p, f) })
	}
	s.advance()
}

// write decides one client write against the log, appends it, and answers
// once a majority holds it durably. Writes do not wait for each other: many
// can be in the log and on the wire at once, and they share syncs and round
// trips (the syncer and the replicators batch whatever has piled up).
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	// Decided against the whole log, agreed or not: a later write must see
	// the earlier ones it follows, or two creates of one name both succeed.
	ev, err := s.ahead.apply(w)
	if err != nil {
		// A refusal is an answer about the log's tail: it is true only once
		// that tail is agreed, or a client could hear Conflict about a
		// change that a read does not show yet.
		if !s.awaitCommit(p, s.ahead.position()) {
			return kube.Object{}, kube.ErrTimeout
		}
		return kube.Object{}, err
	}
	index := ev.Object.ResourceVersion
	s.log.append(Entry{Index: index, Event: ev})
	s.appended.Broadcast()
	if !s.awaitCommit(p, index) {
		return kube.Object{}, kube.ErrTimeout // in the log, not yet agreed: it may still be
	}
	return ev.Object, nil
}

// awaitCommit waits until the log is committed up to index, at most
// writeTimeout, and reports whether it was.
func (s *server) awaitCommit(p *sim.Proc, index int64) bool {
	deadline := p.Now() + writeTimeout
	for s.committed.position() < index {
		if !s.committed.changed.WaitTimeout(p, deadline-p.Now()) {
			return false
		}
	}
	return true
}

// syncer makes the log durable on the leader's own disk, one sync for
// whatever was appended since the last.
func (s *server) syncer(p *sim.Proc) {
	for {
		for s.log.durable == s.log.last() {
			s.appended.Wait(p)
		}
		s.log.sync(p)
		s.advance()
		s.appended.Broadcast() // the replicators send what is now durable
	}
}

// replicator keeps follower f sent every durable entry: each Append carries
// everything synced since the last one sent, and goes out without waiting
// for the answer to the one before (it runs in a process of its own).
func (s *server) replicator(p *sim.Proc, f sim.NodeID) {
	for {
		for s.sent[f] >= s.log.durable {
			s.appended.Wait(p)
		}
		from, upTo := s.sent[f], s.log.durable
		s.sent[f] = upTo
		p.Go("append to "+string(f), func(p *sim.Proc) {
			reply, err := p.Call(f, Append{Prev: from, Entries: s.log.slice(from, upTo), Commit: s.committed.position()}, peerTimeout)
			if err != nil { // lost, or f is down or cut off: send again from what it surely has
				s.resend(f, s.match[f])
				return
			}
			m := reply.(Appended).Match
			if m > s.match[f] {
				s.match[f] = m
				s.advance()
			}
			if m < upTo && m < from { // a gap at f: an earlier Append has not arrived
				s.resend(f, m)
			}
		})
	}
}

// resend makes f's replicator send again from entry after index.
func (s *server) resend(f sim.NodeID, after int64) {
	if after < s.sent[f] {
		s.sent[f] = after
		s.appended.Broadcast()
	}
}

// advance commits every entry a majority holds durably, the leader's own
// disk counted once, and applies it.
func (s *server) advance() {
	held := []int64{s.log.durable}
	for _, f := range s.followers() {
		held = append(held, s.match[f])
	}
	slices.Sort(held)
	slices.Reverse(held)
	if commit := held[s.majority()-1]; commit > s.committed.position() {
		s.apply(commit)
	}
}
