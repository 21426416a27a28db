package ex10

import (
	"slices"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// leader is what the leader keeps beside its log: the log's own history,
// which writes are decided against, and how far each follower has the log.
type leader struct {
	ahead *history             // every change in the log, committed or not, in order
	match map[sim.NodeID]int64 // the last entry each follower holds durably, as far as the leader knows
	held  sim.Cond             // broadcast when a follower's match moves
	turn  sim.Mutex            // one write at a time
}

// lead makes this server the leader: its log's history is replayed, and
// whatever the log held at boot is agreed again before anything else.
func (s *server) lead(p *sim.Proc) {
	s.ahead = newHistory()
	for _, e := range s.log.entries {
		s.ahead.append(e.Event)
	}
	s.match = map[sim.NodeID]int64{}
	s.held = sim.Cond{Name: "a follower's log grew"}
	s.turn = sim.Mutex{Name: "one write at a time"}
	if s.log.last() > 0 {
		p.Go("agree the log again", func(p *sim.Proc) {
			s.turn.Lock(p)
			defer s.turn.Unlock()
			for !s.agree(p, s.log.last()) {
			}
		})
	}
	s.advance()
}

// write decides one client write against the log, appends it, and answers
// once a majority holds it durably.
//
// TODO(ex10): one write at a time. Each write takes the turn, is synced,
// sent to the followers, and waits a whole round trip for their answers
// before the next write may even be decided: over links of 400ms each way, a
// burst of twenty writes takes twenty round trips. Let writes share the
// work: append each one and wait for it to be committed, while the log is
// synced and sent in batches of whatever has piled up, without waiting for
// the answer to one batch before sending the next. Never answer before a
// majority holds the write: that is the chapter's other half.
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	s.turn.Lock(p)
	defer s.turn.Unlock()
	// Whatever an earlier write left in the log unagreed (its client heard
	// Timeout) is agreed first, so that this write is decided, and answered,
	// against agreed changes only.
	if !s.agree(p, s.log.last()) {
		return kube.Object{}, kube.ErrTimeout
	}
	ev, err := s.ahead.apply(w)
	if err != nil {
		return kube.Object{}, err
	}
	index := ev.Object.ResourceVersion
	s.log.append(Entry{Index: index, Event: ev})
	s.log.sync(p) // durable here before it is sent anywhere
	if !s.agree(p, index) {
		return kube.Object{}, kube.ErrTimeout // in the log, not yet agreed: it may still be
	}
	return ev.Object, nil
}

// agree sends the log up to index to every follower and waits until a
// majority holds it durably, or until writeTimeout has passed.
func (s *server) agree(p *sim.Proc, index int64) bool {
	for _, f := range s.followers() {
		from := s.match[f]
		p.Go("append to "+string(f), func(p *sim.Proc) {
			reply, err := p.Call(f, Append{Prev: from, Entries: s.log.slice(from, index), Commit: s.committed.position()}, peerTimeout)
			if err != nil {
				return
			}
			if m := reply.(Appended).Match; m > s.match[f] {
				s.match[f] = m
				s.held.Broadcast()
			}
		})
	}
	deadline := p.Now() + writeTimeout
	for s.advance(); s.committed.position() < index; s.advance() {
		if !s.held.WaitTimeout(p, deadline-p.Now()) {
			return false
		}
	}
	return true
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
