package ex06

import (
	"fmt"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Replicate carries a change one server accepted to another server, which
// applies it when it arrives.
type Replicate struct {
	Event kube.Event
}

// Serve runs one API server of the cluster on p's node: the hidden suite
// calls it as the boot function of "server-1" and of "server-2". self is this
// server; servers lists every server, self included, in the same order on
// every server. It answers the kube wire messages (GetRequest, ListRequest,
// CreateRequest, UpdateRequest, DeleteRequest, WatchRequest) and whatever
// messages the servers send each other.
//
// A watch from ResourceVersion 0 returns the server's whole history: that is
// how the hidden suite compares the servers' histories.
func Serve(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
	s := &server{self: self, servers: servers, h: newHistory()}
	p.Serve(s.handle)
}

// server is one API server and its own copy of the history.
type server struct {
	self    sim.NodeID
	servers []sim.NodeID
	h       *history
}

// handle answers one request, from a client or from another server.
func (s *server) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	switch r := req.(type) {
	case kube.GetRequest:
		return s.get(p, r.Key, r.Opts)
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

	// TODO(ex06): a change that another server accepted is applied the
	// moment it arrives, at this server's own next position: last arrival
	// wins. Two servers that receive two changes in opposite orders end with
	// two different histories. Apply changes in one order, the same on
	// every server.
	case Replicate:
		ev := s.h.append(r.Event)
		p.Logf("applied %s=%d as rv %d", ev.Object.Name, ev.Object.Replicas, ev.Object.ResourceVersion)
		return nil, nil
	}
	return nil, fmt.Errorf("%s: unknown request %T", s.self, req)
}

// write accepts one client write and returns the object as stored (for a
// Delete, as it was, with the deletion's ResourceVersion).
//
// TODO(ex06): this server decides alone. It gives the change its own next
// position, says yes, and only then tells the other server, which is doing
// the same with its own clients' writes at the same moment. Let a single
// sequencer (servers[0]) give every accepted change its position, and answer
// the client only once this server has applied its change in that order.
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	ev, err := s.h.apply(w)
	if err != nil {
		return kube.Object{}, err
	}
	p.Logf("yes: %s=%d at rv %d", ev.Object.Name, ev.Object.Replicas, ev.Object.ResourceVersion)
	for _, peer := range s.servers {
		if peer != s.self {
			p.Send(peer, Replicate{Event: ev})
		}
	}
	return ev.Object, nil
}

// get answers a read. kube.Any may be served from whatever this server has
// applied; kube.Latest must reflect every write acknowledged before the read
// began, on any server.
//
// TODO(ex06): this server answers from its own copy, which may not yet hold
// a change the sequencer has ordered and another server has acknowledged.
func (s *server) get(p *sim.Proc, key string, opts kube.ReadOptions) (kube.Object, error) {
	return s.h.get(key)
}
