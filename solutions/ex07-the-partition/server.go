package ex07

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Order asks the sequencer to decide one write: to check it against the
// history, give it the next position and answer once a majority of the
// servers hold it. The reply is the kube.Event as stored, or the API error
// that refused the write (Unavailable when no majority could be had).
type Order struct {
	Write Write
}

// Append carries a stretch of the one history from the sequencer to another
// server: Entries[i] belongs at position From+i. The reply is an int64, how
// many changes the server holds after taking what fits. An Append with no
// entries is a heartbeat: it asks only how far the server has come.
type Append struct {
	From    int64
	Entries []kube.Event
}

// Confirm asks the sequencer how far the history is committed, as of now:
// it answers (an int64) only once a majority of the servers have answered
// it since the question arrived, and Unavailable otherwise.
type Confirm struct{}

// The chapter promises an answer to every write and Latest read within 1 s,
// as the client measures it (2–20 ms away from its server). These budgets
// keep well inside it.
const (
	answerWithin = 850 * time.Millisecond // a server's whole budget for one request
	commitWithin = 600 * time.Millisecond // how long the sequencer waits for a majority
	peerTimeout  = 250 * time.Millisecond // one call from the sequencer to another server
	heartbeat    = 200 * time.Millisecond // how often the sequencer checks on an idle server
)

// Serve runs one API server of the cluster on p's node: the hidden suite
// calls it as the boot function of every server node. self is this server;
// servers lists every server, self included, in the same order on every
// server, and servers[0] is the sequencer. It answers the kube wire
// messages (GetRequest, ListRequest, CreateRequest, UpdateRequest,
// DeleteRequest, WatchRequest) and Order, Append and Confirm.
//
// A watch from ResourceVersion 0 returns the server's whole history: that is
// how the hidden suite compares the servers' histories.
func Serve(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
	s := &server{self: self, servers: servers, h: newHistory(),
		held: map[sim.NodeID]int64{}, heard: map[sim.NodeID]time.Duration{},
		progress: sim.Cond{Name: "majority progress"}, wake: sim.Cond{Name: "something to send"}}
	if s.isSequencer() {
		for _, peer := range s.others() {
			p.Go("replicate to "+string(peer), func(p *sim.Proc) { s.replicate(p, peer) })
		}
	}
	p.Serve(s.handle)
}

// server is one API server and its own copy of the history.
type server struct {
	self    sim.NodeID
	servers []sim.NodeID
	h       *history

	// The sequencer's view of the others. held[peer] is how many changes
	// peer said it holds, in its last answer; heard[peer] is when the
	// Append it answered was sent. committed is the longest prefix of the
	// history a majority holds: it only grows.
	held      map[sim.NodeID]int64
	heard     map[sim.NodeID]time.Duration
	committed int64
	progress  sim.Cond // broadcast when held, heard or committed change
	wake      sim.Cond // broadcast when there is something to send
}

func (s *server) sequencer() sim.NodeID { return s.servers[0] }
func (s *server) isSequencer() bool     { return s.self == s.sequencer() }

// majority is the fewest servers that any two groups of that size must
// share: 2 of 3, 3 of 4. Two sides of a split cannot both have one.
func (s *server) majority() int { return len(s.servers)/2 + 1 }

// others lists every server but this one.
func (s *server) others() []sim.NodeID {
	var out []sim.NodeID
	for _, id := range s.servers {
		if id != s.self {
			out = append(out, id)
		}
	}
	return out
}

// handle answers one request, from a client or from another server.
func (s *server) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	switch r := req.(type) {
	case kube.GetRequest:
		if r.Opts.ResourceVersion == kube.Latest {
			if err := s.readable(p); err != nil {
				return kube.Object{}, err
			}
		}
		return s.h.get(r.Key)
	case kube.ListRequest:
		if r.Opts.ResourceVersion == kube.Latest {
			if err := s.readable(p); err != nil {
				return kube.List{}, err
			}
		}
		return s.h.list(r.Kind), nil
	case kube.WatchRequest:
		return s.h.watch(p, r.Kind, r.ResourceVersion, r.Wait), nil
	case kube.CreateRequest:
		return s.write(p, Write{Op: Create, Object: r.Object})
	case kube.UpdateRequest:
		return s.write(p, Write{Op: Update, Object: r.Object})
	case kube.DeleteRequest:
		kind, name := kube.SplitKey(r.Key)
		return s.write(p, Write{Op: Delete, Object: kube.Object{Kind: kind, Name: name, ResourceVersion: r.ResourceVersion}})

	case Order: // only the sequencer is asked
		return s.order(p, r.Write)
	case Append:
		return s.take(p, r), nil
	case Confirm:
		if !s.confirm(p, p.Now()+commitWithin) {
			return nil, s.noMajority()
		}
		return s.committed, nil
	}
	return nil, fmt.Errorf("%s: unknown request %T", s.self, req)
}

// write accepts one client write and returns the object as stored (for a
// Delete, as it was, with the deletion's ResourceVersion), once a majority
// of the servers hold it. Only the sequencer decides; any other server
// forwards the write and passes on the sequencer's answer, or Unavailable
// when the sequencer does not answer in time.
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	if s.isSequencer() {
		ev, err := s.order(p, w)
		return ev.Object, err
	}
	reply, err := p.Call(s.sequencer(), Order{Write: w}, answerWithin)
	if err != nil {
		return kube.Object{}, unreachable(err)
	}
	return reply.(kube.Event).Object, nil
}

// order decides w against the history as it stands, gives it the next
// position, and answers once a majority holds the history up to there. A
// write that waited commitWithin in vain is answered Unavailable; it stays in
// the sequencer's history and reaches the others when they can be reached,
// which is why Unavailable, like a timeout, does not say it did not happen.
// A write the history refuses (NotFound, AlreadyExists, Conflict) is refused
// only once a majority confirms the history it was judged against, as a
// Latest read is answered: a definite no is a claim about the latest state,
// and without a majority the answer is Unavailable.
func (s *server) order(p *sim.Proc, w Write) (kube.Event, error) {
	ev, err := s.h.apply(w)
	if err != nil {
		if !s.confirm(p, p.Now()+commitWithin) {
			return kube.Event{}, s.noMajority()
		}
		return kube.Event{}, err
	}
	pos := ev.Object.ResourceVersion
	p.Logf("ordered rv %d: %s=%d", pos, ev.Object.Name, ev.Object.Replicas)
	s.wake.Broadcast()
	s.advance() // a cluster of one is its own majority
	if !s.waitFor(p, p.Now()+commitWithin, func() bool { return s.committed >= pos }) {
		p.Logf("rv %d: no majority", pos)
		return kube.Event{}, s.noMajority()
	}
	return ev, nil
}

// replicate is the sequencer's link to one other server: it sends peer the
// history from where peer last said it was, and a heartbeat when there is
// nothing new, forever. A peer that restarted empty says so, and the next
// Append starts again from its position.
func (s *server) replicate(p *sim.Proc, peer sim.NodeID) {
	for {
		from := s.held[peer] + 1
		sent := p.Now()
		reply, err := p.Call(peer, Append{From: from, Entries: s.h.after(from - 1)}, peerTimeout)
		if pos, ok := reply.(int64); err == nil && ok {
			s.held[peer], s.heard[peer] = pos, sent
			s.advance()
		} else if !errors.Is(err, sim.ErrTimeout) {
			p.Sleep(heartbeat) // down or not serving yet: no use asking at once
			continue
		}
		if s.held[peer] >= s.h.position() {
			s.wake.WaitTimeout(p, heartbeat)
		}
	}
}

// advance recomputes committed: the position that a majority of the
// servers, the sequencer included, hold.
func (s *server) advance() {
	positions := []int64{s.h.position()}
	for _, peer := range s.others() {
		positions = append(positions, s.held[peer])
	}
	slices.Sort(positions)
	slices.Reverse(positions)
	if c := positions[s.majority()-1]; c > s.committed {
		s.committed = c
	}
	s.progress.Broadcast()
}

// take appends the entries of a that come next in this server's history,
// ignores those it already holds, and stops at a gap. It returns how many
// changes this server holds.
func (s *server) take(p *sim.Proc, a Append) int64 {
	for i, ev := range a.Entries {
		pos := a.From + int64(i)
		if pos > s.h.position()+1 {
			break
		}
		if pos == s.h.position()+1 {
			s.h.append(ev)
		}
	}
	return s.h.position()
}

// readable returns nil once this server may answer a Latest read from its
// own copy: when it holds every change committed before the read arrived,
// as a majority confirms. Otherwise it returns Unavailable in time.
func (s *server) readable(p *sim.Proc) error {
	deadline := p.Now() + answerWithin
	if s.isSequencer() {
		if !s.confirm(p, p.Now()+commitWithin) {
			return s.noMajority()
		}
		return nil
	}
	reply, err := p.Call(s.sequencer(), Confirm{}, answerWithin)
	if err != nil {
		return unreachable(err)
	}
	committed := reply.(int64)
	if !s.waitFor(p, deadline, func() bool { return s.h.position() >= committed }) {
		return kube.Unavailable(fmt.Sprintf("%s has not caught up to rv %d", s.self, committed))
	}
	return nil
}

// confirm waits until a majority, the sequencer included, has answered an
// Append sent after confirm was called, and until the history as it stood
// then is committed; it reports whether that happened by deadline. A
// sequencer cut off from the majority cannot tell whether it is the one cut
// off, so it answers nothing that claims to be the latest.
func (s *server) confirm(p *sim.Proc, deadline time.Duration) bool {
	asked, want := p.Now(), s.h.position()
	s.wake.Broadcast()
	return s.waitFor(p, deadline, func() bool {
		heard := 1
		for _, peer := range s.others() {
			if s.heard[peer] >= asked {
				heard++
			}
		}
		return heard >= s.majority() && s.committed >= want
	})
}

// waitFor waits until ok() holds or deadline passes, and reports whether
// ok() held. The history's changes and the sequencer's progress both wake it.
func (s *server) waitFor(p *sim.Proc, deadline time.Duration, ok func() bool) bool {
	for !ok() {
		left := deadline - p.Now()
		if left <= 0 {
			return false
		}
		if s.isSequencer() {
			s.progress.WaitTimeout(p, left)
		} else {
			s.h.changed.WaitTimeout(p, left)
		}
	}
	return true
}

// noMajority is the sequencer's refusal when it cannot reach a majority.
func (s *server) noMajority() error {
	return kube.Unavailable(fmt.Sprintf("%s cannot reach a majority (%d of %d servers)", s.self, s.majority(), len(s.servers)))
}

// unreachable turns a failed call to the sequencer into the API error a
// client sees: the sequencer's own answer as it is, and no answer as
// Unavailable. Like a timeout, Unavailable does not say the write did not
// happen: the sequencer may have ordered it.
func unreachable(err error) error {
	var status kube.StatusError
	if errors.As(err, &status) {
		return err // the sequencer's own answer: NotFound, Conflict, Unavailable...
	}
	return kube.Unavailable("the sequencer did not answer: " + err.Error())
}
