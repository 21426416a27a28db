package ex04

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Replicate carries a change one server accepted to the other server. Its
// Object.ResourceVersion is the position the sender gave it; the reply is
// the receiver's position (an int64) once it holds the change.
type Replicate struct {
	Event kube.Event
}

// String is "Replicate web=5 at rv 2", for the timeline.
func (r Replicate) String() string {
	return fmt.Sprintf("Replicate %s at rv %d", short(r.Event), r.Event.Object.ResourceVersion)
}

// ReadIndex asks a server how far its history goes; the reply is its
// position, an int64.
type ReadIndex struct{}

// peerTimeout bounds one call to the other server. It is longer than a
// round trip over the chapter's slowest link (400ms each way), so a call
// that times out was most likely lost, and is worth sending again.
const peerTimeout = time.Second

// Serve runs one API server of the cluster on p's node: the hidden suite
// calls it as the boot function of "server-1" and of "server-2". self is this
// server; servers lists every server, self included, in the same order on
// every server. It answers the kube wire messages (GetRequest, ListRequest,
// CreateRequest, UpdateRequest, DeleteRequest, WatchRequest), Replicate and
// ReadIndex.
//
// A WatchRequest from ResourceVersion 0 returns the server's whole history
// (see history.watch, and how it differs from Kubernetes): that is how the
// hidden suite compares the servers' histories.
func Serve(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
	s := &server{self: self, servers: servers, h: newHistory()}
	p.Serve(s.handle)
}

// server is one API server and its own copy of the history.
//
// Each request runs as its own process, and only one process of the world
// runs at a time, so a server needs no lock; but anything read before a
// blocking call (p.Call, s.h.changed.Wait) may have changed when it returns.
type server struct {
	self    sim.NodeID
	servers []sim.NodeID
	h       *history
}

// handle answers one request, from a client or from the other server.
func (s *server) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	switch r := req.(type) {
	case kube.GetRequest:
		return s.get(p, r.Key, r.Opts)
	case kube.ListRequest:
		return s.list(p, r.Kind, r.Opts)
	case kube.WatchRequest:
		return s.h.watch(p, r.Kind, r.ResourceVersion, r.Wait), nil
	case kube.CreateRequest:
		return s.write(p, Write{Op: Create, Object: r.Object})
	case kube.UpdateRequest:
		return s.write(p, Write{Op: Update, Object: r.Object})
	case kube.DeleteRequest:
		kind, name := kube.SplitKey(r.Key)
		return s.write(p, Write{Op: Delete, Object: kube.Object{Kind: kind, Name: name, ResourceVersion: r.ResourceVersion}})
	case Replicate:
		return s.receive(p, r.Event), nil
	case ReadIndex:
		return s.h.position(), nil
	}
	return nil, fmt.Errorf("%s: unknown request %T", s.self, req)
}

// write accepts one client write and returns the object as stored (for a
// Delete, as it was, with the deletion's ResourceVersion). Accepted means
// readable everywhere: the client hears yes only once every other server
// has applied the change.
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	ev, err := s.h.apply(w)
	if err != nil {
		return kube.Object{}, err
	}
	for _, peer := range s.servers {
		if peer != s.self {
			s.replicate(p, peer, ev)
		}
	}
	p.Logf("yes: %s at rv %d, on every server", short(ev), ev.Object.ResourceVersion)
	return ev.Object, nil
}

// replicate sends one change to peer until peer answers that it holds it.
// A lost message, or a lost answer, only costs another try: receive ignores
// a change it already holds.
func (s *server) replicate(p *sim.Proc, peer sim.NodeID, ev kube.Event) {
	ask(p, peer, Replicate{Event: ev})
}

// ask calls peer with msg until it answers, and returns the answer. A call
// that times out is sent again at once (the message or its answer was lost,
// or is late: the peer's handlers take a repeat in their stride); a peer
// that refuses (it is down) is asked again after a pause.
func ask(p *sim.Proc, peer sim.NodeID, msg any) any {
	for {
		reply, err := p.Call(peer, msg, peerTimeout)
		if err == nil {
			return reply
		}
		if !errors.Is(err, sim.ErrTimeout) {
			p.Sleep(peerTimeout)
		}
	}
}

// receive applies a change from the other server at the position its
// sender gave it, and returns this server's position once it holds it.
// Changes travel over links that reorder and repeat messages: one that
// arrives before the change in front of it waits for it, and one already
// applied is not applied again.
func (s *server) receive(p *sim.Proc, ev kube.Event) int64 {
	pos := ev.Object.ResourceVersion
	for s.h.position() < pos-1 {
		s.h.changed.Wait(p)
	}
	if s.h.position() == pos-1 {
		s.h.append(ev) // keeps its position: it is exactly the next one
		p.Logf("applied %s as rv %d", short(ev), pos)
	}
	return s.h.position()
}

// get answers a read of one object. A kube.Any read is served from whatever
// this server has applied; a kube.Latest read first catches up (see
// catchUp).
func (s *server) get(p *sim.Proc, key string, opts kube.ReadOptions) (kube.Object, error) {
	s.catchUp(p, opts)
	return s.h.get(key)
}

// list answers a read of every object of kind, with the same promise as
// get.
func (s *server) list(p *sim.Proc, kind string, opts kube.ReadOptions) (kube.List, error) {
	s.catchUp(p, opts)
	return s.h.list(kind), nil
}

// catchUp makes a kube.Latest read consistent. A server applies its own
// clients' writes, and shows them to its readers, before the other server
// has them, so a Latest read first asks every other server how far its
// history goes (its read index) and waits until this server's copy has got
// that far. Every write acknowledged before the read began, and everything
// another reader has been shown, is then in the copy it reads. A kube.Any
// read skips this: it may be stale by definition.
func (s *server) catchUp(p *sim.Proc, opts kube.ReadOptions) {
	if opts.ResourceVersion == kube.Any {
		return
	}
	for _, peer := range s.servers {
		if peer == s.self {
			continue
		}
		index := ask(p, peer, ReadIndex{}).(int64)
		for s.h.position() < index {
			s.h.changed.Wait(p)
		}
	}
}

// short tells a change in a few words, for the timeline: "web=5",
// "delete web".
func short(ev kube.Event) string {
	if ev.Type == kube.Deleted {
		return "delete " + ev.Object.Name
	}
	return fmt.Sprintf("%s=%v", ev.Object.Name, ev.Object.Value())
}
