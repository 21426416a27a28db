package ex05suite

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// unreadPrecondition is a delete a controller sent on a precondition, a
// resourceVersion of the pod, that no answer had ever shown it for that
// pod: not a list, a get, a watch, nor the reply to its own write.
type unreadPrecondition struct {
	by, via sim.NodeID
	at      time.Duration // when its server got the delete
	key     string
	rv      int64 // the precondition it sent
	list    read  // its last list of pods, when it had one
	listed  int64 // the version of key that list showed it, 0 if none
	outcome error // etcd's answer: nil when the delete was accepted
}

// noteUnread notes the first delete a controller sent at a version of the
// pod it never read (the delete req, by through via at now; b is what it
// had been told), and returns where to write etcd's answer; nil when the
// precondition was read or absent, or a delete was noted before.
func (cl *cluster) noteUnread(now time.Duration, by, via sim.NodeID, req any, b *belief) *unreadPrecondition {
	q, ok := req.(kube.DeleteRequest)
	if !ok || q.ResourceVersion == 0 || b.seen[version{q.Key, q.ResourceVersion}] || b.made[version{q.Key, q.ResourceVersion}] || cl.unread != nil {
		return nil
	}
	cl.unread = &unreadPrecondition{by: by, via: via, at: now, key: q.Key, rv: q.ResourceVersion, list: b.pods, listed: b.lastList[q.Key]}
	return cl.unread
}

// preconditionNeverRead judges the first delete sent at a version of the
// pod its controller had never read (precondition-never-read): a
// precondition made of another number (the list's own resourceVersion, say)
// guards nothing the decision saw; it is refused as a conflict when the pod
// is at another version, and removes whatever version happens to bear the
// number when it is not.
func (cl *cluster) preconditionNeverRead() *suite.Failure {
	v := cl.unread
	if v == nil {
		return nil
	}
	if kind, name, ok := strings.Cut(v.key, "/"); !ok || kind != "pods" {
		return cl.noSuchKey(v, cmp.Or(name, v.key))
	}
	s := fmt.Sprintf("%s sent a delete of %s through %s at %s on the precondition rv=%d, a version of %s it had never read", v.by, v.key, v.via, suite.FormatTime(v.at), v.rv, v.key)
	if v.list.ok {
		s += fmt.Sprintf(": its last list of pods, answered at %s (%s), was a view at rv=%d", suite.FormatTime(v.list.at), v.list.how(cl.beliefs[v.by].server), v.list.view)
		if v.listed != 0 {
			s += fmt.Sprintf(" and showed %s at rv=%d", v.key, v.listed)
		}
		if v.rv == v.list.view {
			s += ", and the precondition is the list's own resourceVersion, not the pod's"
		}
	}
	switch {
	case v.outcome == nil:
		s += fmt.Sprintf("; etcd accepted it, since %s happened to be at rv=%d, and removed a version of the pod the decision never saw", v.key, v.rv)
	case errors.Is(v.outcome, kube.ErrConflict):
		s += fmt.Sprintf("; etcd refused it as a conflict, and %s, which the controller had decided to delete, stood", v.key)
	default:
		s += fmt.Sprintf("; etcd answered %v", v.outcome)
	}
	s += ". A delete's precondition is the version of the pod the decision read: the pod's own resourceVersion, as the list showed it"
	return cl.fail("precondition-never-read", v.at, s, logUntil(cl.log, v.at+2*slowMax))
}

// noSuchKey tells a delete sent to a key that is no pod's (delete-of-no-pod):
// the pod's name alone, or some other object's key, where the pod's key,
// pods/<name>, belongs. The pod the controller decided to delete stands,
// whatever etcd answered.
func (cl *cluster) noSuchKey(v *unreadPrecondition, name string) *suite.Failure {
	pod := "pods/" + name
	s := fmt.Sprintf("%s sent a delete of %q through %s at %s, a key that names no pod: a pod's key is its kind and its name, %s", v.by, v.key, v.via, suite.FormatTime(v.at), pod)
	if v.outcome != nil {
		s += fmt.Sprintf("; etcd answered %v", v.outcome)
	}
	s += fmt.Sprintf(", and %s, which the controller had decided to delete, stood. A delete names the object by its key, as Key() gives it", pod)
	return cl.fail("delete-of-no-pod", v.at, s, logUntil(cl.log, v.at+2*slowMax))
}
