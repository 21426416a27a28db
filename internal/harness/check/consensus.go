package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/sim"
)

// Role is what a server of a consensus cluster is in its term.
type Role string

// The three roles of a server.
const (
	Follower  Role = "follower"
	Candidate Role = "candidate"
	Leader    Role = "leader"
)

// LogEntry is one entry of a server's log as a monitor sees it: the term of
// the leader that created it, and what it holds, in words ("update
// deployments/web{replicas=7}"). Two entries are the same entry when both
// are equal.
type LogEntry struct {
	Term int64
	What string
}

// ServerState is what a server of a consensus cluster says about itself:
// its current term, its role in that term, its log (entry i, counting from
// 1, is Log[i-1]) and how many entries of it it knows to be committed. A
// server hands one to sim.Proc.SetStatus after every change;
// WatchConsensus reads it after every step of the world and keeps it until
// the next one, without copying: the entries of a Log handed over must
// never change afterwards (append to a log freely, but cut it into a new
// slice, slices.Clone, rather than overwrite entries in place).
type ServerState struct {
	Term   int64
	Role   Role
	Log    []LogEntry
	Commit int64
}

// Consensus is a monitor of the safety properties of a replicated log with
// elected leaders (the Raft paper's Figure 3), fed with what every server
// says about itself after every step (Observe), crashed and cut-off servers
// included:
//
//   - election safety: at most one server is ever leader of a given term
//     (two-leaders-one-term);
//   - leader append-only: a leader never overwrites or deletes an entry of
//     its own log while it leads (leader-rewrote-its-log);
//   - log matching: two entries at one index with one term are the same
//     entry, and so are the entries before them (divergent-history);
//   - leader completeness: every committed entry is in the log of every
//     leader elected afterwards (leader-lacks-committed-entry), and no
//     server deletes an entry it has committed (committed-entry-deleted);
//   - state machine safety: no two servers commit different entries at one
//     index (committed-differently);
//   - and, for what a server keeps on its disk: its term never goes back,
//     across restarts too (term-went-back).
//
// It is incremental: each observation costs what changed since the same
// server's last one, so it can run after every step of thousands of worlds.
// It keeps the first violation; later observations check nothing.
type Consensus struct {
	servers map[sim.NodeID]*watched
	leaders map[int64][]leadership // every leader ever seen, by term, in the order seen
	// committed is the one committed prefix, as far as any server has
	// said: entry i is committed[i-1], first committed by committedBy[i-1].
	committed   []LogEntry
	committedBy []leadership
	// entries maps (index, term) to the first entry seen there and the term
	// of the entry before it: log matching holds as long as both agree.
	entries map[[2]int64]matched
	first   *Violation
	steps   int
}

// watched is the last word of one server, and what outlives its crashes.
type watched struct {
	last     *ServerState // nil: crashed, or nothing said since its boot
	maxTerm  int64        // the highest term it ever said, restarts included
	maxSince time.Duration
}

// leadership is who led (or committed) and since when; sent: the monitor
// knows it from a message the server sent as leader (Led), not from what
// it said of itself.
type leadership struct {
	server sim.NodeID
	at     time.Duration
	sent   bool
}

// since is "since 2290ms", or for a leadership known from a message
// "since 2290ms (it sent an Append as leader of term 2)".
func (l leadership) since(term int64) string {
	s := "since " + formatTime(l.at)
	if l.sent {
		s += fmt.Sprintf(" (it sent an Append as leader of term %d)", term)
	}
	return s
}

// matched is the first entry seen at an (index, term) and where.
type matched struct {
	entry    LogEntry
	prevTerm int64
	server   sim.NodeID
	at       time.Duration
}

// NewConsensus returns a Consensus monitor of a cluster with nothing
// observed yet.
func NewConsensus() *Consensus {
	return &Consensus{servers: map[sim.NodeID]*watched{}, leaders: map[int64][]leadership{}, entries: map[[2]int64]matched{}}
}

// WatchConsensus hooks a Consensus monitor into w: after every step it
// observes each of servers whose status (sim.Proc.SetStatus) changed, a
// ServerState or a *ServerState, nil for a server that crashed or has said
// nothing since it booted. A status of any other type is a violation
// (status-not-understood).
func WatchConsensus(w *sim.World, servers []sim.NodeID) *Consensus {
	c := NewConsensus()
	versions := make([]uint64, len(servers))
	w.OnStep(func() {
		if c.first != nil {
			return
		}
		c.steps++
		for i, id := range servers {
			v, version := w.Status(id)
			if version == versions[i] {
				continue
			}
			versions[i] = version
			switch st := v.(type) {
			case nil:
				c.Observe(w.Now(), id, nil)
			case ServerState:
				c.Observe(w.Now(), id, &st)
			case *ServerState:
				c.Observe(w.Now(), id, st)
			default:
				c.fail(&Violation{Clause: course.OneHistory, Name: "status-not-understood", At: w.Now(), Servers: []string{string(id)},
					Story: fmt.Sprintf("%s said about itself a %T; a server says a check.ServerState (its term, role, log and commit) with p.SetStatus", id, v)})
			}
		}
	})
	return c
}

// Steps is the number of steps the monitor was run after (WatchConsensus).
func (c *Consensus) Steps() int { return c.steps }

// Violation is the first violation found, or nil.
func (c *Consensus) Violation() *Violation { return c.first }

// Leaders lists every leader seen, by term, one line a term, every leader
// of the term on it in the order seen: "term 2: server-3 from 1210ms", or
// for a term with two, "term 2: server-2 from 2290ms and server-3 from
// 2310ms". A leader known from an Append it sent (Led) is marked so.
func (c *Consensus) Leaders() []string {
	terms := make([]int64, 0, len(c.leaders))
	for t := range c.leaders {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	out := make([]string, len(terms))
	for i, t := range terms {
		var each []string
		for _, l := range c.leaders[t] {
			one := fmt.Sprintf("%s from %s", l.server, formatTime(l.at))
			if l.sent {
				one += " (by an Append it sent)"
			}
			each = append(each, one)
		}
		out[i] = fmt.Sprintf("term %d: %s", t, strings.Join(each, " and "))
	}
	return out
}

// Led tells the monitor that server id, at virtual time at, sent a message
// only a leader of term sends (an Append): whatever it says of itself, it
// acted as leader of term, and election safety counts it so. It returns
// the first violation so far.
func (c *Consensus) Led(at time.Duration, id sim.NodeID, term int64) *Violation {
	if c.first != nil {
		return c.first
	}
	c.lead(term, leadership{id, at, true})
	return c.first
}

// lead notes l as a leader of term, and finds a second leader of it.
func (c *Consensus) lead(term int64, l leadership) {
	ls := c.leaders[term]
	if slices.ContainsFunc(ls, func(x leadership) bool { return x.server == l.server }) {
		return
	}
	c.leaders[term] = append(ls, l)
	if len(ls) == 0 {
		return
	}
	first := ls[0]
	became := "became leader of term " + fmt.Sprint(term)
	if l.sent {
		became = fmt.Sprintf("sent an Append as leader of term %d", term)
	}
	c.fail(&Violation{Clause: course.OneHistory, Name: "two-leaders-one-term", At: l.at, Servers: []string{string(l.server), string(first.server)},
		Story: fmt.Sprintf("at %s %s %s, but %s has led term %d %s: two leaders of one term can each put a different change at the same index",
			formatTime(l.at), l.server, became, first.server, term, first.since(term))})
}

// Terms is how many distinct terms had a leader.
func (c *Consensus) Terms() int { return len(c.leaders) }

// Committed is how many entries some server has said are committed.
func (c *Consensus) Committed() int { return len(c.committed) }

func (c *Consensus) fail(v *Violation) {
	if c.first == nil {
		if v.Details == "" {
			v.Details = "the leaders of each term, as the servers said:\n  " + strings.Join(c.Leaders(), "\n  ") + "\n"
		}
		c.first = v
	}
}

// Observe takes what server id says about itself at virtual time at (nil:
// it crashed, or has said nothing since it booted) and returns the first
// violation so far.
func (c *Consensus) Observe(at time.Duration, id sim.NodeID, st *ServerState) *Violation {
	if c.first != nil {
		return c.first
	}
	s := c.servers[id]
	if s == nil {
		s = &watched{}
		c.servers[id] = s
	}
	if st == nil {
		s.last = nil
		return nil
	}
	prev := s.last
	if st.Term < s.maxTerm {
		c.fail(&Violation{Clause: course.DurableAgreement, Name: "term-went-back", At: at, Servers: []string{string(id)},
			Story: fmt.Sprintf("at %s %s says it is in term %d, but it said term %d at %s: a term (and the vote cast in it) that a restart forgets lets a server vote twice in one term",
				formatTime(at), id, st.Term, s.maxTerm, formatTime(s.maxSince))})
		return c.first
	}
	if st.Term > s.maxTerm {
		s.maxTerm, s.maxSince = st.Term, at
	}
	// The first index whose entry changed since the server's last word.
	var old []LogEntry
	var oldCommit int64
	if prev != nil {
		old, oldCommit = prev.Log, prev.Commit
	}
	d := 0
	for d < len(old) && d < len(st.Log) && old[d] == st.Log[d] {
		d++
	}
	leading := st.Role == Leader
	wasLeading := prev != nil && prev.Role == Leader && prev.Term == st.Term
	if wasLeading && leading && d < len(old) {
		c.fail(&Violation{Clause: course.DurableAgreement, Name: "leader-rewrote-its-log", At: at, Servers: []string{string(id)},
			Story: fmt.Sprintf("at %s %s, leader of term %d, changed entry %d of its own log (%s): a leader only ever appends",
				formatTime(at), id, st.Term, d+1, describeEntry(old[d]))})
		return c.first
	}
	if int64(d) < min(oldCommit, int64(len(old))) {
		c.fail(&Violation{Clause: course.DurableAgreement, Name: "committed-entry-deleted", At: at, Servers: []string{string(id)},
			Story: fmt.Sprintf("at %s %s replaced entry %d of its log (%s), which it had said was committed (commit %d): a committed entry is the one history and stays",
				formatTime(at), id, d+1, describeEntry(old[d]), oldCommit)})
		return c.first
	}
	if leading {
		if c.lead(st.Term, leadership{server: id, at: at}); c.first != nil {
			return c.first
		}
	}
	// Log matching, for the entries that changed.
	for i := d; i < len(st.Log); i++ {
		e := st.Log[i]
		var prevTerm int64
		if i > 0 {
			prevTerm = st.Log[i-1].Term
		}
		key := [2]int64{int64(i + 1), e.Term}
		m, ok := c.entries[key]
		if !ok {
			c.entries[key] = matched{entry: e, prevTerm: prevTerm, server: id, at: at}
			continue
		}
		if m.entry != e {
			c.fail(&Violation{Clause: course.OneHistory, Name: "divergent-history", At: at, Servers: []string{string(id), string(m.server)},
				Story: fmt.Sprintf("at %s %s holds at index %d an entry of term %d, %s, but %s has held a different one there since %s, %s: one term put two changes at one index",
					formatTime(at), id, i+1, e.Term, e.What, m.server, formatTime(m.at), m.entry.What)})
			return c.first
		}
		if m.prevTerm != prevTerm {
			c.fail(&Violation{Clause: course.OneHistory, Name: "divergent-history", At: at, Servers: []string{string(id), string(m.server)},
				Story: fmt.Sprintf("at %s %s and %s hold the same entry %d (term %d), but the entries before it differ: term %d on %s, term %d on %s; a follower took entries without checking that its log matched the leader's up to them",
					formatTime(at), id, m.server, i+1, e.Term, prevTerm, id, m.prevTerm, m.server)})
			return c.first
		}
	}
	// State machine safety, for what it newly says is committed.
	commit := min(st.Commit, int64(len(st.Log)))
	from := int64(0)
	if prev != nil {
		from = min(prev.Commit, int64(len(prev.Log)))
	}
	from = min(from, int64(d)) // a changed entry is checked again
	var fresh []int64
	for i := from + 1; i <= commit; i++ {
		e := st.Log[i-1]
		if i <= int64(len(c.committed)) {
			if c.committed[i-1] != e {
				by := c.committedBy[i-1]
				c.fail(&Violation{Clause: course.OneHistory, Name: "committed-differently", At: at, Servers: []string{string(id), string(by.server)},
					Story: fmt.Sprintf("at %s %s committed %s (term %d) as entry %d, but %s had committed %s (term %d) there at %s: two histories, each called committed",
						formatTime(at), id, e.What, e.Term, i, by.server, c.committed[i-1].What, c.committed[i-1].Term, formatTime(by.at))})
				return c.first
			}
			continue
		}
		c.committed = append(c.committed, e)
		c.committedBy = append(c.committedBy, leadership{server: id, at: at})
		fresh = append(fresh, i)
	}
	s.last = &ServerState{Term: st.Term, Role: st.Role, Log: st.Log, Commit: st.Commit}
	// Leader completeness: a leader just elected holds every committed
	// entry; every leader of a later term holds an entry just committed.
	if leading && !wasLeading {
		for i := range c.committed {
			if v := c.lacks(at, id, st, int64(i+1)); v != nil {
				return v
			}
		}
	}
	for _, i := range fresh {
		for other, o := range c.servers {
			if o.last != nil && o.last.Role == Leader && o.last.Term > c.committed[i-1].Term {
				if v := c.lacks(at, other, o.last, i); v != nil {
					return v
				}
			}
		}
	}
	return nil
}

// lacks is the violation of leader completeness if leader, in st, lacks
// committed entry i.
func (c *Consensus) lacks(at time.Duration, leader sim.NodeID, st *ServerState, i int64) *Violation {
	e, by := c.committed[i-1], c.committedBy[i-1]
	if i <= int64(len(st.Log)) && st.Log[i-1] == e {
		return nil
	}
	has := "its log ends at entry " + fmt.Sprint(len(st.Log))
	if i <= int64(len(st.Log)) {
		has = fmt.Sprintf("it holds %s (term %d) there", st.Log[i-1].What, st.Log[i-1].Term)
	}
	c.fail(&Violation{Clause: course.DurableAgreement, Name: "leader-lacks-committed-entry", At: at, Servers: []string{string(leader), string(by.server)},
		Story: fmt.Sprintf("at %s %s leads term %d without entry %d, %s (term %d), which %s had committed at %s: %s; a server whose log is behind must not win a vote",
			formatTime(at), leader, st.Term, i, e.What, e.Term, by.server, formatTime(by.at), has)})
	return c.first
}

// describeEntry is "term 2: update deployments/web{replicas=7}".
func describeEntry(e LogEntry) string { return fmt.Sprintf("term %d: %s", e.Term, e.What) }
