package scene

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Auditor is the name of the node AuditAt adds.
const Auditor sim.NodeID = "auditor"

// Unread is a key the auditor could not read from a server that was up:
// the error its read (kube.Any) ended with, sim.ErrTimeout if no answer came.
type Unread struct {
	Server sim.NodeID
	Key    string
	Err    error
}

// AuditAt adds the auditor: at virtual time at it asks every server that is
// up for its whole history of kind (a watch from resourceVersion 0) and for
// each of keys as that server holds it (a read with kube.Any, served from
// the server's own copy), then stops the world. A server that is down is
// not audited; one that does not answer, or answers what the suite cannot
// read, is a Problem.
func (s *Scene) AuditAt(at time.Duration, kind string, keys ...string) {
	s.W.AddNode(Auditor, func(p *sim.Proc) {
		p.Sleep(at)
		s.audit(p, kind, keys)
		s.W.Stop()
	})
}

// An Unanswered is a server the auditor asked again and again, as
// AuditPatience allows, without getting an answer it could read: what it
// asked, how many times, from when to when, and the last error.
type Unanswered struct {
	Server      sim.NodeID
	What        string // "its history", or a key
	Asked       int
	First, Last time.Duration
	Err         error
}

// auditRetry is how long the auditor waits before it asks a server again.
const auditRetry = 100 * time.Millisecond

// ask calls id with req, and, while the scene's AuditPatience lasts and id
// is up, asks again a server that did not answer (an error other than
// kube.ErrNotFound): a server may be unable to serve for a while, in the
// middle of an election say, and is judged only once it had its chance.
// It returns the last reply and error and how many times it asked.
func (s *Scene) ask(p *sim.Proc, id sim.NodeID, req any, deadline time.Duration) (any, error, int) {
	for asked := 1; ; asked++ {
		reply, err := p.Call(id, req, s.Timeout)
		if err == nil || errors.Is(err, kube.ErrNotFound) || s.AuditPatience <= 0 || !s.W.Up(id) || p.Now()+auditRetry >= deadline {
			return reply, err, asked
		}
		p.Sleep(auditRetry)
	}
}

// unreadable says why the auditor could not read an answer: the error, or
// the type of a reply it did not expect.
func unreadable(err error, reply any, want string) string {
	if err != nil {
		return err.Error()
	}
	if reply == nil {
		return "it answered nothing, not " + want
	}
	return fmt.Sprintf("it answered a %T, not %s", reply, want)
}

func (s *Scene) audit(p *sim.Proc, kind string, keys []string) {
	s.Histories = map[string][]check.Change{}
	s.States = map[string]map[string]any{}
	deadline := p.Now() + s.AuditPatience
	for _, id := range s.Servers {
		if !s.W.Up(id) {
			p.Logf("%s is down: not audited", id)
			continue
		}
		from := p.Now()
		reply, err, asked := s.ask(p, id, kube.WatchRequest{Kind: kind}, deadline)
		events, ok := reply.([]kube.Event)
		if err != nil || (!ok && reply != nil) {
			what := fmt.Sprintf("%s's history (a watch of %s from resourceVersion 0)", id, kind)
			if asked > 1 {
				s.Unanswered = append(s.Unanswered, Unanswered{Server: id, What: "its history", Asked: asked, First: from, Last: p.Now(), Err: err})
				s.Problems = append(s.Problems, fmt.Sprintf("the suite asked for %s %d times, from %s to %s, and never got an answer it could read; the last: %s",
					what, asked, fmtTime(from), fmtTime(p.Now()), unreadable(err, reply, "a list of events")))
				continue
			}
			s.Problems = append(s.Problems, fmt.Sprintf("the suite could not read %s: %s", what, unreadable(err, reply, "a list of events")))
			continue
		}
		changes := make([]check.Change, 0, len(events))
		for _, ev := range events {
			changes = append(changes, check.Change{Version: ev.Object.ResourceVersion, Key: ev.Object.Key(),
				Value: ev.Object.Replicas, Deleted: ev.Type == kube.Deleted})
		}
		s.Histories[string(id)] = changes
		p.Logf("%s holds %d changes", id, len(changes))

		state := map[string]any{}
		for _, key := range keys {
			from := p.Now()
			reply, err, asked := s.ask(p, id, kube.GetRequest{Key: key, Opts: kube.ReadOptions{ResourceVersion: kube.Any}}, deadline)
			switch obj, ok := reply.(kube.Object); {
			case err == nil && ok:
				state[key] = obj.Replicas
			case errors.Is(err, kube.ErrNotFound):
			default:
				s.Unread = append(s.Unread, Unread{Server: id, Key: key, Err: err})
				if asked > 1 {
					s.Unanswered = append(s.Unanswered, Unanswered{Server: id, What: key, Asked: asked, First: from, Last: p.Now(), Err: err})
					s.Problems = append(s.Problems, fmt.Sprintf("the suite asked %s for %s %d times, from %s to %s, and never got an answer it could read; the last: %s",
						id, key, asked, fmtTime(from), fmtTime(p.Now()), unreadable(err, reply, "an object")))
					continue
				}
				s.Problems = append(s.Problems, fmt.Sprintf("the suite could not read %s from %s: %s", key, id, unreadable(err, reply, "an object")))
			}
		}
		s.States[string(id)] = state
	}
	s.Audited, s.AuditedAt = true, p.Now()
}
