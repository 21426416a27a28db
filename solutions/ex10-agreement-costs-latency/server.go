package ex10

import (
	"fmt"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// You do not need to change this file. It is the cluster of chapter 8, as
// its solution left it: one fixed leader, servers[0], that orders every
// write into the log, and followers that keep the log on their disks in
// order. Your work is in leader.go: how the leader gets its log agreed.

// Append carries log entries from the leader to a follower: the entries
// after position Prev, in order, and how far the leader knows the log to be
// committed. An Append with no entries only passes on the commit.
type Append struct {
	Prev    int64
	Entries []Entry
	Commit  int64
}

// Appended is a follower's answer to an Append: Match is the index of the
// last entry it holds durably. A Match below the Append's Prev means the
// follower is missing entries before the ones sent (an earlier Append was
// lost or has not arrived yet): send again from Match.
type Appended struct {
	Match int64
}

// String is how an Append shows in the timeline: "APPEND 5-7 (commit 4)",
// or "COMMIT 4" for one that only passes on the commit.
func (a Append) String() string {
	switch n := len(a.Entries); n {
	case 0:
		return fmt.Sprintf("COMMIT %d", a.Commit)
	case 1:
		return fmt.Sprintf("APPEND %d (commit %d)", a.Prev+1, a.Commit)
	default:
		return fmt.Sprintf("APPEND %d-%d (commit %d)", a.Prev+1, a.Prev+int64(n), a.Commit)
	}
}

// String is "HOLD 7".
func (a Appended) String() string { return fmt.Sprintf("HOLD %d", a.Match) }

// The chapter's time limits.
const (
	// peerTimeout bounds one Append from the leader to a follower. It is
	// longer than a round trip over the slowest link of the chapter (400ms
	// each way).
	peerTimeout = 2 * time.Second
	// writeTimeout bounds how long the leader waits for a write to be
	// agreed before it answers Timeout: the write stays in the log and will
	// be committed once a majority is back, so the answer is indefinite.
	writeTimeout = 3 * time.Second
	// heartbeat is how often the leader tells the followers how far the log
	// is committed, so that they can apply it.
	heartbeat = 100 * time.Millisecond
	// gapWait is how long a follower holds an Append whose predecessors
	// have not arrived yet: longer than links reorder messages (by 20ms).
	gapWait = 100 * time.Millisecond
)

// Serve runs one server of the cluster on p's node: the hidden suite calls it
// as the boot function of every server. self is this server; servers lists
// every server, self included, in the same order on every server; servers[0]
// is the leader. Clients send their writes and consistent reads to the
// leader; every server answers watches and kube.Any reads from what it has
// committed. A watch from ResourceVersion 0 returns the server's whole
// committed history (in this workbook's store every change is kept, so
// "from 0" means "from the beginning"): that is how the hidden suite compares
// the servers.
func Serve(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
	s := &server{self: self, servers: servers, log: openLog(p), committed: newHistory(), grew: sim.Cond{Name: "log grew"}}
	if s.isLeader() {
		s.recovered = s.log.last()
		s.lead(p)
		p.Go("heartbeat", s.heartbeats)
	}
	p.Serve(s.handle)
}

// server is one server of the cluster.
type server struct {
	self    sim.NodeID
	servers []sim.NodeID

	log       *diskLog // the log on this server's disk
	committed *history // the committed prefix of the log, applied in order
	grew      sim.Cond // broadcast when the log grows
	recovered int64    // the leader's log at boot: no consistent read until it is committed

	leader // the leader's own state; unused on a follower
}

// isLeader reports whether this server is the leader, servers[0].
func (s *server) isLeader() bool { return s.self == s.servers[0] }

// followers are the servers other than the leader.
func (s *server) followers() []sim.NodeID { return s.servers[1:] }

// majority is how many servers must hold an entry durably before it is
// committed: more than half of them, the leader included.
func (s *server) majority() int { return len(s.servers)/2 + 1 }

// handle answers one request, from a client or from another server.
func (s *server) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	switch r := req.(type) {
	case kube.GetRequest:
		if err := s.consistent(p, r.Opts); err != nil {
			return kube.Object{}, err
		}
		return s.committed.get(r.Key)
	case kube.ListRequest:
		if err := s.consistent(p, r.Opts); err != nil {
			return kube.List{}, err
		}
		return s.committed.list(r.Kind), nil
	case kube.WatchRequest:
		return s.committed.watch(p, r.Kind, r.ResourceVersion, r.Wait), nil
	case kube.CreateRequest:
		return s.acceptWrite(p, Write{Op: Create, Object: r.Object})
	case kube.UpdateRequest:
		return s.acceptWrite(p, Write{Op: Update, Object: r.Object})
	case kube.DeleteRequest:
		kind, name := kube.SplitKey(r.Key)
		return s.acceptWrite(p, Write{Op: Delete, Object: kube.Object{Kind: kind, Name: name, ResourceVersion: r.ResourceVersion}})
	case Append:
		return s.follow(p, r), nil
	}
	return nil, fmt.Errorf("%s: unknown request %T", s.self, req)
}

// acceptWrite hands a client's write to the leader's write path; a follower
// refuses it, definitely.
func (s *server) acceptWrite(p *sim.Proc, w Write) (kube.Object, error) {
	if !s.isLeader() {
		return kube.Object{}, kube.Unavailable(fmt.Sprintf("%s is a follower: writes go to the leader, %s", s.self, s.servers[0]))
	}
	return s.write(p, w)
}

// consistent decides whether this server may answer a read now. kube.Any is
// answered from whatever is committed here. kube.Latest is answered only by
// the leader, and only once everything its log held at boot is committed
// again: before that, an acknowledged write could be missing.
func (s *server) consistent(p *sim.Proc, opts kube.ReadOptions) error {
	if opts.ResourceVersion != kube.Latest {
		return nil
	}
	if !s.isLeader() {
		return kube.Unavailable(fmt.Sprintf("%s is a follower: consistent reads go to the leader, %s", s.self, s.servers[0]))
	}
	deadline := p.Now() + writeTimeout
	for s.committed.position() < s.recovered {
		if !s.committed.changed.WaitTimeout(p, deadline-p.Now()) {
			return kube.Unavailable("the leader has not yet agreed its log with a majority since it restarted")
		}
	}
	return nil
}

// follow is a follower's half of replication: take the entries that follow
// on from its log, make them durable, and apply what the leader says is
// committed. The follower's log is always a prefix of the leader's, because
// the leader sends only entries it has synced and never changes one.
//
// Links reorder messages, so an Append may arrive before the one that
// carries the entries just ahead of its own: it waits for them, up to
// gapWait, before it answers that they are missing.
func (s *server) follow(p *sim.Proc, a Append) Appended {
	deadline := p.Now() + gapWait
	for len(a.Entries) > 0 && a.Prev > s.log.last() && p.Now() < deadline {
		s.grew.WaitTimeout(p, deadline-p.Now())
	}
	if a.Prev <= s.log.last() { // else a gap: entries before these are missing here
		end := a.Prev + int64(len(a.Entries))
		for _, e := range a.Entries {
			if e.Index == s.log.last()+1 {
				s.log.append(e)
				s.grew.Broadcast()
			}
		}
		if s.log.durable < end {
			s.log.sync(p)
		}
	}
	s.apply(min(a.Commit, s.log.durable))
	return Appended{Match: s.log.durable}
}

// apply applies the log's entries up to index upTo to the committed history.
func (s *server) apply(upTo int64) {
	for s.committed.position() < min(upTo, s.log.last()) {
		e := s.log.entries[s.committed.position()]
		s.committed.append(e.Event)
	}
}

// heartbeats tells the followers how far the log is committed: every
// heartbeat when the commit has moved, and every ten otherwise. It is a
// one-way message: a lost heartbeat is made up by a later one.
func (s *server) heartbeats(p *sim.Proc) {
	told, quiet := int64(-1), 0
	for {
		p.Sleep(heartbeat)
		if commit := s.committed.position(); commit != told || quiet >= 10 {
			for _, f := range s.followers() {
				p.Send(f, Append{Prev: s.log.durable, Commit: commit})
			}
			told, quiet = commit, 0
			continue
		}
		quiet++
	}
}
