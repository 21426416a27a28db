package ex08

import (
	"fmt"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Copy carries one server's copy of one object to another server: the last
// change it holds for the object, and the time that server's clock read
// when the change was written there. Deleted objects travel as well, as
// Deleted events, so that a deletion can win too.
type Copy struct {
	Event kube.Event
	Stamp time.Duration
}

// Repair carries every copy a server holds to another server, for the
// repair job.
type Repair struct {
	Copies []Copy
}

// repairEvery is how often each server sends all its copies to every other
// server.
const repairEvery = 250 * time.Millisecond

// Serve runs one API server of the cluster on p's node: the hidden suite
// calls it as the boot function of every server, at start and after every
// restart. self is this server; servers lists every server, self included,
// in the same order on every server. It answers the kube wire messages
// (GetRequest, ListRequest, CreateRequest, UpdateRequest, DeleteRequest,
// WatchRequest) and the messages the servers send each other.
//
// As shipped, every server is a full copy that takes writes on its own. A
// write is stamped with the server's clock, applied, acknowledged at once
// and copied to the others; a repair job sends every copy to every server
// again and again, and the copy with the later stamp wins (last writer
// wins). The copies do converge. But a stamp is one machine's clock, and
// clocks are skewed: a server whose clock runs ahead stamps an early write
// later than a write that came after it, and when the copies agree, they
// agree on the early one. The acknowledged later write is gone from every
// copy, and no copy can tell.
//
// TODO(ex08): replace the copies with one history: a log with a fixed
// leader, servers[0]. See doc.go for what it must do.
func Serve(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
	s := &server{self: self, servers: servers, h: newHistory(), latest: map[string]Copy{}}
	p.Go("repair", s.repair)
	p.Serve(s.handle)
}

// server is one API server and its own copy of the cluster. Nothing of it
// is on the disk: a restarted server starts empty and waits for repairs.
type server struct {
	self    sim.NodeID
	servers []sim.NodeID
	h       *history
	latest  map[string]Copy // the last change to each key and its stamp
}

// handle answers one request, from a client or from another server.
func (s *server) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	switch r := req.(type) {
	case kube.GetRequest:
		// TODO(ex08): a Latest read must reflect every acknowledged write;
		// this copy may not hold them all.
		return s.h.get(r.Key)
	case kube.ListRequest:
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

	case Copy:
		s.merge(p, r)
		return nil, nil
	case Repair:
		for _, c := range r.Copies {
			s.merge(p, c)
		}
		return nil, nil
	}
	return nil, fmt.Errorf("%s: unknown request %T", s.self, req)
}

// write decides w against this server's copy, stamps it with this server's
// clock, applies it, copies it to every other server and says yes.
//
// TODO(ex08): a yes here is one machine's opinion. Say yes only once the
// write is an entry of the one log, synced on a majority of the servers.
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	ev, err := s.h.decide(w)
	if err != nil {
		return kube.Object{}, err
	}
	ev = s.h.apply(ev)
	c := Copy{Event: ev, Stamp: p.Clock()}
	p.Logf("%s=%d stamped %s", ev.Object.Name, ev.Object.Replicas, ms(c.Stamp))
	s.latest[ev.Object.Key()] = c
	for _, peer := range s.servers {
		if peer != s.self {
			p.Send(peer, c)
		}
	}
	return ev.Object, nil
}

// merge keeps c if it is newer, by its stamp, than this server's copy of
// the same object: last writer wins.
func (s *server) merge(p *sim.Proc, c Copy) {
	key := c.Event.Object.Key()
	mine, ok := s.latest[key]
	if ok && mine.Stamp >= c.Stamp {
		return
	}
	if ok {
		p.Logf("%d@%s beats %d@%s", c.Event.Object.Replicas, ms(c.Stamp), mine.Event.Object.Replicas, ms(mine.Stamp))
	}
	s.latest[key] = Copy{Event: s.h.apply(c.Event), Stamp: c.Stamp}
}

// repair sends every copy this server holds to every other server, every
// repairEvery, so that a server that missed a change gets it later.
func (s *server) repair(p *sim.Proc) {
	for {
		p.Sleep(repairEvery)
		copies := make([]Copy, 0, len(s.latest))
		for _, ev := range s.h.events { // in order, each key once: its latest copy
			if c := s.latest[ev.Object.Key()]; c.Event.Object.ResourceVersion == ev.Object.ResourceVersion {
				copies = append(copies, c)
			}
		}
		for _, peer := range s.servers {
			if peer != s.self {
				p.Send(peer, Repair{Copies: copies})
			}
		}
	}
}

// ms prints a stamp in milliseconds, to a tenth: "1404.9".
func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }
