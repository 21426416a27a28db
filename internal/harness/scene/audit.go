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

func (s *Scene) audit(p *sim.Proc, kind string, keys []string) {
	s.Histories = map[string][]check.Change{}
	s.States = map[string]map[string]any{}
	for _, id := range s.Servers {
		if !s.W.Up(id) {
			p.Logf("%s is down: not audited", id)
			continue
		}
		reply, err := p.Call(id, kube.WatchRequest{Kind: kind}, s.Timeout)
		events, ok := reply.([]kube.Event)
		if err != nil || (!ok && reply != nil) {
			s.Problems = append(s.Problems, fmt.Sprintf("the suite could not read %s's history (a watch of %s from resourceVersion 0): %v %T", id, kind, err, reply))
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
			reply, err := p.Call(id, kube.GetRequest{Key: key, Opts: kube.ReadOptions{ResourceVersion: kube.Any}}, s.Timeout)
			switch obj, ok := reply.(kube.Object); {
			case err == nil && ok:
				state[key] = obj.Replicas
			case errors.Is(err, kube.ErrNotFound):
			default:
				s.Unread = append(s.Unread, Unread{Server: id, Key: key, Err: err})
				s.Problems = append(s.Problems, fmt.Sprintf("the suite could not read %s from %s: %v %T", key, id, err, reply))
			}
		}
		s.States[string(id)] = state
	}
	s.Audited, s.AuditedAt = true, p.Now()
}
