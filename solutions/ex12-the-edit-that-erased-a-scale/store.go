package ex12

import (
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suites/ex12suite/agreed"
)

// write puts one client write into the agreed log and answers with what it
// came to. The precondition travels with the entry and is decided where the
// write lands: when each server applies the entry, in the log's order (see
// apply). A server that checked it at the door, against what it had applied
// so far, would pass two writes made from one read: neither has been
// applied when the other arrives.
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	index, err := agreed.Propose(p, w)
	if err != nil {
		// The entry may be in the log, or arrive there later: the
		// client must not take this for a no.
		return kube.Object{}, kube.ErrTimeout
	}
	return s.outcome(p, index)
}

// apply decides what one entry of the log does to the history, from the
// history alone, so that every server decides the same: a Create of a key
// that is absent, an Update or a Delete whose precondition (a non-zero
// ResourceVersion) still holds. A write that changes nothing creates no
// revision: it answers with the object as it is, and no watch hears of it.
func (s *server) apply(w Write) (kube.Object, error) {
	h := s.applied
	key := w.Object.Key()
	old, exists := h.objects[key]
	switch w.Op {
	case Create:
		if exists {
			return kube.Object{}, kube.AlreadyExists(key)
		}
		return h.append(kube.Event{Type: kube.Added, Object: w.Object}).Object, nil
	case Update, Delete:
		if !exists {
			return kube.Object{}, kube.NotFound(key)
		}
		if rv := w.Object.ResourceVersion; rv != 0 && rv != old.ResourceVersion {
			return kube.Object{}, kube.Conflict(key, rv, old.ResourceVersion)
		}
		if w.Op == Delete {
			return h.append(kube.Event{Type: kube.Deleted, Object: old}).Object, nil
		}
		if sameContent(w.Object, old) {
			return old, nil
		}
		return h.append(kube.Event{Type: kube.Modified, Object: w.Object}).Object, nil
	}
	return kube.Object{}, kube.Unavailable("unknown write " + string(w.Op))
}

// sameContent reports whether two versions of one object hold the same
// fields, whatever their ResourceVersions.
func sameContent(a, b kube.Object) bool {
	a.ResourceVersion, b.ResourceVersion = 0, 0
	return a == b
}
