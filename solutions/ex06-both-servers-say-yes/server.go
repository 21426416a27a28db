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
// stored, or the API error that refused the write.
type Order struct {
	Write Write
}

// Apply carries one change the sequencer has ordered to another server. The
// change's Object.ResourceVersion is its position.
type Apply struct {
	Event kube.Event
}

// Position asks the sequencer how many changes it has ordered; the reply is
// an int64.
type Position struct{}

// peerTimeout bounds a call from a follower to the sequencer. It is longer
// than any delay of the chapter's links (400ms each way at worst).
const peerTimeout = 1500 * time.Millisecond

// Serve runs one API server of the cluster on p's node: the hidden suite
// calls it as the boot function of "server-1" and of "server-2". self is this
// server; servers lists every server, self included, in the same order on
// every server, and servers[0] is the sequencer. It answers the kube wire
// messages (GetRequest, ListRequest, CreateRequest, UpdateRequest,
// DeleteRequest, WatchRequest) and Order, Apply and Position.
//
// A watch from ResourceVersion 0 returns the server's whole history: that is
// how the hidden suite compares the servers' histories.
func Serve(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
	s := &server{self: self, servers: servers, h: newHistory(), early: map[int64]kube.Event{}}
	p.Serve(s.handle)
}

// server is one API server and its own copy of the history.
type server struct {
	self    sim.NodeID
	servers []sim.NodeID
	h       *history
	early   map[int64]kube.Event // ordered changes that arrived before their turn, by position
}

// sequencer is the one server that gives changes their positions.
func (s *server) sequencer() sim.NodeID { return s.servers[0] }

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

	case Order: // only the sequencer is asked
		return s.order(p, r.Write)
	case Apply:
		s.receive(p, r.Event)
		return nil, nil
	case Position:
		return s.h.position(), nil
	}
	return nil, fmt.Errorf("%s: unknown request %T", s.self, req)
}

// write accepts one client write and returns the object as stored (for a
// Delete, as it was, with the deletion's ResourceVersion). The sequencer
// decides it at once; any other server has the sequencer decide it, then
// answers only once its own history holds the change, so that a client that
// reads back from the same server sees its own write.
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	if s.self == s.sequencer() {
		ev, err := s.order(p, w)
		return ev.Object, err
	}
	reply, err := p.Call(s.sequencer(), Order{Write: w}, peerTimeout)
	if err != nil {
		return kube.Object{}, unreachable(err)
	}
	ev := reply.(kube.Event)
	s.receive(p, ev) // the reply may overtake the Apply carrying the same change
	s.catchUp(p, ev.Object.ResourceVersion)
	return ev.Object, nil
}

// order is the sequencer's one job: decide w against the history as it
// stands, give it the next position, and send the change to every other
// server. Because only the sequencer decides, no two changes ever get the
// same position.
func (s *server) order(p *sim.Proc, w Write) (kube.Event, error) {
	ev, err := s.h.apply(w)
	if err != nil {
		return kube.Event{}, err
	}
	p.Logf("ordered %s=%d as rv %d", ev.Object.Name, ev.Object.Replicas, ev.Object.ResourceVersion)
	for _, peer := range s.servers {
		if peer != s.self {
			p.Send(peer, Apply{Event: ev})
		}
	}
	return ev, nil
}

// receive takes one ordered change and applies every change whose turn has
// come. Changes travel over links that reorder messages: one that arrives
// before its predecessors waits in s.early; one already applied is ignored.
func (s *server) receive(p *sim.Proc, ev kube.Event) {
	pos := ev.Object.ResourceVersion
	if pos <= s.h.position() {
		return
	}
	if pos > s.h.position()+1 {
		p.Logf("holding rv %d: rv %d not here", pos, s.h.position()+1)
	}
	s.early[pos] = ev
	for {
		next, ok := s.early[s.h.position()+1]
		if !ok {
			return
		}
		delete(s.early, next.Object.ResourceVersion)
		s.h.append(next) // keeps its position: it is exactly the next one
		p.Logf("applied %s=%d as rv %d", next.Object.Name, next.Object.Replicas, next.Object.ResourceVersion)
	}
}

// catchUp waits until this server has applied the history up to position
// pos. Every position up to the sequencer's is on its way here, so the wait
// ends.
func (s *server) catchUp(p *sim.Proc, pos int64) {
	for s.h.position() < pos {
		s.h.changed.Wait(p)
	}
}

// get answers a read. kube.Any is served from whatever this server has
// applied. kube.Latest must reflect every write acknowledged before the read
// began, on any server: every such write has a position the sequencer has
// already given out, so a follower asks the sequencer how far the history
// has come and answers once it has applied that far.
func (s *server) get(p *sim.Proc, key string, opts kube.ReadOptions) (kube.Object, error) {
	if opts.ResourceVersion == kube.Latest && s.self != s.sequencer() {
		reply, err := p.Call(s.sequencer(), Position{}, peerTimeout)
		if err != nil {
			return kube.Object{}, unreachable(err)
		}
		s.catchUp(p, reply.(int64))
	}
	return s.h.get(key)
}

// unreachable turns a failed call to the sequencer into the API error a
// client sees. A timeout is indefinite (the sequencer may have ordered the
// write); a refused connection is definite (it did not).
func unreachable(err error) error {
	var status *kube.StatusError
	switch {
	case errors.As(err, &status):
		return err // the sequencer's own answer: NotFound, Conflict, ...
	case errors.Is(err, sim.ErrTimeout):
		return kube.ErrTimeout
	default:
		return kube.Unavailable("the sequencer is unreachable: " + err.Error())
	}
}
