package ex08

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Propose asks the leader to decide one client write and commit it. The
// reply is the kube.Event as committed, or the API error that refused it.
type Propose struct {
	Write Write
}

// Append carries part of the leader's log to a follower: Entries follow
// position Prev of the log, in order, and Commit is how many entries the
// leader has committed. The follower answers with an Ack, sent back.
type Append struct {
	Prev    int64
	Entries []Entry
	Commit  int64
}

// Ack tells the leader how much of its log a follower holds, synced to the
// follower's disk: its first Have entries.
type Ack struct {
	From sim.NodeID
	Have int64
}

// ReadIndex asks the leader how many entries it has committed; the reply is
// an int64.
type ReadIndex struct{}

const (
	// heartbeat is how often the leader sends every follower what it is
	// missing and how far the log is committed.
	heartbeat = 100 * time.Millisecond
	// batch bounds the entries of one Append.
	batch = 64
	// peerTimeout bounds a follower's call to the leader.
	peerTimeout = 1500 * time.Millisecond
	// readyWait bounds how long a request waits for a restarted leader to
	// commit the log it recovered, or for a follower to apply what the
	// leader has committed, before it answers Unavailable.
	readyWait = time.Second
)

// Serve runs one API server of the cluster on p's node: the hidden suite
// calls it as the boot function of every server, at start and after every
// restart. self is this server; servers lists every server, self included,
// in the same order on every server, and servers[0] is the leader. It
// answers the kube wire messages (GetRequest, ListRequest, CreateRequest,
// UpdateRequest, DeleteRequest, WatchRequest) and Propose, Append, Ack and
// ReadIndex.
func Serve(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
	s := &server{
		self:      self,
		servers:   servers,
		log:       openLog(p),
		h:         newHistory(),
		match:     map[sim.NodeID]int64{},
		progress:  sim.Cond{Name: "commit"},
		writing:   sim.Mutex{Name: "writing"},
		appending: sim.Mutex{Name: "appending"},
	}
	if s.leading() {
		p.Go("heartbeat", s.heartbeat)
	}
	p.Serve(s.handle)
}

// server is one API server: its copy of the log, and the state the
// committed part of the log makes.
type server struct {
	self    sim.NodeID
	servers []sim.NodeID
	log     *wal
	h       *history // the committed entries, applied in order
	commit  int64    // how many entries are committed, as far as this server knows

	// The leader's bookkeeping.
	match    map[sim.NodeID]int64 // how many entries each follower holds, synced
	progress sim.Cond             // broadcast when commit grows
	writing  sim.Mutex            // one write at a time, from decision to commit

	// A follower's: one Append at a time, from check to sync.
	appending sim.Mutex
}

// leader is the one server whose log is the history: servers[0].
func (s *server) leader() sim.NodeID { return s.servers[0] }

// leading reports whether this server is the leader.
func (s *server) leading() bool { return s.self == s.leader() }

// handle answers one request, from a client or from another server.
func (s *server) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	switch r := req.(type) {
	case kube.GetRequest:
		if err := s.consistent(p, r.Opts); err != nil {
			return nil, err
		}
		return s.h.get(r.Key)
	case kube.ListRequest:
		if err := s.consistent(p, r.Opts); err != nil {
			return nil, err
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

	case Propose: // only the leader is asked
		return s.lead(p, r.Write)
	case Append:
		s.follow(p, r)
		return nil, nil
	case Ack:
		s.match[r.From] = max(s.match[r.From], r.Have)
		s.advance(p)
		return nil, nil
	case ReadIndex:
		if !s.ready(p) {
			return nil, recovering()
		}
		return s.commit, nil
	}
	return nil, fmt.Errorf("%s: unknown request %T", s.self, req)
}

// write accepts one client write: the leader commits it itself, any other
// server asks the leader to.
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	if s.leading() {
		ev, err := s.lead(p, w)
		return ev.Object, err
	}
	reply, err := p.Call(s.leader(), Propose{Write: w}, peerTimeout)
	if err != nil {
		return kube.Object{}, unreachable(err)
	}
	return reply.(kube.Event).Object, nil
}

// lead is the leader's one job: decide w against the committed state, put
// it in the log at the next index, and answer only once a majority of the
// servers hold that entry on their disks. Writes go one at a time, so each
// is decided against every write before it.
func (s *server) lead(p *sim.Proc, w Write) (kube.Event, error) {
	s.writing.Lock(p)
	defer s.writing.Unlock()
	if !s.ready(p) {
		return kube.Event{}, recovering()
	}
	ev, err := s.h.decide(w)
	if err != nil {
		return kube.Event{}, err
	}
	e := Entry{Index: ev.Object.ResourceVersion, Event: ev}
	s.log.append(p, e) // durable here before any other server hears of it
	p.Logf("appended %s as entry %d", ev.Object, e.Index)
	for _, f := range s.followers() {
		p.Send(f, Append{Prev: e.Index - 1, Entries: []Entry{e}, Commit: s.commit})
	}
	s.advance(p)
	for s.commit < e.Index {
		s.progress.Wait(p)
	}
	return ev, nil
}

// ready waits, at most readyWait, until every entry of the leader's log is
// committed. Only a restarted leader ever waits: the log it recovered may
// hold entries that were acknowledged before the crash, and nothing may be
// read or decided before they are part of the state again.
func (s *server) ready(p *sim.Proc) bool {
	deadline := p.Now() + readyWait
	for s.commit < s.log.last() {
		if p.Now() >= deadline {
			return false
		}
		s.progress.WaitTimeout(p, deadline-p.Now())
	}
	return true
}

// advance commits every entry a majority of the servers hold, the leader
// counted once with what it has synced, and applies them.
func (s *server) advance(p *sim.Proc) {
	have := []int64{s.log.synced}
	for _, f := range s.followers() {
		have = append(have, s.match[f])
	}
	slices.Sort(have)
	slices.Reverse(have)
	majority := len(s.servers)/2 + 1
	if n := have[majority-1]; n > s.commit {
		s.commit = n
		p.Logf("committed up to entry %d", n)
		s.applyCommitted()
		s.progress.Broadcast()
	}
}

// heartbeat sends every follower, again and again, the entries it is
// missing (as far as the leader knows) and how far the log is committed. A
// follower that was down, cut off or slow catches up this way.
func (s *server) heartbeat(p *sim.Proc) {
	for {
		for _, f := range s.followers() {
			p.Send(f, Append{Prev: s.match[f], Entries: s.log.after(s.match[f], batch), Commit: s.commit})
		}
		p.Sleep(heartbeat)
	}
}

// follow is a follower's side of an Append: it takes the entries only in
// order, right after the ones it holds, syncs them, and tells the leader
// how far its log now goes. Entries it already holds are the leader's own
// (there is one leader), so it skips them; entries after a gap it cannot
// place, so it drops them and waits for the leader to send what is missing.
func (s *server) follow(p *sim.Proc, a Append) {
	s.appending.Lock(p)
	defer s.appending.Unlock()
	if a.Prev <= s.log.last() {
		var fresh []Entry
		for _, e := range a.Entries {
			if e.Index > s.log.last() {
				fresh = append(fresh, e)
			}
		}
		if len(fresh) > 0 {
			s.log.append(p, fresh...)
		}
	}
	s.commit = max(s.commit, a.Commit)
	s.applyCommitted()
	p.Send(s.leader(), Ack{From: s.self, Have: s.log.synced})
}

// applyCommitted applies, in order, every entry this server holds that is
// committed and not yet applied.
func (s *server) applyCommitted() {
	for s.h.position() < min(s.commit, s.log.last()) {
		s.h.apply(s.log.entry(s.h.position() + 1).Event)
	}
}

// consistent prepares a read. kube.Any is served from whatever this server
// has applied. kube.Latest must reflect every write acknowledged before the
// read began: each is committed, so the leader answers from its committed
// state, and a follower asks the leader how far the log is committed and
// answers once it has applied that far.
func (s *server) consistent(p *sim.Proc, opts kube.ReadOptions) error {
	if opts.ResourceVersion != kube.Latest {
		return nil
	}
	if s.leading() {
		if !s.ready(p) {
			return recovering()
		}
		return nil
	}
	reply, err := p.Call(s.leader(), ReadIndex{}, peerTimeout)
	if err != nil {
		return unreachable(err)
	}
	index := reply.(int64)
	s.commit = max(s.commit, index)
	s.applyCommitted()
	deadline := p.Now() + readyWait
	for s.h.position() < index {
		if p.Now() >= deadline {
			return kube.Unavailable(fmt.Sprintf("%s has not caught up to entry %d", s.self, index))
		}
		s.h.changed.WaitTimeout(p, deadline-p.Now())
	}
	return nil
}

// followers are every server but the leader.
func (s *server) followers() []sim.NodeID { return s.servers[1:] }

// recovering is a restarted leader's answer while it commits the log it
// recovered: 429, as kube-apiserver answers while its storage initializes.
// Nothing was decided, and the client knows it.
func recovering() error {
	return kube.StatusError{Code: 429, Reason: "TooManyRequests", Message: "the leader is still committing the log it recovered; retry"}
}

// unreachable turns a failed call to the leader into the API error a client
// sees. A timeout is indefinite (the leader may have committed the write):
// Timeout. A refused connection is definite (the leader never saw the
// request): TooManyRequests, which a client takes as "not done, retry".
func unreachable(err error) error {
	var status kube.StatusError
	switch {
	case errors.As(err, &status):
		return err // the leader's own answer: NotFound, Conflict, TooManyRequests...
	case errors.Is(err, sim.ErrTimeout):
		return kube.ErrTimeout
	default:
		return kube.StatusError{Code: 429, Reason: "TooManyRequests", Message: "the leader is down (" + err.Error() + "); nothing was written, retry"}
	}
}
