package ex04

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Primary is the server that orders every write: the other server forwards
// the writes it receives to it. (Why one server must order the writes is
// chapter 6; here it is given.)
const Primary sim.NodeID = "server-1"

// How long a server waits for its peer before it gives up on one call. A
// link delays a message by up to 400ms each way.
const (
	forwardTimeout   = 3 * time.Second
	replicateTimeout = 2 * time.Second
	readIndexTimeout = 2 * time.Second
)

// Forward carries a write (a kube.CreateRequest, UpdateRequest or
// DeleteRequest) that a client sent to the other server on to the Primary.
// Its reply is the kube.Object the write stored, or the write's error.
type Forward struct{ Request any }

// ReadIndex asks the Primary for the resourceVersion of the last change it
// has applied. Its reply is an int64.
type ReadIndex struct{}

// Server is one of the two API servers. It keeps its own copy of the history
// (a kube.MemStore, changed only through apply) and implements kube.Storage,
// so that kube.Handler can serve clients from it; Peer serves the messages of
// the other server.
//
// Only one process of a node runs at a time, so a Server needs no lock; but
// anything read before a blocking call (p.Call, s.applied.Wait) may have
// changed when it returns.
type Server struct {
	self, peer sim.NodeID
	store      *kube.MemStore       // this server's copy of the history
	early      map[int64]kube.Event // changes that arrived before the ones they follow
	applied    sim.Cond             // broadcast after every change apply makes
}

// NewServer returns the server that runs on node self, whose peer (the other
// server) is peer. The one named Primary orders the writes.
func NewServer(self, peer sim.NodeID) *Server {
	return &Server{
		self:    self,
		peer:    peer,
		store:   kube.NewMemStore(0),
		early:   map[int64]kube.Event{},
		applied: sim.Cond{Name: "applied"},
	}
}

func (s *Server) primary() bool { return s.self == Primary }

// Get returns the object at key from this server's copy. A Latest read
// (opts.ResourceVersion "") promises the most recent state: every write
// acknowledged to anyone before the read began. A read with kube.Any ("0")
// may be stale.
func (s *Server) Get(p *sim.Proc, key string, opts kube.ReadOptions) (kube.Object, error) {
	if err := s.catchUp(p, opts); err != nil {
		return kube.Object{}, err
	}
	return s.store.Get(p, key, opts)
}

// List returns every object of kind from this server's copy, with the same
// promise as Get.
func (s *Server) List(p *sim.Proc, kind string, opts kube.ReadOptions) (kube.List, error) {
	if err := s.catchUp(p, opts); err != nil {
		return kube.List{}, err
	}
	return s.store.List(p, kind, opts)
}

// Watch returns the changes to kind after resourceVersion that this server's
// copy holds, waiting up to wait for one. A watch may lag behind: it
// promises order, not freshness.
func (s *Server) Watch(p *sim.Proc, kind string, resourceVersion int64, wait time.Duration) ([]kube.Event, error) {
	return s.store.Watch(p, kind, resourceVersion, wait)
}

// Create stores a new object; see write.
func (s *Server) Create(p *sim.Proc, obj kube.Object) (kube.Object, error) {
	return s.write(p, kube.CreateRequest{Object: obj})
}

// Update replaces an object, conditionally on a non-zero
// obj.ResourceVersion; see write.
func (s *Server) Update(p *sim.Proc, obj kube.Object) (kube.Object, error) {
	return s.write(p, kube.UpdateRequest{Object: obj})
}

// Delete removes an object, conditionally on a non-zero resourceVersion;
// see write.
func (s *Server) Delete(p *sim.Proc, key string, resourceVersion int64) (kube.Object, error) {
	return s.write(p, kube.DeleteRequest{Key: key, ResourceVersion: resourceVersion})
}

// write performs a write request. On the Primary it decides the change
// against its copy (NotFound, AlreadyExists and Conflict come from there),
// applies it and sends it to the other server; elsewhere it forwards the
// request to the Primary. Its answer is what the client is told: the stored
// object means "accepted".
func (s *Server) write(p *sim.Proc, req any) (kube.Object, error) {
	if !s.primary() {
		return s.forward(p, req)
	}
	ev, changed, err := s.store.Propose(req)
	if err != nil || !changed {
		return ev.Object, err
	}
	s.apply(p, ev)

	// Accepted means readable everywhere: wait until server-2 has applied
	// the change before the client hears yes.
	s.replicate(p, ev)
	p.Logf("acked rv %d; server-2 has it", ev.Object.ResourceVersion)
	return ev.Object, nil
}

// catchUp makes a Latest read on the other server consistent. The Primary
// applies a write, and shows it to its own readers, before server-2 has it,
// so a read on server-2 first asks the Primary how far its history goes
// (the read index) and waits until its own copy has got that far. Every
// write acknowledged before the read began, and everything a reader of
// server-1 has seen, is then in the copy it reads. A kube.Any read skips
// this: it may be stale by definition.
func (s *Server) catchUp(p *sim.Proc, opts kube.ReadOptions) error {
	if s.primary() || opts.ResourceVersion == kube.Any {
		return nil
	}
	reply, err := p.Call(Primary, ReadIndex{}, readIndexTimeout)
	if err != nil {
		return apiError(err)
	}
	index := reply.(int64)
	for s.store.ResourceVersion() < index {
		s.applied.Wait(p)
	}
	return nil
}

// replicate sends one change to the other server until it answers that it
// has applied it.
func (s *Server) replicate(p *sim.Proc, ev kube.Event) {
	for {
		if _, err := p.Call(s.peer, Replicate{Event: ev}, replicateTimeout); err == nil {
			return
		}
	}
}

// forward sends a write to the Primary and returns its answer.
func (s *Server) forward(p *sim.Proc, req any) (kube.Object, error) {
	reply, err := p.Call(Primary, Forward{Request: req}, forwardTimeout)
	if err != nil {
		return kube.Object{}, apiError(err)
	}
	obj, _ := reply.(kube.Object)
	return obj, nil
}

// Peer serves a message from the other server: a Forward (on the Primary)
// a Replicate, or (on the Primary) a ReadIndex.
func (s *Server) Peer(p *sim.Proc, from sim.NodeID, msg any) (any, error) {
	switch m := msg.(type) {
	case Forward:
		return s.write(p, m.Request)
	case Replicate:
		return s.receive(p, m.Event)
	case ReadIndex:
		return s.store.ResourceVersion(), nil
	}
	return nil, fmt.Errorf("ex04: %s does not understand %T from %s", s.self, msg, from)
}

// apiError turns the error of a call to the peer into the API error a client
// gets: kube errors pass through; a timeout is indefinite (the peer may
// still act on the request); a refused call is Unavailable.
func apiError(err error) error {
	var status *kube.StatusError
	switch {
	case errors.As(err, &status):
		return err
	case errors.Is(err, sim.ErrTimeout):
		return kube.ErrTimeout
	}
	return kube.Unavailable(err.Error())
}
