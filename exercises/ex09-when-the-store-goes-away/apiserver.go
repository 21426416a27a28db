package ex09

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// The API server's patience with its store, in virtual time.
const (
	// StoreTimeout is how long one request to the store waits for its
	// answer. A request that gets none in time comes back as
	// kube.ErrTimeout: the store may or may not have received it.
	StoreTimeout = 300 * time.Millisecond
	// watchWait is how long one watch of the store waits for changes.
	watchWait = time.Second
	// retryPause is how long the server waits before it tries the store
	// again after a failure.
	retryPause = 50 * time.Millisecond
)

// APIServer is one API server in front of the store: it hands writes and
// consistent reads to the store, and keeps a watch cache, a copy of the
// store's history as far as it has seen it, for reads with resourceVersion
// "0" and for watches.
//
// This is the naive design of the story. It was built never to disappoint
// a client: a read the store does not answer is asked again until it does,
// a write the store does not answer is kept and acknowledged at once, to be
// handed to the store when it is back, and a watch of the store that breaks
// starts again from wherever the store is now. Each of these is a promise
// the server cannot keep while the store is out of reach.
type APIServer struct {
	store sim.NodeID
	cache *kube.MemStore // the history as far as this server has seen it
	later sim.Queue[any] // writes acknowledged before the store had them
}

// Serve makes p's node an API server in front of the store node store. It
// returns at once; the node serves until it crashes.
func Serve(p *sim.Proc, store sim.NodeID) {
	s := &APIServer{store: store, cache: kube.NewMemStore(0), later: sim.Queue[any]{Name: "writes for later"}}
	p.Go("watch cache", s.follow)
	p.Go("write-behind", s.writeBehind)
	p.Serve(s.handle)
}

// storeClient is a client of the store for one process of this server: it
// gives up after StoreTimeout with kube.ErrTimeout.
func (s *APIServer) storeClient(p *sim.Proc) *kube.Client {
	return kube.NewClient(p, s.store).Quiet().WithTimeout(StoreTimeout)
}

// handle answers one request: reads with kube.Any and watches from the
// watch cache, everything else from the store.
func (s *APIServer) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	store := s.storeClient(p)
	switch r := req.(type) {
	case kube.GetRequest:
		if r.Opts.ResourceVersion == kube.Any {
			return s.cache.Get(p, r.Key, r.Opts)
		}
		// TODO(ex09): while the store cannot be reached, this loop never
		// ends, and the client waits as long as it is willing to. What
		// should a consistent read say when the store does not answer?
		for {
			o, err := store.Get(r.Key, r.Opts)
			if !errors.Is(err, kube.ErrTimeout) {
				return o, err
			}
		}
	case kube.ListRequest:
		if r.Opts.ResourceVersion == kube.Any {
			return s.cache.List(p, r.Kind, r.Opts)
		}
		// TODO(ex09): the same loop, for lists: kubectl get pods.
		for {
			l, err := store.List(r.Kind, r.Opts)
			if !errors.Is(err, kube.ErrTimeout) {
				return l, err
			}
		}
	case kube.CreateRequest, kube.UpdateRequest, kube.DeleteRequest:
		return s.write(p, req)
	case kube.WatchRequest:
		return s.cache.Watch(p, r.Kind, r.ResourceVersion, r.Wait)
	}
	return nil, fmt.Errorf("an API server does not understand %T", req)
}

// write hands a write to the store and returns the store's answer. If the
// store does not answer in time, the write is applied to the watch cache,
// the client hears yes, and the write waits in s.later for the store.
func (s *APIServer) write(p *sim.Proc, req any) (kube.Object, error) {
	o, err := send(s.storeClient(p), req)
	if !errors.Is(err, kube.ErrTimeout) {
		return o, err
	}
	// TODO(ex09): the client is about to hear "accepted" for a change the
	// history does not hold, and may never hold: the store may refuse it
	// when it gets it, or another server's write may have come first.
	// Who decides what was accepted?
	s.later.Put(req)
	return apply(p, s.cache, req)
}

// writeBehind hands the writes in s.later to the store, in order, each
// again and again until the store answers.
func (s *APIServer) writeBehind(p *sim.Proc) {
	store := s.storeClient(p)
	for {
		req := s.later.Get(p)
		for {
			if _, err := send(store, req); !errors.Is(err, kube.ErrTimeout) {
				break
			}
			p.Sleep(retryPause)
		}
	}
}

// follow keeps the watch cache: it watches the store for every change after
// the last one it has seen, and applies each in order.
func (s *APIServer) follow(p *sim.Proc) {
	store := s.storeClient(p)
	var rv int64
	for {
		evs, err := store.Watch("", rv, watchWait)
		if err != nil {
			p.Sleep(retryPause)
			// The watch broke. Start again from where the store is now.
			// TODO(ex09): what happened at the store while the watch was
			// broken? The cache, and every watch it serves, never hears of
			// it.
			if l, err := store.List("deployments", kube.ReadOptions{}); err == nil {
				rv = l.ResourceVersion
			}
			continue
		}
		for _, ev := range evs {
			if ev.Object.ResourceVersion > s.cache.ResourceVersion() {
				if err := s.cache.Apply(p, ev); err != nil {
					panic(err)
				}
			}
			rv = ev.Object.ResourceVersion
		}
	}
}

// send sends a write request through c and returns its answer.
func send(c *kube.Client, req any) (kube.Object, error) {
	switch r := req.(type) {
	case kube.CreateRequest:
		return c.Create(r.Object)
	case kube.UpdateRequest:
		return c.Update(r.Object)
	case kube.DeleteRequest:
		return c.Delete(r.Key, r.ResourceVersion)
	}
	return kube.Object{}, fmt.Errorf("%T is not a write", req)
}

// apply makes a write request on a store in this node's memory.
func apply(p *sim.Proc, st kube.Storage, req any) (kube.Object, error) {
	switch r := req.(type) {
	case kube.CreateRequest:
		return st.Create(p, r.Object)
	case kube.UpdateRequest:
		return st.Update(p, r.Object)
	case kube.DeleteRequest:
		return st.Delete(p, r.Key, r.ResourceVersion)
	}
	return kube.Object{}, fmt.Errorf("%T is not a write", req)
}
