// Package ex01 is chapter 1 of One History, "One memory": the one API
// server's store, kept in memory.
//
// Read book/ex01-one-memory.md first, then run the chapter:
//
//	make ex01
//
// As shipped, Store keeps only the present: a map of current objects. It
// hands out resourceVersions, but it forgets every change the moment the
// next one lands, so a watch from an older version cannot say what happened
// in between, and a deletion leaves no trace at all. An informer that lost
// its connection for a second never learns that a pod went away.
//
// Your job is to make Store a history: every accepted change gets the next
// resourceVersion (1, 2, 3, ...: consecutive numbers are this workbook's
// choice; Kubernetes promises only that a resourceVersion is an opaque
// string to compare for equality and hand back) and is kept (the last retain of them), a watch from any
// retained version replays the changes after it in order, a version older
// than what is kept is answered with kube.ErrGone, and an update or delete
// whose resourceVersion precondition is stale is answered with
// kube.ErrConflict. The lines to change are marked TODO(ex01).
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
	// from. The stub ignores it.
	retain int
	// rv is the resourceVersion of the last accepted change: 0 while empty.
	rv int64
	// objects is the present: every stored object, by key.
	objects map[string]kube.Object
	// TODO(ex01): keep the history of accepted changes (kube.Event values,
	// oldest first), at most retain of them, and remember the newest
	// version you dropped so that Watch can tell "too old" from "nothing
	// new".

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
// non-zero obj.ResourceVersion is a precondition: the update must fail with
// kube.ErrConflict unless the stored object still has exactly that version.
// An absent object is kube.ErrNotFound. An update that changes nothing (same
// Replicas and Owner) accepts no change and returns the stored object.
func (s *Store) Update(p *sim.Proc, obj kube.Object) (kube.Object, error) {
	cur, ok := s.objects[obj.Key()]
	if !ok {
		return kube.Object{}, kube.NotFound(obj.Key())
	}
	// TODO(ex01): honor the precondition. As shipped, the last writer wins:
	// an update based on a stale read silently overwrites a newer change.
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
	// TODO(ex01): honor the precondition, as in Update.
	return s.accept(kube.Deleted, cur), nil
}

// accept makes one change at the next resourceVersion, wakes the watches,
// and returns the object as the change left it (for a deletion: as it was,
// stamped with the deletion's version).
func (s *Store) accept(typ kube.EventType, obj kube.Object) kube.Object {
	s.rv++
	obj.ResourceVersion = s.rv
	if typ == kube.Deleted {
		delete(s.objects, obj.Key())
	} else {
		s.objects[obj.Key()] = obj
	}
	// TODO(ex01): record the change in the history, and forget the oldest
	// change once more than retain are kept.
	s.changed.Broadcast()
	return obj
}

// Watch returns the changes to objects of kind accepted after
// resourceVersion (exclusive), oldest first, waiting up to wait for at least
// one; an empty answer means none came in time. A resourceVersion from
// before the oldest change the store still keeps must be answered with
// kube.ErrGone, built as kube.Gone(rv, oldest), where rv is the version
// asked for and oldest the version of the oldest change still kept: the
// caller cannot be told what it missed, and must list again.
//
// A resourceVersion of 0 asks for every change still kept, from the first.
// That is this workbook's choice, not Kubernetes': there, a watch from "0"
// starts from the server's current state, sent as a synthetic ADDED event
// per object, and then follows new changes. The hidden suites read a whole
// history this way to compare histories, which a snapshot cannot show.
//
// As shipped, Watch cannot replay anything: it reports the objects that
// exist now and were written after resourceVersion, as if each had just been
// modified. A deletion leaves nothing behind to report.
func (s *Store) Watch(p *sim.Proc, kind string, resourceVersion int64, wait time.Duration) ([]kube.Event, error) {
	deadline := p.Now() + wait
	for {
		// TODO(ex01): answer from the history instead: every retained change
		// to kind after resourceVersion, in order, with its own type (Added,
		// Modified, Deleted), or Gone if resourceVersion is too old.
		var evs []kube.Event
		for _, o := range s.objects {
			if o.Kind == kind && o.ResourceVersion > resourceVersion {
				evs = append(evs, kube.Event{Type: kube.Modified, Object: o})
			}
		}
		slices.SortFunc(evs, func(a, b kube.Event) int {
			return int(a.Object.ResourceVersion - b.Object.ResourceVersion)
		})
		if len(evs) > 0 || p.Now() >= deadline {
			return evs, nil
		}
		s.changed.WaitTimeout(p, deadline-p.Now())
	}
}
