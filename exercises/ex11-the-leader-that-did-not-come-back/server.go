package ex11

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// The messages between servers. Each goes one way (p.Send); an answer is a
// message of its own. Add your own (a vote request and its answer). The
// hidden suite reads a vote's answer by two of its fields, an integer Term
// and a boolean Granted (or VoteGranted), to check that every server votes
// at most once per term and every leader holds a majority of its term's
// votes; an election whose votes it cannot read fails as votes-unread. It
// tells a pre-vote's answer from a vote's by the request it answers: a
// request whose type's name or a true boolean field's name says "Pre"
// (PreVote, RequestVote{Pre: true}), or whose Term is beyond its sender's
// own term, asks for a pre-vote, and its answer is no vote.
type (
	// Append carries the leader's entries after position Prev, and how far
	// the leader has committed. Term is the sender's epoch.
	Append struct {
		Term    int64
		Leader  sim.NodeID
		Prev    int64
		Entries []Entry
		Commit  int64
	}
	// AppendReply answers an Append: on success, Match is how far the
	// follower's log now matches the leader's, synced; on failure, Hint is
	// where the leader should try next.
	AppendReply struct {
		Term    int64
		From    sim.NodeID
		Success bool
		Match   int64
		Hint    int64
	}
	// Forward carries a client's request from a follower to the leader.
	Forward struct {
		Request any
	}
)

const (
	heartbeat = 100 * time.Millisecond
	// silence is how long a follower waits for the leader before it takes
	// over.
	silence = 300 * time.Millisecond
	batch   = 64
	// wait bounds how long a request waits for its entry to commit, or a
	// follower for the leader's answer.
	wait = 800 * time.Millisecond
)

// Serve runs one server of the cluster on p's node: the hidden suite calls
// it as the boot function of every server, at start and after every
// restart. self is this server; servers lists every server, self included,
// in the same order on every server.
//
// As shipped it is ex08's log with a fixed leader, servers[0], and an
// automatic promotion: a follower that has heard nothing from the leader
// for 300ms bumps the epoch (the term) and declares itself leader. It asks
// nobody and writes the epoch nowhere.
func Serve(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
	s := &server{
		self:    self,
		servers: servers,
		log:     openLog(p),
		h:       newHistory(),
		role:    check.Follower,
		term:    1,
		leader:  servers[0],
		heard:   p.Now(),
		mu:      sim.Mutex{Name: "state"},
		applied: sim.Cond{Name: "applied"},
		results: map[int64]result{},
	}
	if self == servers[0] {
		s.lead(p)
	}
	s.tell(p)
	p.Go("timer", s.timer)
	p.Go("heartbeat", s.heartbeats)
	p.Serve(s.handle)
}

// result is what applying an entry gave its client.
type result struct {
	obj kube.Object
	err error
}

type server struct {
	self    sim.NodeID
	servers []sim.NodeID
	log     *wal
	h       *history
	mu      sim.Mutex // held across every change of the state below, syncs included

	// TODO(ex11): the term lives only in memory, and nobody votes. Keep the
	// term and a vote (record.go's Vote, in stateFile) on the disk, synced
	// before any answer that depends on them.
	term    int64
	role    check.Role
	leader  sim.NodeID // the leader, as far as known
	commit  int64
	lastApp int64
	applied sim.Cond // broadcast when entries are applied, or the role changes
	heard   time.Duration

	next, match map[sim.NodeID]int64 // the leader's view of each follower
	results     map[int64]result     // the leader's: what each of its entries gave

	told *check.ServerState // what tell last said
}

func (s *server) majority() int { return len(s.servers)/2 + 1 }

// tell says the server's state to the hidden suite's monitor, when it
// changed since it last did. Keep calling it after every change of term,
// role, log or commit: the suite checks what it says after every step.
func (s *server) tell(p *sim.Proc) {
	st := check.ServerState{Term: s.term, Role: s.role, Log: s.log.view(), Commit: s.commit}
	if s.told != nil && st.Term == s.told.Term && st.Role == s.told.Role && st.Commit == s.told.Commit &&
		len(st.Log) == len(s.told.Log) && (len(st.Log) == 0 || &st.Log[0] == &s.told.Log[0]) {
		return
	}
	s.told = &st
	p.SetStatus(st)
}

// timer promotes this server when the leader has been silent too long.
//
// TODO(ex11): "silent for 300ms: I lead" is one server's opinion. Two
// servers that both stop hearing the leader both promote themselves, in the
// same epoch. Make leadership something a majority grants, once per term,
// to a server whose log is at least as up to date as theirs.
func (s *server) timer(p *sim.Proc) {
	for {
		p.Sleep(silence / 3)
		s.mu.Lock(p)
		if s.role != check.Leader && p.Now()-s.heard >= silence {
			s.term++
			s.lead(p)
			s.tell(p)
		}
		s.mu.Unlock()
	}
}

// lead makes this server the leader of its current term.
func (s *server) lead(p *sim.Proc) {
	s.role = check.Leader
	s.leader = s.self
	s.next, s.match = map[sim.NodeID]int64{}, map[sim.NodeID]int64{}
	for _, f := range s.followers() {
		s.next[f] = s.log.last() + 1
	}
	s.results = map[int64]result{}
}

func (s *server) followers() []sim.NodeID {
	return slices.DeleteFunc(slices.Clone(s.servers), func(id sim.NodeID) bool { return id == s.self })
}

// heartbeats sends every follower what it misses, every heartbeat.
func (s *server) heartbeats(p *sim.Proc) {
	for {
		p.Sleep(heartbeat)
		if s.role == check.Leader {
			s.broadcast(p)
		}
	}
}

func (s *server) broadcast(p *sim.Proc) {
	for _, f := range s.followers() {
		s.sendTo(p, f)
	}
}

func (s *server) sendTo(p *sim.Proc, f sim.NodeID) {
	next := max(s.next[f], 1)
	p.Send(f, Append{Term: s.term, Leader: s.self, Prev: next - 1, Entries: s.log.from(next, batch), Commit: s.commit})
}

func (s *server) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	switch r := req.(type) {
	case Append:
		s.mu.Lock(p)
		defer s.mu.Unlock()
		s.follow(p, r)
		return nil, nil
	case AppendReply:
		s.mu.Lock(p)
		defer s.mu.Unlock()
		s.replied(p, r)
		return nil, nil
	case Forward:
		if s.role != check.Leader {
			return nil, notLeader(s.self)
		}
		return s.client(p, r.Request)
	}
	return s.client(p, req)
}

// follow is a follower's side of an Append: any sender whose epoch is at
// least this server's is the leader.
//
// TODO(ex11): entries are placed after Prev whatever this server holds
// there. Check that the log matches the leader's at Prev (its term), and
// cut off only a conflicting suffix that is not committed.
func (s *server) follow(p *sim.Proc, a Append) {
	if a.Term < s.term {
		p.Send(a.Leader, AppendReply{Term: s.term, From: s.self})
		return
	}
	s.term, s.role, s.leader, s.heard = a.Term, check.Follower, a.Leader, p.Now()
	s.applied.Broadcast()
	if a.Prev > s.log.last() {
		s.tell(p)
		p.Send(a.Leader, AppendReply{Term: s.term, From: s.self, Hint: s.log.last() + 1})
		return
	}
	var fresh []Entry
	for i, e := range a.Entries {
		idx := a.Prev + 1 + int64(i)
		if idx <= s.log.last() {
			if old := s.log.entry(idx); old.Term == e.Term && old.What() == e.What() {
				continue
			}
			s.log.truncate(idx)
		}
		fresh = a.Entries[i:]
		break
	}
	if len(fresh) > 0 {
		s.log.append(p, fresh...)
	}
	match := a.Prev + int64(len(a.Entries))
	if c := min(a.Commit, match); c > s.commit {
		s.commit = c
		s.apply()
	}
	s.tell(p)
	p.Send(a.Leader, AppendReply{Term: s.term, From: s.self, Success: true, Match: match})
}

// replied is the leader's side of an AppendReply.
func (s *server) replied(p *sim.Proc, r AppendReply) {
	if s.role != check.Leader {
		return
	}
	if !r.Success {
		s.next[r.From] = max(s.match[r.From]+1, min(s.next[r.From]-1, r.Hint))
		s.sendTo(p, r.From)
		return
	}
	s.match[r.From] = max(s.match[r.From], r.Match)
	s.next[r.From] = max(s.next[r.From], r.Match+1)
	s.advance(p)
	if s.next[r.From] <= s.log.last() {
		s.sendTo(p, r.From)
	}
}

// advance commits what a majority holds.
//
// TODO(ex11): an entry of an earlier term on a majority can still be
// overwritten by a later leader (the Raft paper's Figure 8). Commit by
// counting only entries of the leader's own term.
func (s *server) advance(p *sim.Proc) {
	have := []int64{s.log.last()}
	for _, f := range s.followers() {
		have = append(have, s.match[f])
	}
	slices.Sort(have)
	slices.Reverse(have)
	if n := have[s.majority()-1]; n > s.commit {
		s.commit = n
		s.apply()
		s.tell(p)
	}
}

// apply applies every committed entry not applied yet, in order.
func (s *server) apply() {
	for s.lastApp < s.commit {
		s.lastApp++
		e := s.log.entry(s.lastApp)
		if e.Write == nil {
			continue
		}
		ev, err := s.h.decide(*e.Write)
		if err == nil {
			ev = s.h.apply(ev)
		}
		if s.role == check.Leader && e.Term == s.term {
			s.results[s.lastApp] = result{obj: ev.Object, err: err}
		}
	}
	s.applied.Broadcast()
}

// client answers a client's request: watches and Any reads from this
// server's applied state, writes through the leader's log.
//
// TODO(ex11): the leader answers Latest reads from what it has applied,
// even a leader that others have replaced: make sure it still leads.
func (s *server) client(p *sim.Proc, req any) (any, error) {
	switch r := req.(type) {
	case kube.WatchRequest:
		return s.h.watch(p, r.Kind, r.ResourceVersion, r.Wait), nil
	case kube.GetRequest:
		if r.Opts.ResourceVersion == kube.Any || s.role == check.Leader {
			return s.h.get(r.Key)
		}
	case kube.ListRequest:
		if r.Opts.ResourceVersion == kube.Any || s.role == check.Leader {
			return s.h.list(r.Kind), nil
		}
	}
	if s.role != check.Leader {
		leader := s.leader
		if leader == "" || leader == s.self {
			return nil, notLeader(s.self)
		}
		reply, err := p.Call(leader, Forward{Request: req}, wait)
		if err != nil {
			return nil, unreachable(err)
		}
		return reply, nil
	}
	var w *Write
	switch r := req.(type) {
	case kube.CreateRequest:
		w = &Write{Op: Create, Object: r.Object}
	case kube.UpdateRequest:
		w = &Write{Op: Update, Object: r.Object}
	case kube.DeleteRequest:
		kind, name := kube.SplitKey(r.Key)
		w = &Write{Op: Delete, Object: kube.Object{Kind: kind, Name: name, ResourceVersion: r.ResourceVersion}}
	default:
		return nil, fmt.Errorf("%s: unknown request %T", s.self, req)
	}
	res, err := s.propose(p, w)
	if err != nil {
		return nil, err
	}
	return res.obj, res.err
}

// propose appends an entry for w in the leader's term and waits until it
// is applied; a leader replaced first answers Timeout: the entry may still
// be committed by the next leader.
func (s *server) propose(p *sim.Proc, w *Write) (result, error) {
	s.mu.Lock(p)
	if s.role != check.Leader {
		s.mu.Unlock()
		return result{}, notLeader(s.self)
	}
	term := s.term
	s.log.append(p, Entry{Term: term, Write: w})
	index := s.log.last()
	s.tell(p)
	s.broadcast(p)
	s.advance(p)
	s.mu.Unlock()
	deadline := p.Now() + wait
	for s.lastApp < index || s.role != check.Leader || s.term != term {
		if s.role != check.Leader || s.term != term || p.Now() >= deadline {
			return result{}, kube.ErrTimeout
		}
		s.applied.WaitTimeout(p, deadline-p.Now())
	}
	res := s.results[index]
	delete(s.results, index)
	return res, nil
}

// notLeader is a definite refusal: nothing was written.
func notLeader(self sim.NodeID) error {
	return kube.StatusError{Code: 429, Reason: "TooManyRequests", Message: string(self) + " is not the leader and knows none; nothing was written, retry"}
}

// unreachable turns a failed call to the leader into the client's error.
func unreachable(err error) error {
	var status kube.StatusError
	switch {
	case errors.As(err, &status):
		return err
	case errors.Is(err, sim.ErrTimeout):
		return kube.ErrTimeout
	default:
		return kube.StatusError{Code: 429, Reason: "TooManyRequests", Message: "the leader is down (" + err.Error() + "); nothing was written, retry"}
	}
}
