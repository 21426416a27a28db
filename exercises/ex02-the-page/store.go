package ex02

import (
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Store is the apiserver's storage: the one history of accepted changes,
// numbered by resourceVersion, that every request reads and writes. It
// implements kube.Storage; the hidden suite serves it with kube.Serve on the
// node "apiserver".
//
// The processes of the node share a Store without a lock, since only one
// process runs at a time; the write path holds writing only because it may
// block.
type Store struct {
	// mem is the history in memory: the state every read is served from.
	// It dies with the process.
	mem *kube.MemStore
	// writing admits one write at a time: Propose numbers a change against
	// what mem has applied, so two writes must not be between their Propose
	// and their Apply at once.
	writing sim.Mutex

	// TODO(ex02): the log on the node's disk (p.Disk().Open("wal")), which
	// outlives a crash up to what was synced.
}

// Open is the apiserver's boot: it builds the Store the node serves, at
// start and again after every restart. Whatever the previous incarnation
// held in memory is gone by then; only the node's disk (p.Disk()) is left.
func Open(p *sim.Proc) *Store {
	s := &Store{
		mem:     kube.NewMemStore(0),
		writing: sim.Mutex{Name: "writing"},
	}
	// TODO(ex02): open the log and replay it: Apply every whole record to
	// s.mem, in order. A crash may have cut the last record short; stop
	// there, and cut it off the file so that new records follow the last
	// good one.
	p.Logf("store opened: %d changes recovered", s.mem.ResourceVersion())
	return s
}

// commit makes the accepted change ev part of the history: once commit
// returns nil, the change may be read by anyone and its writer is told
// "ok".
func (s *Store) commit(p *sim.Proc, ev kube.Event) error {
	// TODO(ex02): write ev to the log and Sync it before applying it: a
	// change that is applied (visible) and acknowledged must survive a crash.
	return s.mem.Apply(p, ev)
}

// write decides a change, commits it and returns the stored object: the
// whole write path of Create, Update and Delete.
func (s *Store) write(p *sim.Proc, req any) (kube.Object, error) {
	s.writing.Lock(p)
	defer s.writing.Unlock()
	ev, changed, err := s.mem.Propose(req)
	if err != nil || !changed {
		return ev.Object, err
	}
	if err := s.commit(p, ev); err != nil {
		return kube.Object{}, err
	}
	return ev.Object, nil
}

// Create stores a new object, or answers AlreadyExists.
func (s *Store) Create(p *sim.Proc, obj kube.Object) (kube.Object, error) {
	return s.write(p, kube.CreateRequest{Object: obj})
}

// Update replaces an object; a non-zero obj.ResourceVersion is a
// precondition (Conflict if the object has changed since). An absent object
// is NotFound.
func (s *Store) Update(p *sim.Proc, obj kube.Object) (kube.Object, error) {
	return s.write(p, kube.UpdateRequest{Object: obj})
}

// Delete removes an object, conditionally on a non-zero resourceVersion, or
// answers NotFound. It returns the object with the deletion's version.
func (s *Store) Delete(p *sim.Proc, key string, resourceVersion int64) (kube.Object, error) {
	return s.write(p, kube.DeleteRequest{Key: key, ResourceVersion: resourceVersion})
}

// Get returns the object at key, or NotFound.
func (s *Store) Get(p *sim.Proc, key string, opts kube.ReadOptions) (kube.Object, error) {
	return s.mem.Get(p, key, opts)
}

// List returns every object of kind and the resourceVersion it reflects.
func (s *Store) List(p *sim.Proc, kind string, opts kube.ReadOptions) (kube.List, error) {
	return s.mem.List(p, kind, opts)
}

// Watch returns the changes to kind after resourceVersion, waiting up to
// wait for at least one.
func (s *Store) Watch(p *sim.Proc, kind string, resourceVersion int64, wait time.Duration) ([]kube.Event, error) {
	return s.mem.Watch(p, kind, resourceVersion, wait)
}

var _ kube.Storage = (*Store)(nil)
