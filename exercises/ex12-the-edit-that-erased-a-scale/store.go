package ex12

import (
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suites/ex12suite/agreed"
)

// write puts one client write into the agreed log and answers with what it
// came to.
//
// TODO(ex12): this server checks a write's precondition here, at the door,
// against what it has applied so far, and then puts the write into the log
// without it, so that the entry applies whatever happened in between. Two
// writers that read the same version both pass the door while neither
// entry has been applied yet, and the second erases the first. Decide the
// precondition where the write lands: carry it in the entry, and let apply
// check it, in the log's order, on every server.
func (s *server) write(p *sim.Proc, w Write) (kube.Object, error) {
	if rv := w.Object.ResourceVersion; rv != 0 && w.Op != Create {
		old, err := s.applied.get(w.Object.Key())
		if err != nil {
			return kube.Object{}, err
		}
		if old.ResourceVersion != rv {
			return kube.Object{}, kube.Conflict(w.Object.Key(), rv, old.ResourceVersion)
		}
		w.Object.ResourceVersion = 0 // checked: the entry applies unconditionally
	}
	index, err := agreed.Propose(p, w)
	if err != nil {
		// The entry may be in the log, or arrive there later: the
		// client must not take this for a no.
		return kube.Object{}, kube.ErrTimeout
	}
	return s.outcome(p, index)
}

// apply decides what one entry of the log does to the history. It must
// decide from the history alone, so that every server decides the same.
//
// TODO(ex12): a write's precondition, and a write that changes nothing
// (which should create no revision, and answer with the object as it is).
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
	case Update:
		if !exists {
			return kube.Object{}, kube.NotFound(key)
		}
		return h.append(kube.Event{Type: kube.Modified, Object: w.Object}).Object, nil
	case Delete:
		if !exists {
			return kube.Object{}, kube.NotFound(key)
		}
		return h.append(kube.Event{Type: kube.Deleted, Object: old}).Object, nil
	}
	return kube.Object{}, kube.Unavailable("unknown write " + string(w.Op))
}
