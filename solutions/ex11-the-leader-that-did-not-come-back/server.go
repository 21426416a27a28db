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
// message of its own.
type (
	// RequestVote asks for a vote in Term, for Candidate, whose log ends
	// with an entry of LastTerm at LastIndex. Pre marks a pre-vote: a
	// question ("would you vote for me?") that changes nothing on either
	// side.
	RequestVote struct {
		Term                int64
		Candidate           sim.NodeID
		LastIndex, LastTerm int64
		Pre                 bool
	}
	// VoteReply answers a RequestVote.
	VoteReply struct {
		Term    int64
		From    sim.NodeID
		Granted bool
		Pre     bool
	}
	// Append carries the leader's entries after position Prev, whose entry
	// is of term PrevTerm, and how far the leader has committed.
	Append struct {
		Term     int64
		Leader   sim.NodeID
		Prev     int64
		PrevTerm int64
		Entries  []Entry
		Commit   int64
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
	// An election timeout is drawn from [electionMin, electionMax).
	electionMin = 300 * time.Millisecond
	electionMax = 600 * time.Millisecond
	batch       = 64
	// wait bounds how long a request waits for its entry to commit, or a
	// follower for the leader's answer.
	wait = 800 * time.Millisecond
)

// Serve runs one server of the cluster on p's node: the hidden suite calls
// it as the boot function of every server, at start and after every restart.
func Serve(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
	s := &server{
		self:    self,
		servers: servers,
		log:     openLog(p),
		votes:   openVotes(p),
		h:       newHistory(),
		role:    check.Follower,
		mu:      sim.Mutex{Name: "state"},
		applied: sim.Cond{Name: "applied"},
		results: map[int64]result{},
	}
	s.resetTimer(p)
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
	votes   *votes
	h       *history
	mu      sim.Mutex // held across every change of the state below, syncs included

	role     check.Role
	leader   sim.NodeID // the leader of the current term, as far as known
	commit   int64
	lastApp  int64
	applied  sim.Cond // broadcast when entries are applied, or the term changes
	deadline time.Duration
	heard    time.Duration // when a leader was last heard from

	granted map[sim.NodeID]bool // votes (or pre-votes) in the current election
	pre     bool                // the election under way is a pre-vote

	next, match map[sim.NodeID]int64         // the leader's view of each follower
	lastReply   map[sim.NodeID]time.Duration // when each follower last answered the leader
	results     map[int64]result             // the leader's: what each of its entries gave

	told *check.ServerState // what tell last said
}

func (s *server) majority() int { return len(s.servers)/2 + 1 }

func (s *server) term() int64 { return s.votes.Term }

// tell says the server's state to the hidden suite's monitor, when it
// changed since it last did.
func (s *server) tell(p *sim.Proc) {
	st := check.ServerState{Term: s.term(), Role: s.role, Log: s.log.view(), Commit: s.commit}
	if s.told != nil && st.Term == s.told.Term && st.Role == s.told.Role && st.Commit == s.told.Commit &&
		len(st.Log) == len(s.told.Log) && (len(st.Log) == 0 || &st.Log[0] == &s.told.Log[0]) {
		return
	}
	s.told = &st
	p.SetStatus(st)
}

func (s *server) resetTimer(p *sim.Proc) {
	s.deadline = p.Now() + electionMin + time.Duration(p.Rand().Int63n(int64(electionMax-electionMin)))
}

// timer starts a (pre-)election whenever the deadline passes.
func (s *server) timer(p *sim.Proc) {
	for {
		if d := s.deadline - p.Now(); d > 0 {
			p.Sleep(d)
			continue
		}
		s.mu.Lock(p)
		if s.role != check.Leader && p.Now() >= s.deadline {
			s.campaign(p, true)
		} else if s.role == check.Leader {
			s.checkQuorum(p)
		}
		if p.Now() >= s.deadline {
			s.resetTimer(p)
		}
		s.mu.Unlock()
	}
}

// checkQuorum steps a leader down that has not heard from a majority for
// an election timeout: it may be cut off, and clients would wait on it.
func (s *server) checkQuorum(p *sim.Proc) {
	heard := 1
	for _, f := range s.followers() {
		if s.lastReply[f] >= p.Now()-electionMax {
			heard++
		}
	}
	if heard < s.majority() {
		s.role = check.Follower
		s.leader = ""
		s.applied.Broadcast()
		s.tell(p)
	}
	s.resetTimer(p)
}

// campaign starts a pre-vote (pre) or a real election.
func (s *server) campaign(p *sim.Proc, pre bool) {
	s.pre = pre
	s.granted = map[sim.NodeID]bool{s.self: true}
	term := s.term() + 1
	if !pre {
		s.role = check.Candidate
		s.leader = ""
		s.votes.save(p, Vote{Term: term, VotedFor: string(s.self)})
		s.applied.Broadcast()
		s.tell(p)
	}
	s.resetTimer(p)
	for _, f := range s.followers() {
		p.Send(f, RequestVote{Term: term, Candidate: s.self, LastIndex: s.log.last(), LastTerm: s.log.term(s.log.last()), Pre: pre})
	}
	s.won(p)
}

// won makes the server leader (or starts the real election after a pre-vote) once a majority agreed.
func (s *server) won(p *sim.Proc) {
	if len(s.granted) < s.majority() {
		return
	}
	if s.pre {
		s.campaign(p, false)
		return
	}
	if s.role != check.Candidate {
		return
	}
	s.role = check.Leader
	s.leader = s.self
	s.next, s.match, s.lastReply = map[sim.NodeID]int64{}, map[sim.NodeID]int64{}, map[sim.NodeID]time.Duration{}
	for _, f := range s.followers() {
		s.next[f] = s.log.last() + 1
		s.lastReply[f] = p.Now()
	}
	s.results = map[int64]result{}
	s.log.append(p, Entry{Term: s.term()}) // the no-op: lets the leader commit, and read
	s.tell(p)
	s.broadcast(p)
}

// stepDown moves to a higher term as a follower, the vote saved first.
func (s *server) stepDown(p *sim.Proc, term int64) {
	// The role goes first: saving the term waits for the disk, and a
	// leader's heartbeat running meanwhile must not send its log as the
	// leader of the new term.
	s.role = check.Follower
	if term > s.term() {
		s.votes.save(p, Vote{Term: term})
	}
	s.applied.Broadcast()
	s.tell(p)
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
	prev := next - 1
	p.Send(f, Append{Term: s.term(), Leader: s.self, Prev: prev, PrevTerm: s.log.term(prev), Entries: s.log.from(next, batch), Commit: s.commit})
}

func (s *server) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	switch r := req.(type) {
	case RequestVote:
		s.mu.Lock(p)
		defer s.mu.Unlock()
		s.vote(p, r)
		return nil, nil
	case VoteReply:
		s.mu.Lock(p)
		defer s.mu.Unlock()
		if !r.Pre && r.Term > s.term() {
			s.stepDown(p, r.Term)
			return nil, nil
		}
		want := s.term()
		if r.Pre {
			want++
		}
		if r.Granted && r.Pre == s.pre && r.Term == want && (s.pre && s.role != check.Leader || !s.pre && s.role == check.Candidate) {
			s.granted[r.From] = true
			s.won(p)
		}
		return nil, nil
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

// vote answers a RequestVote: at most one vote per term, only for a log at
// least as up to date, saved before the answer.
func (s *server) vote(p *sim.Proc, r RequestVote) {
	upToDate := r.LastTerm > s.log.term(s.log.last()) || r.LastTerm == s.log.term(s.log.last()) && r.LastIndex >= s.log.last()
	if r.Pre {
		if r.Term <= s.term() {
			// The candidate is behind a term this server is in: tell it
			// so, or it would ask again and again for a term no one grants.
			p.Send(r.Candidate, VoteReply{Term: s.term(), From: s.self})
			return
		}
		// Would I vote? Only if no leader was heard from lately.
		ok := r.Term > s.term() && upToDate && (s.leader == "" || p.Now()-s.heard >= electionMin) && s.role != check.Leader
		p.Send(r.Candidate, VoteReply{Term: r.Term, From: s.self, Granted: ok, Pre: true})
		return
	}
	if r.Term > s.term() {
		s.leader = ""
		s.role = check.Follower
		s.votes.save(p, Vote{Term: r.Term})
		s.applied.Broadcast()
		s.tell(p)
	}
	grant := r.Term == s.term() && upToDate && (s.votes.VotedFor == "" || s.votes.VotedFor == string(r.Candidate))
	if grant && s.votes.VotedFor == "" {
		s.votes.save(p, Vote{Term: s.term(), VotedFor: string(r.Candidate)})
		s.resetTimer(p)
	}
	p.Send(r.Candidate, VoteReply{Term: s.term(), From: s.self, Granted: grant})
}

// follow is a follower's side of an Append.
func (s *server) follow(p *sim.Proc, a Append) {
	if a.Term < s.term() {
		p.Send(a.Leader, AppendReply{Term: s.term(), From: s.self})
		return
	}
	if a.Term > s.term() || s.role != check.Follower {
		s.stepDown(p, a.Term)
	}
	s.leader, s.heard = a.Leader, p.Now()
	s.resetTimer(p)
	if a.Prev > s.log.last() {
		p.Send(a.Leader, AppendReply{Term: s.term(), From: s.self, Hint: s.log.last() + 1})
		return
	}
	if t := s.log.term(a.Prev); t != a.PrevTerm {
		hint := a.Prev
		for hint > s.commit+1 && s.log.term(hint-1) == t {
			hint--
		}
		p.Send(a.Leader, AppendReply{Term: s.term(), From: s.self, Hint: hint})
		return
	}
	var fresh []Entry
	for i, e := range a.Entries {
		idx := a.Prev + 1 + int64(i)
		if idx <= s.log.last() {
			if s.log.term(idx) == e.Term {
				continue
			}
			if idx <= s.commit {
				panic(fmt.Sprintf("ex11: %s asked to replace committed entry %d", a.Leader, idx))
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
	p.Send(a.Leader, AppendReply{Term: s.term(), From: s.self, Success: true, Match: match})
}

// replied is the leader's side of an AppendReply.
func (s *server) replied(p *sim.Proc, r AppendReply) {
	if r.Term > s.term() {
		s.stepDown(p, r.Term)
		s.leader = ""
		return
	}
	if s.role != check.Leader || r.Term != s.term() {
		return
	}
	s.lastReply[r.From] = p.Now()
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

// advance commits what a majority holds, only by counting entries of the
// leader's own term (an earlier term's entry is committed with them).
func (s *server) advance(p *sim.Proc) {
	have := []int64{s.log.last()}
	for _, f := range s.followers() {
		have = append(have, s.match[f])
	}
	slices.Sort(have)
	slices.Reverse(have)
	n := have[s.majority()-1]
	if n > s.commit && s.log.term(n) == s.term() {
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
		if e.Write != nil {
			ev, err := s.h.decide(*e.Write)
			if err == nil {
				ev = s.h.apply(ev)
			}
			if s.role == check.Leader && e.Term == s.term() {
				s.results[s.lastApp] = result{obj: ev.Object, err: err}
			}
		} else if s.role == check.Leader && e.Term == s.term() {
			s.results[s.lastApp] = result{}
		}
	}
	s.applied.Broadcast()
}

// client answers a client's request: watches and Any reads from this
// server's applied state, everything else through the leader's log.
func (s *server) client(p *sim.Proc, req any) (any, error) {
	switch r := req.(type) {
	case kube.WatchRequest:
		return s.h.watch(p, r.Kind, r.ResourceVersion, r.Wait), nil
	case kube.GetRequest:
		if r.Opts.ResourceVersion == kube.Any {
			return s.h.get(r.Key)
		}
	case kube.ListRequest:
		if r.Opts.ResourceVersion == kube.Any {
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
	case kube.GetRequest, kube.ListRequest:
		// A Latest read goes through the log as a no-op: once it is
		// committed and applied, this server was leader when it was
		// read, and holds every write acknowledged before.
	default:
		return nil, fmt.Errorf("%s: unknown request %T", s.self, req)
	}
	res, err := s.propose(p, w)
	if err != nil {
		return nil, err
	}
	switch r := req.(type) {
	case kube.GetRequest:
		return s.h.get(r.Key)
	case kube.ListRequest:
		return s.h.list(r.Kind), nil
	}
	return res.obj, res.err
}

// propose appends an entry for w (nil: a read's no-op) in the leader's term
// and waits until it is applied; a leader deposed first answers Timeout:
// the entry may still be committed by the next leader.
func (s *server) propose(p *sim.Proc, w *Write) (result, error) {
	s.mu.Lock(p)
	if s.role != check.Leader {
		s.mu.Unlock()
		return result{}, notLeader(s.self)
	}
	term := s.term()
	s.log.append(p, Entry{Term: term, Write: w})
	index := s.log.last()
	s.tell(p)
	s.broadcast(p)
	s.advance(p)
	s.mu.Unlock()
	deadline := p.Now() + wait
	for s.lastApp < index || s.role != check.Leader || s.term() != term {
		if s.role != check.Leader || s.term() != term || p.Now() >= deadline {
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
