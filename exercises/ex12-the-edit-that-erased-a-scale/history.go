package ex12

import (
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// You do not need to change this file. A history is one server's copy of
// the cluster: the list of changes, in order, and the objects as they stand
// after the last one. Every server applies the agreed log's entries to its
// own history in the log's order.

// Op says what a Write does.
type Op string

// The three kinds of write a client can ask for.
const (
	Create Op = "create"
	Update Op = "update"
	Delete Op = "delete"
)

// Write is one client write as it travels in the agreed log: what to do, to
// which object. A non-zero Object.ResourceVersion on an Update or a Delete
// is a precondition: the write may go ahead only if the stored object is
// still at that version.
type Write struct {
	Op     Op
	Object kube.Object // for a Delete, only Kind, Name and ResourceVersion count
}

// String is "update deployments/web{replicas=5 rv=0}".
func (w Write) String() string { return string(w.Op) + " " + w.Object.String() }

// history is one server's copy of the cluster. Position n of the history is
// the change whose ResourceVersion is n: events[n-1]. An entry of the log
// that changes nothing (refused, or equal to what is stored) takes no
// position, so positions count changes, not entries.
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

// append adds a change at the next position and returns it as stored: its
// Object.ResourceVersion is that position, whatever it was before.
func (h *history) append(ev kube.Event) kube.Event {
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
	l := kube.List{ResourceVersion: h.position()}
	for _, ev := range h.events {
		if obj, ok := h.objects[ev.Object.Key()]; ok && obj.Kind == kind && obj.ResourceVersion == ev.Object.ResourceVersion {
			l.Items = append(l.Items, obj)
		}
	}
	return l
}

// watch returns the changes to kind after position rv, in order, waiting up
// to wait for at least one. This history keeps every change, so it never
// answers Gone.
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
