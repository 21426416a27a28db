package ex11suite

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// electing is a world of three servers that answer the auditor's reads
// with an empty history, except server-2, which stands for election in a
// new term every 400ms and, until servesFrom, serves no read at all: the
// auditor reads at 2s, after the last fault healed at 1s.
func electing(t *testing.T, servesFrom time.Duration) *suite.Failure {
	w := newWorld(1, func(p *sim.Proc, self sim.NodeID, _ []sim.NodeID) {
		p.SetStatus(check.ServerState{Term: 1, Role: check.Follower})
		if self == "server-2" {
			p.Go("elections", func(p *sim.Proc) {
				for term := int64(2); p.Now() < servesFrom; term++ {
					p.SetStatus(check.ServerState{Term: term, Role: check.Candidate})
					p.Sleep(400 * time.Millisecond)
				}
				p.SetStatus(check.ServerState{Term: 99, Role: check.Follower})
			})
		}
		p.Serve(func(p *sim.Proc, _ sim.NodeID, req any) (any, error) {
			if self == "server-2" && p.Now() < servesFrom {
				p.Sleep(time.Hour)
			}
			if _, ok := req.(kube.WatchRequest); ok {
				return []kube.Event{}, nil
			}
			return nil, kube.ErrNotFound
		})
	}, 3)
	defer w.Close()
	w.lastFault = time.Second
	w.AuditAt(2*time.Second, "deployments", "deployments/web")
	w.Run(20 * time.Second)
	return ran(w)
}

// A server that cannot serve reads while its cluster elects is given its
// chance: the auditor asks again until it answers, within auditPatience.
func TestTheAuditorWaitsForAServerInTheMiddleOfAnElection(t *testing.T) {
	assert.Nil(t, electing(t, 4*time.Second))
}

// A server that never answers fails the world, by name, with what it said
// it was doing while the auditor asked (could not decide is failure).
func TestAServerThatNeverAnswersTheAuditorIsNamed(t *testing.T) {
	f := electing(t, time.Hour)
	require.NotNil(t, f)
	assert.Equal(t, "unanswered-read", f.Name)
	assert.Contains(t, f.Story, "the last fault healed at 1000ms; from 2010.2ms to 7410.2ms ")
	assert.Contains(t, f.Story, "the suite asked server-2 for its history (a watch from resourceVersion 0)")
	assert.Contains(t, f.Story, "5 times, and got no answer in 1000ms every time; meanwhile server-2 went from term 7 to term 20, standing for election 14 times and leading 0 terms (last it said it was candidate of term 20, from 7200ms)")
	assert.Contains(t, f.Story, "the cluster kept holding elections after every fault had healed")
	assert.NotContains(t, f.Story, "<nil>")
}
