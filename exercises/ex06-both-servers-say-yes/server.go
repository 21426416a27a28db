package ex06

import (
	"fmt"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Serve runs one API server of the cluster on p's node: the hidden suite
// calls it as the boot function of "server-1" and of "server-2". self is this
// server; servers lists every server, self included, in the same order on
// every server. It answers the kube wire messages (GetRequest, ListRequest,
// CreateRequest, UpdateRequest, DeleteRequest, WatchRequest), Replicate and
// ReadIndex (replica.go), and whatever other messages the servers send each
// other.
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

// handle answers one request, from a client or from another server.
func (s *server) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	switch r := req.(type) {
	case kube.GetRequest:
		s.catchUp(p, r.Opts)
		return s.h.get(r.Key)
	case kube.ListRequest:
		s.catchUp(p, r.Opts)
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
	case Replicate:
		return s.receive(p, r.Event), nil
	case ReadIndex:
		return s.h.position(), nil

		// TODO(ex06): the messages of your sequencer.
	}
	return nil, fmt.Errorf("%s: unknown request %T", s.self, req)
}

// write accepts one client write and returns the object as stored (for a
// Delete, as it was, with the deletion's ResourceVersion), once every
// server holds it.
//
// TODO(ex06): this server decides alone. It checks the write against its
// own copy and gives the change its own next position, while the other
// server, taking its own clients' writes at the same moment, gives the same
// position to a different change. Each then receives the other's change at
// a position it already holds, keeps its own, and both say yes: two
// histories, forever. Let one server (servers[0], the sequencer) decide
// every write and give it its position, wherever the client sent it.
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	ev, err := s.h.apply(w)
	if err != nil {
		return kube.Object{}, err
	}
	s.replicate(p, ev)
	p.Logf("yes: %s at rv %d", short(ev), ev.Object.ResourceVersion)
	return ev.Object, nil
}
