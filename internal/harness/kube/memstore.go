package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/sim"
)

// MemStore is a correct single-node store that keeps its state in memory and
// is a history: every accepted change gets the next resourceVersion (1, 2, 3,
// … across all keys, like etcd's revision), and a watch from any retained
// version replays the changes after it, in order.
//
// It is the workbook's reference store: suites serve it as the known-good
// cluster, and chapters whose learner work lies elsewhere (a controller, a
// drill) run against it. A replicated server may use one per node as its
// state machine: Propose works out what a write would change without making
// the change, and Apply applies a change that was ordered elsewhere.
//
// Everything lives in memory: a crash of its node loses it (which is the
// point of ex02). The processes of one node share a MemStore without a lock,
// since only one process runs at a time.
type MemStore struct {
	retain  int               // events kept for watches; 0 keeps all
	rv      int64             // the resourceVersion of the last accepted change
	objects map[string]Object // current state, by key
	events  []Event           // retained window, oldest first
	dropped int64             // the resourceVersion of the newest event compacted away; 0 if none
	changes []check.Change    // every accepted change, never compacted
	changed sim.Cond          // broadcast at every accepted change, for watches
}

// NewMemStore returns an empty store whose watch window holds the last retain
// events; retain 0 keeps every event. A watch from a version older than the
// window is answered with Gone.
func NewMemStore(retain int) *MemStore {
	if retain < 0 {
		panic(fmt.Sprintf("kube: NewMemStore(%d): retain cannot be negative", retain))
	}
	return &MemStore{retain: retain, objects: map[string]Object{}, changed: sim.Cond{Name: "MemStore watch"}}
}

// ResourceVersion is the version of the last accepted change: 0 while empty.
func (s *MemStore) ResourceVersion() int64 { return s.rv }

// Get returns the object at key, or NotFound. Both read semantics (Latest and
// Any) are the same for a single store: it is always up to date.
func (s *MemStore) Get(p *sim.Proc, key string, opts ReadOptions) (Object, error) {
	o, ok := s.objects[key]
	if !ok {
		return Object{}, NotFound(key)
	}
	return o, nil
}

// List returns every object of kind, sorted by name, and the current
// resourceVersion: a watch from there misses nothing.
func (s *MemStore) List(p *sim.Proc, kind string, opts ReadOptions) (List, error) {
	l := List{Items: []Object{}, ResourceVersion: s.rv}
	for _, o := range s.objects {
		if o.Kind == kind {
			l.Items = append(l.Items, o)
		}
	}
	sortObjects(l.Items)
	return l, nil
}

// Create stores obj as a new object (its ResourceVersion is ignored), or
// answers AlreadyExists.
func (s *MemStore) Create(p *sim.Proc, obj Object) (Object, error) {
	return s.write(p, CreateRequest{Object: obj})
}

// Update replaces the object at obj.Key(). A non-zero obj.ResourceVersion is
// a precondition: Conflict unless the stored object still has that version.
// An absent object is NotFound. An update that changes nothing (same Replicas,
// Owner, NodeName, Status and Lease) makes no new version and returns the stored object.
func (s *MemStore) Update(p *sim.Proc, obj Object) (Object, error) {
	return s.write(p, UpdateRequest{Object: obj})
}

// Delete removes the object at key, conditionally on a non-zero
// resourceVersion as Update is, or answers NotFound. It returns the object as
// it was, with the ResourceVersion of the deletion.
func (s *MemStore) Delete(p *sim.Proc, key string, resourceVersion int64) (Object, error) {
	return s.write(p, DeleteRequest{Key: key, ResourceVersion: resourceVersion})
}

// write proposes and applies a change in one step.
func (s *MemStore) write(p *sim.Proc, req any) (Object, error) {
	ev, changed, err := s.Propose(req)
	if err != nil || !changed {
		return ev.Object, err
	}
	if err := s.Apply(p, ev); err != nil {
		panic(err) // Propose numbered it next: cannot happen
	}
	return ev.Object, nil
}

// Propose works out the change a write request (CreateRequest, UpdateRequest
// or DeleteRequest) would make now, numbered s.ResourceVersion()+1, without
// making it. It returns the event to Apply and true; the stored object and
// false for a write that changes nothing; or the error the write would get
// (NotFound, AlreadyExists, Conflict, Fenced).
//
// A create or update that carries a Fence is decided against the lease it
// names, as it stands at this point of the history: Fenced unless the lease
// exists and its Transitions equal the fence's Token. The fence is not
// stored.
//
// A replicated server decides with Propose, replicates the event, and applies
// it everywhere with Apply; between the two, other writes may have been
// applied, so a server that pipelines must decide against its own pending
// changes.
func (s *MemStore) Propose(req any) (ev Event, changed bool, err error) {
	next := s.rv + 1
	switch r := req.(type) {
	case CreateRequest:
		o := r.Object
		if err := s.fenced(o); err != nil {
			return Event{}, false, err
		}
		o.Fence = Fence{}
		if _, ok := s.objects[o.Key()]; ok {
			return Event{}, false, AlreadyExists(o.Key())
		}
		o.ResourceVersion = next
		return Event{Type: Added, Object: o}, true, nil
	case UpdateRequest:
		o := r.Object
		cur, ok := s.objects[o.Key()]
		if !ok {
			return Event{}, false, NotFound(o.Key())
		}
		if o.ResourceVersion != 0 && o.ResourceVersion != cur.ResourceVersion {
			return Event{}, false, Conflict(o.Key(), o.ResourceVersion, cur.ResourceVersion)
		}
		if err := s.fenced(o); err != nil {
			return Event{}, false, err
		}
		o.Fence = Fence{}
		if o.Replicas == cur.Replicas && o.Owner == cur.Owner && o.Lease == cur.Lease && o.NodeName == cur.NodeName && o.Status == cur.Status {
			return Event{Type: Modified, Object: cur}, false, nil
		}
		o.ResourceVersion = next
		return Event{Type: Modified, Object: o}, true, nil
	case DeleteRequest:
		cur, ok := s.objects[r.Key]
		if !ok {
			return Event{}, false, NotFound(r.Key)
		}
		if r.ResourceVersion != 0 && r.ResourceVersion != cur.ResourceVersion {
			return Event{}, false, Conflict(r.Key, r.ResourceVersion, cur.ResourceVersion)
		}
		cur.ResourceVersion = next
		return Event{Type: Deleted, Object: cur}, true, nil
	}
	return Event{}, false, fmt.Errorf("kube: Propose: %T is not a write request", req)
}

// fenced is the error a write of o gets from its fence: nil when it carries
// none, or when the lease it names is at its token.
func (s *MemStore) fenced(o Object) error {
	f := o.Fence
	if f == (Fence{}) {
		return nil
	}
	lease, ok := s.objects[f.LeaseKey]
	if !ok {
		return Fenced(o.Key(), f, 0, "")
	}
	if lease.Lease.Transitions != f.Token {
		return Fenced(o.Key(), f, lease.Lease.Transitions, lease.Lease.Holder)
	}
	return nil
}

// Apply applies a change that was already decided and ordered:
// ev.Object.ResourceVersion is its position in the history and must be above
// every version applied before (gaps are allowed). Added and Modified store
// ev.Object, Deleted removes it. Apply wakes waiting watches. p may be nil
// (the change is then recorded at time 0).
func (s *MemStore) Apply(p *sim.Proc, ev Event) error {
	rv := ev.Object.ResourceVersion
	if rv <= s.rv {
		return fmt.Errorf("kube: Apply(%s): resourceVersion %d is not after the last applied change (%d)", ev, rv, s.rv)
	}
	switch ev.Type {
	case Added, Modified:
		s.objects[ev.Object.Key()] = ev.Object
	case Deleted:
		delete(s.objects, ev.Object.Key())
	default:
		return fmt.Errorf("kube: Apply(%s): unknown event type %q", ev, ev.Type)
	}
	s.rv = rv
	var at time.Duration
	if p != nil {
		at = p.Now()
	}
	s.changes = append(s.changes, check.Change{Version: rv, Key: ev.Object.Key(), Value: ev.Object.Value(), Deleted: ev.Type == Deleted, At: at})
	s.events = append(s.events, ev)
	if s.retain > 0 && len(s.events) > s.retain {
		s.Compact(s.events[len(s.events)-s.retain-1].Object.ResourceVersion)
	}
	s.changed.Broadcast()
	return nil
}

// Compact drops the retained events at or before rv, as etcd's compaction
// does: a watch from a version before rv is then answered with Gone.
func (s *MemStore) Compact(rv int64) {
	n := 0
	for n < len(s.events) && s.events[n].Object.ResourceVersion <= rv {
		n++
	}
	if n == 0 {
		return
	}
	s.dropped = s.events[n-1].Object.ResourceVersion
	s.events = slices.Delete(s.events, 0, n)
}

// Watch returns the retained changes to kind after resourceVersion, in
// order, waiting up to wait for at least one (an empty answer means none
// came). A resourceVersion from before the retained window is Gone: the
// caller must relist. A resourceVersion of 0 means "from the beginning"; an
// empty kind watches every kind (a replica following the whole history).
func (s *MemStore) Watch(p *sim.Proc, kind string, resourceVersion int64, wait time.Duration) ([]Event, error) {
	deadline := p.Now() + wait
	for {
		if resourceVersion < s.dropped {
			oldest := s.dropped + 1
			if len(s.events) > 0 {
				oldest = s.events[0].Object.ResourceVersion
			}
			return nil, Gone(resourceVersion, oldest)
		}
		evs := []Event{}
		for _, ev := range s.events {
			if ev.Object.ResourceVersion > resourceVersion && (kind == "" || ev.Object.Kind == kind) {
				evs = append(evs, ev)
			}
		}
		if len(evs) > 0 || p.Now() >= deadline {
			return evs, nil
		}
		s.changed.WaitTimeout(p, deadline-p.Now())
	}
}

// Changes returns every change the store accepted, in order, as the checkers
// read histories (check.Durable, check.OneHistory, check.State). The value of
// a change is Object.Value. The slice is a copy.
func (s *MemStore) Changes() []check.Change { return slices.Clone(s.changes) }

// Objects returns every stored object, sorted by key: the state a suite
// compares or checks invariants on.
func (s *MemStore) Objects() []Object { return sortedObjects(s.objects) }

// sortedObjects lists the objects of m, sorted by key.
func sortedObjects(m map[string]Object) []Object {
	out := slices.Collect(maps.Values(m))
	sortObjects(out)
	return out
}

// sortObjects sorts by key, so that every listing is deterministic.
func sortObjects(os []Object) {
	slices.SortFunc(os, func(a, b Object) int { return strings.Compare(a.Key(), b.Key()) })
}
