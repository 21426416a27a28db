package ex03suite

// The lagging copy: a broken cluster whose fault shows only to a drill that
// reads a write back from the server that did not take it, soon after it
// was acknowledged. Each server reads its own writes, refuses honestly while
// its peer is away, and catches up from it before it answers again; the two
// hold the same thing in the end. Only the copy to the other server lags.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

const (
	// copyLag is how long a server of the lagging cluster holds a create or
	// an update it acknowledged before it sends it to the other server.
	copyLag = 150 * time.Millisecond
	// retryCopy is how soon it sends a copy again that did not arrive.
	retryCopy = 20 * time.Millisecond
	// keepEvery is how often a server asks the other whether it is there.
	keepEvery = 50 * time.Millisecond
)

// laggingCopy is the cluster whose lag only a read from the other server
// shows: a drill that reads a write back only where it wrote it, reads
// during faults (refused) and audits once everything is over (the servers
// agree by then) sees one history.
var laggingCopy = cluster{
	name:   "a lagging copy",
	broken: true,
	does: fmt.Sprintf("lets each server take a create or an update into its own copy and acknowledge it at once, and sends it to the other server %s later, "+
		"so for that long the other server answers reads with the old value (server-1 decides which names exist: server-2 hands it creates and updates of names it does not hold yet, keeps the answer, "+
		"and server-1 shows them only that much later; deletes wait for both servers); "+
		"a server reads its own writes, refuses reads while the other server is away and catches up from it before it answers again, "+
		"and once the faults are over the two hold the same thing", copyLag),
	lacks: lacksReadFromTheOther,
	boot:  bootLagging,
}

// lacksReadFromTheOther says what the drill did not do with server-1's
// writes, the ones that reach server-2 late (server-2 hands its creates to
// server-1 at once): it read one back from server-2 in time and got the old
// value, and never held the answers against one history; it sent such
// reads and had none answered; or it never sent one. "" when it read one
// back in time and was answered with the write.
func lacksReadFromTheOther(w *world) string {
	cs := calls(w)
	var ws []*call // server-1's acknowledged creates and updates
	for _, u := range cs {
		if u.ok && u.server == server1 && (isCreate(u.req) || isUpdate(u.req)) {
			ws = append(ws, u)
		}
	}
	// in is the reads of u's key from server-2 within copyLag of u.
	in := func(u *call) []*call {
		var out []*call
		for _, r := range cs {
			if r.server == server2 && r.at >= u.answered && r.at < u.answered+copyLag && reads(r.req, keyOf(u.req)) {
				out = append(out, r)
			}
		}
		return out
	}
	for _, u := range ws {
		wrote, _ := u.reply.(kube.Object)
		for _, r := range in(u) {
			got, isObj := r.reply.(kube.Object)
			if errors.Is(r.err, kube.ErrNotFound) || r.ok && isObj && got.ResourceVersion < wrote.ResourceVersion {
				saw := "nothing (NotFound)"
				if r.ok {
					saw = got.String()
				}
				return fmt.Sprintf("read %s from server-2 at %s and got %s, %s after server-1 had acknowledged %s to %s: "+
					"two answers no single history explains, which it never held against one",
					keyOf(u.req), sim.FormatTime(r.at), saw, sim.FormatTime(r.at-u.answered), wrote, u.client)
			}
		}
	}
	sent := 0 // reads of server-1's writes from server-2 in time, by their writer, unanswered
	for _, u := range ws {
		for _, r := range in(u) {
			switch {
			case r.client != u.client:
			case r.ok:
				return ""
			default:
				sent++
			}
		}
	}
	switch {
	case len(ws) == 0:
		return "never had a create or an update acknowledged by server-1"
	case sent > 0:
		return fmt.Sprintf("sent %d reads of server-1's acknowledged writes to server-2 within %s of the acknowledgement, "+
			"but had none of them answered (it gave up on each, or was refused: server-2 asks server-1 before it answers)", sent, copyLag)
	}
	return fmt.Sprintf("never read one of the %d writes server-1 acknowledged back from server-2 within %s of its acknowledgement", len(ws), copyLag)
}

func isCreate(req any) bool { _, ok := req.(kube.CreateRequest); return ok }
func isUpdate(req any) bool { _, ok := req.(kube.UpdateRequest); return ok }

// reads reports whether req reads key: a Get of it, or a List of its kind.
func reads(req any, key string) bool {
	switch r := req.(type) {
	case kube.GetRequest:
		return r.Key == key
	case kube.ListRequest:
		return strings.HasPrefix(key, r.Kind+"/")
	}
	return false
}

type (
	// Sync is one server of the lagging cluster handing the other every
	// change it holds; the answer is every change the other holds.
	Sync struct{ Changes []change }
	// Lagged carries one change to the other server of the lagging
	// cluster, sent copyLag after it was acknowledged.
	Lagged struct{ Change change }
)

func (m Lagged) String() string { return "Lagged{" + m.Change.Object.String() + "}" }

// change is the latest change to a key, as the lagging cluster keeps it: the
// object with its resourceVersion, a stamp from the time it was made that
// orders it against the other server's changes, or its deletion.
type change struct {
	Object  kube.Object
	Deleted bool
}

// newer reports whether c replaces old: the later stamp wins.
func (c change) newer(old change, had bool) bool {
	return !had || c.Object.ResourceVersion > old.Object.ResourceVersion
}

// laggingServer is one server of the lagging cluster: the latest change to
// each key, logged to its disk before it counts.
type laggingServer struct {
	self, peer sim.NodeID
	index      int64 // 0 for server-1, 1 for server-2: the stamps never tie
	changes    map[string]change
	shown      map[string]shown // server-1: writes server-2 handed it, not shown yet
	wal        *sim.File
	mu         sim.Mutex // one write at a time decides against what the server holds
	inTouch    bool      // it has caught up from the peer since it booted or last failed to reach it
}

// bootLagging: each server keeps the latest change to every key on its own
// disk; a create or an update is acknowledged once the server that took it
// logged it, and sent on copyLag later (again until it arrives); a delete
// waits for the other server too; server-1 decides which names exist.
// Reads are answered from the server's own changes once it has asked the
// other whether it is there, and caught up from it if it was away.
func bootLagging(p *sim.Proc, self sim.NodeID, _ []sim.NodeID) {
	s := &laggingServer{self: self, peer: peerOf(self), changes: map[string]change{}, shown: map[string]shown{}, wal: p.Disk().Open("wal"), mu: sim.Mutex{Name: "lagging"}}
	if self == server2 {
		s.index = 1
	}
	for _, line := range bytes.SplitAfter(s.wal.ReadAll(), []byte("\n")) {
		var c change // a record without its newline is a torn last one
		if !bytes.HasSuffix(line, []byte("\n")) || decodeRecord(line, &c) != nil {
			break
		}
		s.merge(p, c, false)
	}
	p.Go("keep in touch", s.keep)
	p.Serve(s.serve)
}

// merge keeps c if it is newer than what the server holds for its key,
// and logs it if log. It decides and keeps at once, without yielding: no
// other process of the server can slip between the two.
func (s *laggingServer) merge(p *sim.Proc, c change, log bool) {
	k := c.Object.Key()
	if old, had := s.changes[k]; !c.newer(old, had) {
		return
	}
	s.changes[k] = c
	if log {
		line, _ := json.Marshal(c)
		s.wal.Append(append(line, '\n'))
		s.wal.Sync(p)
	}
}

func (s *laggingServer) serve(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	switch m := req.(type) {
	case Ping:
		return nil, nil
	case Lagged:
		s.merge(p, m.Change, true)
		return nil, nil
	case Sync:
		for _, c := range m.Changes {
			s.merge(p, c, true)
		}
		return Sync{Changes: s.all()}, nil
	case kube.GetRequest, kube.ListRequest:
		if !s.inTouch {
			if err := s.sync(p); err != nil {
				return nil, err
			}
			return s.read(req)
		}
		// The answer is what the server held when the read arrived; it
		// only asks the peer whether it is there before it sends it.
		reply, err := s.read(req)
		if _, perr := p.Call(s.peer, Ping{}, pingTimeout); perr != nil {
			s.inTouch = false
			return nil, kube.Unavailable(fmt.Sprintf("%s cannot reach %s: refusing reads until it has caught up", s.self, s.peer))
		}
		return reply, err
	case kube.WatchRequest:
		return nil, kube.Unavailable("this cluster serves no watches")
	case kube.CreateRequest, kube.UpdateRequest, kube.DeleteRequest:
		return s.write(p, from, req)
	}
	return nil, fmt.Errorf("%s does not understand %T", s.self, req)
}

// all is every change the server holds, by key: a Sync carries them in
// that order and the peer logs them in it, so that a seed's world is the
// same world every time it is run (a map's order is drawn anew each time).
func (s *laggingServer) all() []change {
	return slices.SortedFunc(maps.Values(s.changes), func(a, b change) int { return cmp.Compare(a.Object.Key(), b.Object.Key()) })
}

// sync hands the peer every change the server holds and keeps every newer
// one the peer holds: once it has, the two hold the same.
func (s *laggingServer) sync(p *sim.Proc) error {
	reply, err := p.Call(s.peer, Sync{Changes: s.all()}, pingTimeout)
	theirs, ok := reply.(Sync)
	if err != nil || !ok {
		return kube.Unavailable(fmt.Sprintf("%s cannot reach %s: refusing reads until it has caught up", s.self, s.peer))
	}
	for _, c := range theirs.Changes {
		s.merge(p, c, true)
	}
	s.inTouch, s.shown = true, map[string]shown{} // caught up: it shows everything it holds
	return nil
}

// shown is what server-1's reads show for a key instead of what it holds,
// while a write server-2 handed it is not yet to be seen there: the change
// before it (had: there was one), until copyLag after the change at until.
type shown struct {
	c     change
	had   bool
	until int64
}

// hide keeps a write that server-2 handed server-1 out of server-1's reads
// for copyLag, as though it had reached server-1 the way every other write
// reaches the other server; server-1's own writes show at once.
func (s *laggingServer) hide(p *sim.Proc, from sim.NodeID, c change, old change, had bool) {
	k := c.Object.Key()
	if from != s.peer || c.Deleted { // a delete waits for both servers: it shows at once
		delete(s.shown, k)
		return
	}
	prev, hiding := s.shown[k]
	if !hiding {
		prev = shown{c: old, had: had}
	}
	prev.until = c.Object.ResourceVersion
	s.shown[k] = prev
	p.Go("show", func(p *sim.Proc) {
		p.Sleep(copyLag)
		if s.shown[k].until == c.Object.ResourceVersion {
			delete(s.shown, k)
		}
	})
}

// keep asks the peer whether it is there every keepEvery, and catches up
// from it once it is back: what the servers hold agrees once the faults are
// over even if no one reads.
func (s *laggingServer) keep(p *sim.Proc) {
	for ; ; p.Sleep(keepEvery) {
		if s.inTouch {
			if _, err := p.Call(s.peer, Ping{}, pingTimeout); err != nil {
				s.inTouch = false
			}
			continue
		}
		s.sync(p) //nolint:errcheck // again at the next beat
	}
}

// read answers a Get or a List from the server's own changes.
func (s *laggingServer) read(req any) (any, error) {
	live := replica{}
	for k, c := range s.changes {
		if h, hidden := s.shown[k]; hidden {
			c = h.c
			if !h.had {
				continue
			}
		}
		if !c.Deleted {
			live[k] = c.Object
		}
	}
	if q, ok := req.(kube.GetRequest); ok {
		return live.get(q.Key)
	}
	rv := int64(0) // the newest change's, shown or not
	for _, c := range s.changes {
		rv = max(rv, c.Object.ResourceVersion)
	}
	return live.list(req.(kube.ListRequest).Kind, rv), nil
}

// write decides a write against the server's own changes, stamps it with
// the time, logs it and acknowledges it: a create or an update at once,
// sent on to the peer copyLag later; a delete once the peer has it too.
// server-1 decides which names exist: server-2 hands it a create, a delete,
// and an update of a name it does not hold yet, and keeps the answer; the
// write then shows in server-1's reads only copyLag later (hide), as any
// write reaches the other server, except a delete.
func (s *laggingServer) write(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	if s.self == server2 && !s.holds(req) {
		reply, err := forward(p, server1, req)
		if o, ok := reply.(kube.Object); ok && err == nil {
			_, deleted := req.(kube.DeleteRequest)
			s.merge(p, change{Object: o, Deleted: deleted}, true) // it reads its own writes
		}
		return reply, err
	}
	s.mu.Lock(p)
	var c change
	var err error
	switch q := req.(type) {
	case kube.CreateRequest:
		if old, ok := s.changes[q.Object.Key()]; ok && !old.Deleted {
			err = kube.AlreadyExists(q.Object.Key())
		}
		c.Object = q.Object
	case kube.UpdateRequest:
		old, ok := s.changes[q.Object.Key()]
		switch {
		case !ok || old.Deleted:
			err = kube.NotFound(q.Object.Key())
		case q.Object.ResourceVersion != 0 && q.Object.ResourceVersion != old.Object.ResourceVersion:
			err = kube.Conflict(q.Object.Key(), q.Object.ResourceVersion, old.Object.ResourceVersion)
		}
		c.Object = q.Object
	case kube.DeleteRequest:
		old, ok := s.changes[q.Key]
		switch {
		case !ok || old.Deleted:
			err = kube.NotFound(q.Key)
		case q.ResourceVersion != 0 && q.ResourceVersion != old.Object.ResourceVersion:
			err = kube.Conflict(q.Key, q.ResourceVersion, old.Object.ResourceVersion)
		}
		c = change{Object: old.Object, Deleted: true}
	}
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	c.Object.ResourceVersion = int64(p.Now()/time.Microsecond)*2 + s.index
	if old, ok := s.changes[c.Object.Key()]; ok {
		c.Object.ResourceVersion = max(c.Object.ResourceVersion, old.Object.ResourceVersion+2)
	}
	if c.Deleted {
		// A delete waits for both servers: a name must not come back.
		if _, err := p.Call(s.peer, Lagged{Change: c}, pingTimeout); err != nil {
			if errors.Is(err, sim.ErrTimeout) { // the peer may hold it: so does this server, until they catch up
				s.merge(p, c, true)
				s.inTouch = false
			}
			s.mu.Unlock()
			if errors.Is(err, sim.ErrTimeout) {
				return nil, asAPIError(s.peer, err)
			}
			return nil, kube.Unavailable(fmt.Sprintf("%s cannot reach %s: refusing deletes", s.self, s.peer))
		}
	}
	old, had := s.changes[c.Object.Key()]
	s.merge(p, c, true)
	s.hide(p, from, c, old, had)
	s.mu.Unlock()
	if !c.Deleted {
		p.Go("send on", func(p *sim.Proc) {
			for p.Sleep(copyLag); ; p.Sleep(retryCopy) {
				if _, err := p.Call(s.peer, Lagged{Change: c}, pingTimeout); err == nil {
					return
				}
			}
		})
	}
	return c.Object, nil
}

// holds reports whether the server may decide req itself: an update of a
// name it holds. server-1 decides everything else.
func (s *laggingServer) holds(req any) bool {
	u, ok := req.(kube.UpdateRequest)
	if !ok {
		return false
	}
	c, held := s.changes[u.Object.Key()]
	return held && !c.Deleted
}
