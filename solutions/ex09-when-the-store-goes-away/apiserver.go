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
	// StoreTimeout is how long the server waits for the store to answer one
	// request before it gives up and says so to its client. It is well
	// under the second within which the suite wants every answer.
	StoreTimeout = 300 * time.Millisecond
	// watchWait is how long one watch of the store waits for changes.
	watchWait = time.Second
	// retryPause is how long the watch cache waits before it watches the
	// store again after a failed watch.
	retryPause = 50 * time.Millisecond
)

// APIServer is one API server in front of the store: it hands every write
// and every consistent read to the store, and keeps a watch cache, a copy of
// the store's history as far as it has seen it, for reads with
// resourceVersion "0" and for watches.
type APIServer struct {
	store sim.NodeID
	cache *kube.MemStore // the history as far as this server has seen it
}

// Serve makes p's node an API server in front of the store node store. It
// returns at once; the node serves until it crashes.
func Serve(p *sim.Proc, store sim.NodeID) {
	s := &APIServer{store: store, cache: kube.NewMemStore(0)}
	p.Go("watch cache", s.follow)
	p.Serve(s.handle)
}

// storeClient is a client of the store for one process of this server: it
// gives up after StoreTimeout with kube.ErrTimeout, which says that the
// request may or may not have reached the store.
func (s *APIServer) storeClient(p *sim.Proc) *kube.Client {
	return kube.NewClient(p, s.store).Quiet().WithTimeout(StoreTimeout)
}

// handle answers one request.
//
//   - Reads with kube.Latest go to the store: only the store knows what is
//     current. If it does not answer in time, the client hears
//     Unavailable, in bounded time: neither a stale answer nor a hang.
//   - Reads with kube.Any are answered from the watch cache, store or no
//     store. The list says which version of the history it shows.
//   - Writes go to the store, and the client hears yes only when the store
//     said yes. If the store does not answer in time, the client hears
//     Timeout: the write may or may not have happened.
//   - Watches are served from the watch cache: during an outage they stay
//     open and quiet, and they carry on from where they were once the cache
//     catches up.
func (s *APIServer) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	store := s.storeClient(p)
	switch r := req.(type) {
	case kube.GetRequest:
		if r.Opts.ResourceVersion == kube.Any {
			return s.cache.Get(p, r.Key, r.Opts)
		}
		o, err := store.Get(r.Key, r.Opts)
		return o, unreachable(err)
	case kube.ListRequest:
		if r.Opts.ResourceVersion == kube.Any {
			return s.cache.List(p, r.Kind, r.Opts)
		}
		l, err := store.List(r.Kind, r.Opts)
		return l, unreachable(err)
	case kube.CreateRequest:
		return store.Create(r.Object)
	case kube.UpdateRequest:
		return store.Update(r.Object)
	case kube.DeleteRequest:
		return store.Delete(r.Key, r.ResourceVersion)
	case kube.WatchRequest:
		return s.cache.Watch(p, r.Kind, r.ResourceVersion, r.Wait)
	}
	return nil, fmt.Errorf("an API server does not understand %T", req)
}

// unreachable turns a read the store did not answer in time into
// Unavailable: a read changes nothing, so there is nothing indefinite about
// it.
func unreachable(err error) error {
	if errors.Is(err, kube.ErrTimeout) {
		return kube.Unavailable("the store did not answer within " + StoreTimeout.String())
	}
	return err
}

// follow keeps the watch cache: it watches the store for every change after
// the last one the cache holds, and applies each in order. When a watch
// fails it waits a little and watches again from the same version: the
// store keeps its history, and replays what happened meanwhile.
func (s *APIServer) follow(p *sim.Proc) {
	store := s.storeClient(p)
	for {
		evs, err := store.Watch("", s.cache.ResourceVersion(), watchWait)
		if err != nil {
			p.Sleep(retryPause)
			continue
		}
		for _, ev := range evs {
			if ev.Object.ResourceVersion > s.cache.ResourceVersion() {
				if err := s.cache.Apply(p, ev); err != nil {
					panic(err)
				}
			}
		}
	}
}
