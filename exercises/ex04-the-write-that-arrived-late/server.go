package ex04

import (
	"fmt"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Replicate carries a change one server accepted to the other server, which
// applies it when it arrives.
type Replicate struct {
	Event kube.Event
}

// String is "Replicate web=5 at rv 2", for the timeline.
func (r Replicate) String() string {
	return fmt.Sprintf("Replicate %s at rv %d", short(r.Event), r.Event.Object.ResourceVersion)
}

// Serve runs one API server of the cluster on p's node: the hidden suite
// calls it as the boot function of "server-1" and of "server-2". self is this
// server; servers lists every server, self included, in the same order on
// every server. It answers the kube wire messages (GetRequest, ListRequest,
// CreateRequest, UpdateRequest, DeleteRequest, WatchRequest) and whatever
// messages the servers send each other.
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

	// TODO(ex04): a change from the other server is appended the moment it
	// arrives, at this server's own next position. Links reorder messages
	// and may lose or repeat them: a change that overtakes the one before
	// it lands in the wrong place, and one that arrives twice is applied
	// twice. Apply each change at the position its sender gave it.
	case Replicate:
		ev := s.h.append(r.Event)
		p.Logf("applied %s as rv %d", short(ev), ev.Object.ResourceVersion)
		return nil, nil
	}
	return nil, fmt.Errorf("%s: unknown request %T", s.self, req)
}

// write accepts one client write and returns the object as stored (for a
// Delete, as it was, with the deletion's ResourceVersion). Its answer is
// what the client is told: the stored object means "accepted".
//
// TODO(ex04): the client hears "accepted" at once, while the change is
// still on its way to the other server, which goes on answering reads from
// a copy that does not have it; and if that one message is lost, or this
// server dies before it arrives, the other server never has it at all. Do
// not answer until every other server has applied the change.
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	ev, err := s.h.apply(w)
	if err != nil {
		return kube.Object{}, err
	}
	p.Logf("yes: %s at rv %d", short(ev), ev.Object.ResourceVersion)
	for _, peer := range s.servers {
		if peer != s.self {
			p.Send(peer, Replicate{Event: ev})
		}
	}
	return ev.Object, nil
}

// get answers a read of one object. A kube.Latest read must reflect every
// write acknowledged before it began, on any server, and everything any
// reader has already been shown; a kube.Any read may be served from
// whatever this server has applied.
//
// TODO(ex04): this server answers every read from its own copy, which may
// not yet hold a change the other server has already shown or acknowledged.
func (s *server) get(p *sim.Proc, key string, opts kube.ReadOptions) (kube.Object, error) {
	return s.h.get(key)
}

// list answers a read of every object of kind, with the same promise as
// get.
//
// TODO(ex04): the same stale copy as in get.
func (s *server) list(p *sim.Proc, kind string, opts kube.ReadOptions) (kube.List, error) {
	return s.h.list(kind), nil
}

// short tells a change in a few words, for the timeline: "web=5",
// "delete web".
func short(ev kube.Event) string {
	if ev.Type == kube.Deleted {
		return "delete " + ev.Object.Name
	}
	return fmt.Sprintf("%s=%v", ev.Object.Name, ev.Object.Value())
}
