package ex11

import (
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// You do not need to change this file. It is one server's copy of the
// cluster's state: the changes it has applied, in the order it applied them,
// and the objects as they stand after the last one. It decides nothing about
// WHICH changes reach it or when: that is server.go's work.

// Op says what a Write does.
type Op string

// The three kinds of write a client can ask for.
const (
	Create Op = "create"
	Update Op = "update"
	Delete Op = "delete"
)

// Write is one client write as it travels between servers: what to do, to
// which object. A non-zero Object.ResourceVersion on an Update or a Delete is
// a precondition: the write fails with Conflict unless the stored object is
// still at that version.
type Write struct {
	Op     Op
	Object kube.Object // for a Delete, only Kind, Name and ResourceVersion count
}

// String is "update deployments/web{replicas=5 rv=0}".
func (w Write) String() string { return string(w.Op) + " " + w.Object.String() }

// history is one server's copy of the state. Position n is the change whose
// ResourceVersion is n: events[n-1].
type history struct {
	events  []kube.Event           // every change applied, in order
	objects map[string]kube.Object // the objects after the last change, by key
	changed sim.Cond               // broadcast after every change
}

func newHistory() *history {
	return &history{objects: map[string]kube.Object{}, changed: sim.Cond{Name: "history changed"}}
}

// position is the number of changes applied: the ResourceVersion of the
// last one, 0 for an empty history.
func (h *history) position() int64 { return int64(len(h.events)) }

// decide checks w against the objects as they stand and returns the change
// it would make, numbered position()+1, without making it; or the API error
// that refuses it (NotFound, AlreadyExists, Conflict). A refused write takes
// no position.
func (h *history) decide(w Write) (kube.Event, error) {
	key := w.Object.Key()
	old, exists := h.objects[key]
	next := h.position() + 1
	switch w.Op {
	case Create:
		if exists {
			return kube.Event{}, kube.AlreadyExists(key)
		}
		obj := w.Object
		obj.ResourceVersion = next
		return kube.Event{Type: kube.Added, Object: obj}, nil
	case Update, Delete:
		if !exists {
			return kube.Event{}, kube.NotFound(key)
		}
		if rv := w.Object.ResourceVersion; rv != 0 && rv != old.ResourceVersion {
			return kube.Event{}, kube.Conflict(key, rv, old.ResourceVersion)
		}
		if w.Op == Delete {
			old.ResourceVersion = next
			return kube.Event{Type: kube.Deleted, Object: old}, nil
		}
		obj := w.Object
		obj.ResourceVersion = next
		return kube.Event{Type: kube.Modified, Object: obj}, nil
	}
	return kube.Event{}, kube.Unavailable("unknown write " + string(w.Op))
}

// apply appends a decided change at the next position and returns it as
// stored: its Object.ResourceVersion is that position, whatever it was
// before. Watches waiting on the history wake up.
func (h *history) apply(ev kube.Event) kube.Event {
	ev.Object.ResourceVersion = h.position() + 1
	h.events = append(h.events, ev)
	if ev.Type == kube.Deleted {
		delete(h.objects, ev.Object.Key())
	} else {
		h.objects[ev.Object.Key()] = ev.Object
	}
	h.changed.Broadcast()
	return ev
}

// get returns the object stored under key, or NotFound.
func (h *history) get(key string) (kube.Object, error) {
	obj, ok := h.objects[key]
	if !ok {
		return kube.Object{}, kube.NotFound(key)
	}
	return obj, nil
}

// list returns every object of kind, and the position it reflects.
func (h *history) list(kind string) kube.List {
	l := kube.List{Items: []kube.Object{}, ResourceVersion: h.position()}
	for _, ev := range h.events {
		if obj, ok := h.objects[ev.Object.Key()]; ok && obj.Kind == kind && obj.ResourceVersion == ev.Object.ResourceVersion {
			l.Items = append(l.Items, obj)
		}
	}
	return l
}

// watch returns the changes to kind after position rv, in order, waiting up
// to wait for at least one. This history keeps every change, so it never
// answers Gone. A watch from 0 returns the whole history: that is how the
// hidden suite reads what each server holds.
func (h *history) watch(p *sim.Proc, kind string, rv int64, wait time.Duration) []kube.Event {
	deadline := p.Now() + wait
	for {
		var out []kube.Event
		for _, ev := range h.events[min(max(rv, 0), h.position()):] {
			if ev.Object.Kind == kind {
				out = append(out, ev)
			}
		}
		if len(out) > 0 || p.Now() >= deadline {
			return out
		}
		h.changed.WaitTimeout(p, deadline-p.Now())
	}
}
