// Package ex01 is the reference solution of chapter 1 of One History, "One
// memory": the one API server's store, kept in memory as a history.
//
// See book/ex01-one-memory.md. The store keeps the present (a map of
// objects, for get and list) and the recent past (the last retain accepted
// changes, for watch). Every change is numbered by the next resourceVersion
// and appended to the history in the same step that changes the present, so
// the two never disagree: the present is the history applied in order.
package ex01

import (
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Store is the memory of the one API server: what kube.Serve answers every
// get, list, create, update, delete and watch from. It satisfies
// kube.Storage. Each method runs in the process handling one request; only
// one process runs at a time, so Store needs no lock, but a method that
// waits (Watch) must expect the store to have changed when it wakes.
type Store struct {
	// retain is how many of the most recent changes a watch can be replayed
	// from.
	retain int
	// rv is the resourceVersion of the last accepted change: 0 while empty.
	rv int64
	// objects is the present: every stored object, by key.
	objects map[string]kube.Object
	// history holds the last retain accepted changes, oldest first; their
	// resourceVersions are consecutive and end at rv.
	history []kube.Event
	// compacted is the resourceVersion of the newest change dropped from
	// history (0 if none was): a watch from before it is Gone, a watch from
	// it or after misses nothing.
	compacted int64

	// changed is broadcast after every accepted change, waking watches.
	changed sim.Cond
}

// New returns an empty store that keeps, for watches, the last retain
// accepted changes (retain >= 1). The hidden suite chooses retain.
func New(retain int) *Store {
	return &Store{retain: retain, objects: map[string]kube.Object{}, changed: sim.Cond{Name: "ex01 store changed"}}
}

// Get returns the object stored at key ("pods/web-1"), or an error matching
// kube.ErrNotFound. One store is always up to date, so opts (kube.Latest or
// kube.Any) changes nothing.
func (s *Store) Get(p *sim.Proc, key string, opts kube.ReadOptions) (kube.Object, error) {
	o, ok := s.objects[key]
	if !ok {
		return kube.Object{}, kube.NotFound(key)
	}
	return o, nil
}

// List returns every object of kind ("pods"), sorted by name, and the
// resourceVersion of the last accepted change: a watch from there misses
// nothing.
func (s *Store) List(p *sim.Proc, kind string, opts kube.ReadOptions) (kube.List, error) {
	l := kube.List{Items: []kube.Object{}, ResourceVersion: s.rv}
	for _, o := range s.objects {
		if o.Kind == kind {
			l.Items = append(l.Items, o)
		}
	}
	slices.SortFunc(l.Items, func(a, b kube.Object) int { return strings.Compare(a.Name, b.Name) })
	return l, nil
}

// Create stores obj as a new object at the next resourceVersion (whatever
// obj.ResourceVersion says) and returns it as stored, or answers
// kube.ErrAlreadyExists.
func (s *Store) Create(p *sim.Proc, obj kube.Object) (kube.Object, error) {
	if _, ok := s.objects[obj.Key()]; ok {
		return kube.Object{}, kube.AlreadyExists(obj.Key())
	}
	return s.accept(kube.Added, obj), nil
}

// Update replaces the object at obj.Key() and returns it as stored. A
// non-zero obj.ResourceVersion is a precondition: the update fails with
// kube.ErrConflict unless the stored object still has exactly that version.
// An absent object is kube.ErrNotFound. An update that changes nothing (same
// Replicas and Owner) accepts no change and returns the stored object.
func (s *Store) Update(p *sim.Proc, obj kube.Object) (kube.Object, error) {
	cur, ok := s.objects[obj.Key()]
	if !ok {
		return kube.Object{}, kube.NotFound(obj.Key())
	}
	// The writer read cur at obj.ResourceVersion; if anything was accepted
	// for this key since, its update is based on a state that no longer
	// exists, and applying it would silently undo that change.
	if obj.ResourceVersion != 0 && obj.ResourceVersion != cur.ResourceVersion {
		return kube.Object{}, kube.Conflict(obj.Key(), obj.ResourceVersion, cur.ResourceVersion)
	}
	if obj.Replicas == cur.Replicas && obj.Owner == cur.Owner {
		return cur, nil
	}
	return s.accept(kube.Modified, obj), nil
}

// Delete removes the object at key and returns it as it was, with the
// resourceVersion of the deletion. A non-zero resourceVersion is a
// precondition, as in Update (kube.ErrConflict); an absent object is
// kube.ErrNotFound.
func (s *Store) Delete(p *sim.Proc, key string, resourceVersion int64) (kube.Object, error) {
	cur, ok := s.objects[key]
	if !ok {
		return kube.Object{}, kube.NotFound(key)
	}
	if resourceVersion != 0 && resourceVersion != cur.ResourceVersion {
		return kube.Object{}, kube.Conflict(key, resourceVersion, cur.ResourceVersion)
	}
	return s.accept(kube.Deleted, cur), nil
}

// accept makes one change at the next resourceVersion: it changes the
// present, appends the change to the history (dropping the oldest beyond
// retain), and wakes the watches. It returns the object as the change left
// it (for a deletion: as it was, stamped with the deletion's version).
func (s *Store) accept(typ kube.EventType, obj kube.Object) kube.Object {
	s.rv++
	obj.ResourceVersion = s.rv
	if typ == kube.Deleted {
		delete(s.objects, obj.Key())
	} else {
		s.objects[obj.Key()] = obj
	}
	s.history = append(s.history, kube.Event{Type: typ, Object: obj})
	if len(s.history) > s.retain {
		drop := len(s.history) - s.retain
		s.compacted = s.history[drop-1].Object.ResourceVersion
		s.history = slices.Delete(s.history, 0, drop)
	}
	s.changed.Broadcast()
	return obj
}

// Watch returns the changes to objects of kind accepted after
// resourceVersion (exclusive), oldest first, waiting up to wait for at least
// one; an empty answer means none came in time. A resourceVersion of 0 means
// "from the beginning". A resourceVersion from before the oldest retained
// change is answered with kube.ErrGone: the caller cannot be told what it
// missed, and must list again.
func (s *Store) Watch(p *sim.Proc, kind string, resourceVersion int64, wait time.Duration) ([]kube.Event, error) {
	deadline := p.Now() + wait
	for {
		// Checked on every wake: changes accepted while this watch waited
		// may have pushed resourceVersion out of the window.
		if resourceVersion < s.compacted {
			return nil, kube.Gone(resourceVersion, s.compacted+1)
		}
		evs := []kube.Event{}
		for _, ev := range s.history {
			if ev.Object.ResourceVersion > resourceVersion && ev.Object.Kind == kind {
				evs = append(evs, ev)
			}
		}
		if len(evs) > 0 || p.Now() >= deadline {
			return evs, nil
		}
		s.changed.WaitTimeout(p, deadline-p.Now())
	}
}
