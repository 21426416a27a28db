package ex07

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

// Apply carries one ordered change to another server. The change's
// Object.ResourceVersion is its position.
type Apply struct {
	Event kube.Event
}

// Position asks the sequencer how many changes it has ordered; the reply is
// an int64.
type Position struct{}

// failoverAfter is how long a server waits for the sequencer before it
// decides that the sequencer is gone.
const failoverAfter = 500 * time.Millisecond

// Serve runs one API server of the cluster on p's node: the hidden suite
// calls it as the boot function of every server node. self is this server;
// servers lists every server, self included, in the same order on every
// server, and servers[0] is the sequencer. It answers the kube wire
// messages (GetRequest, ListRequest, CreateRequest, UpdateRequest,
// DeleteRequest, WatchRequest) and the messages the servers send each other.
//
// A watch from ResourceVersion 0 returns the server's whole history: that is
// how the hidden suite compares the servers' histories. (A Kubernetes API
// server differs: a watch from resourceVersion "0" starts from the current
// state, with one synthetic ADDED event per object, not from the first
// change; see ex04's history.watch.)
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

// sequencer is the server that gives changes their positions.
func (s *server) sequencer() sim.NodeID { return s.servers[0] }

// handle answers one request, from a client or from another server.
func (s *server) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	switch r := req.(type) {
	case kube.GetRequest:
		if r.Opts.ResourceVersion == kube.Latest {
			s.latest(p)
		}
		return s.h.get(r.Key)
	case kube.ListRequest:
		if r.Opts.ResourceVersion == kube.Latest {
			s.latest(p)
		}
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

	case Order:
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
// orders it; any other server forwards it to the sequencer.
//
// TODO(ex07): when the sequencer does not answer within failoverAfter, this
// server decides that the sequencer is gone and orders the write itself.
// But a server that hears nothing cannot tell "the sequencer is gone" from
// "I am the one cut off": on the far side of a split, the sequencer is
// ordering other writes at the same positions, and after the heal the two
// sides hold two histories. Order writes only at the sequencer, tell the
// client yes only once a majority of the servers hold the write, and answer
// kube.Unavailable, within the chapter's 1 s, when no majority can be had.
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	if s.self != s.sequencer() {
		reply, err := p.Call(s.sequencer(), Order{Write: w}, failoverAfter)
		var status kube.StatusError
		switch {
		case err == nil:
			ev := reply.(kube.Event)
			s.receive(p, ev)
			return ev.Object, nil
		case errors.As(err, &status):
			return kube.Object{}, err // the sequencer's own answer: NotFound, Conflict, ...
		}
		p.Logf("ordering it myself")
	}
	ev, err := s.order(p, w)
	return ev.Object, err
}

// order decides w against the history as it stands, gives it the next
// position, sends the change to every other server, and says yes.
//
// TODO(ex07): the sequencer says yes as soon as the change is in its own
// history. Cut off from the others, it goes on saying yes to the clients on
// its side, alone. A copy on one machine is not an agreement: answer only
// once a majority of the servers hold the history up to this change. The
// Apply messages sent here are lost when the network is split, and nothing
// sends them again.
func (s *server) order(p *sim.Proc, w Write) (kube.Event, error) {
	ev, err := s.h.apply(w)
	if err != nil {
		return kube.Event{}, err
	}
	p.Logf("ordered rv %d: %s=%d", ev.Object.ResourceVersion, ev.Object.Name, ev.Object.Replicas)
	for _, peer := range s.servers {
		if peer != s.self {
			p.Send(peer, Apply{Event: ev})
		}
	}
	return ev, nil
}

// receive takes one ordered change and applies every change whose turn has
// come, holding back one that arrives before its predecessors and ignoring
// one already applied.
//
// TODO(ex07): a server that missed changes while it was cut off holds back
// everything after them, forever: nobody sends what it missed. After a heal
// it must catch up to the one history.
func (s *server) receive(p *sim.Proc, ev kube.Event) {
	pos := ev.Object.ResourceVersion
	if pos <= s.h.position() {
		return
	}
	s.early[pos] = ev
	for {
		next, ok := s.early[s.h.position()+1]
		if !ok {
			return
		}
		delete(s.early, next.Object.ResourceVersion)
		s.h.append(next)
		p.Logf("applied rv %d: %s=%d", next.Object.ResourceVersion, next.Object.Name, next.Object.Replicas)
	}
}

// latest prepares this server to answer a kube.Latest read, which must
// reflect every write acknowledged before it began, on any server. A
// follower asks the sequencer how far the history has come and waits until
// it has applied that far. kube.Any reads are served from whatever this
// server has applied, without asking anyone.
//
// TODO(ex07): when the sequencer is silent, a follower answers from its own
// copy, and a sequencer cut off from the others answers alone: neither
// knows whether it is the one cut off. Answer a Latest read only once a
// majority has confirmed how far the history has come, and Unavailable,
// within the chapter's 1 s, when it cannot. Any reads may stay local.
func (s *server) latest(p *sim.Proc) {
	if s.self == s.sequencer() {
		return
	}
	reply, err := p.Call(s.sequencer(), Position{}, failoverAfter)
	if err != nil {
		return
	}
	for pos := reply.(int64); s.h.position() < pos; {
		if !s.h.changed.WaitTimeout(p, failoverAfter) {
			return
		}
	}
}
