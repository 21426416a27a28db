package ex06

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Order asks the sequencer to decide one write: to check it against the
// history and give it the next position. The reply is the kube.Event as
// stored, once every server holds it, or the API error that refused the
// write.
type Order struct {
	Write Write
}

// String is "Order update deployments/web{replicas=5 rv=0}", for the
// timeline.
func (o Order) String() string { return "Order " + o.Write.String() }

// orderTimeout bounds a follower's wait for the sequencer's answer: a round
// trip to the sequencer and the sequencer's own round trip to every server,
// over links of up to 400ms each way, with room for a lost message or two.
const orderTimeout = 3 * time.Second

// Serve runs one API server of the cluster on p's node: the hidden suite
// calls it as the boot function of "server-1" and of "server-2". self is this
// server; servers lists every server, self included, in the same order on
// every server, and servers[0] is the sequencer. It answers the kube wire messages (GetRequest, ListRequest,
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
	case Order: // only the sequencer is asked
		return s.order(p, r.Write)
	}
	return nil, fmt.Errorf("%s: unknown request %T", s.self, req)
}

// write accepts one client write and returns the object as stored (for a
// Delete, as it was, with the deletion's ResourceVersion), once every
// server holds it. The sequencer decides it itself; any other server has
// the sequencer decide it.
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	if s.self == s.sequencer() {
		ev, err := s.order(p, w)
		return ev.Object, err
	}
	reply, err := p.Call(s.sequencer(), Order{Write: w}, orderTimeout)
	if err != nil {
		return kube.Object{}, unreachable(err)
	}
	ev := reply.(kube.Event)
	return ev.Object, nil
}

// sequencer is the one server that decides writes and gives changes their
// positions.
func (s *server) sequencer() sim.NodeID { return s.servers[0] }

// order is the sequencer's one job: decide w against the history as it
// stands, give it the next position, and send the change to every other
// server; the answer waits until they all hold it. Because only the
// sequencer decides, no two changes ever get the same position.
func (s *server) order(p *sim.Proc, w Write) (kube.Event, error) {
	ev, err := s.h.apply(w)
	if err != nil {
		return kube.Event{}, err
	}
	s.replicate(p, ev)
	p.Logf("yes: %s at rv %d, on every server", short(ev), ev.Object.ResourceVersion)
	return ev, nil
}

// unreachable turns a failed call to the sequencer into the API error a
// client sees. The sequencer's own refusal (NotFound, Conflict, ...) passes
// through; a timeout is indefinite (the sequencer may have ordered the
// write, and a second Order could order it twice, so it is not retried); a
// refused call is definite: Unavailable.
func unreachable(err error) error {
	var status kube.StatusError
	switch {
	case errors.As(err, &status):
		return err
	case errors.Is(err, sim.ErrTimeout):
		return kube.ErrTimeout
	}
	return kube.Unavailable("the sequencer is unreachable: " + err.Error())
}
