package ex11suite

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// Two servers that stand together in term after term, and never lead, are
// told as timeouts that are not randomized; candidates that stand apart,
// or an election that made a leader, are not.
func TestElectionsThatAlwaysSplitAreToldByTheirTimeouts(t *testing.T) {
	ms := time.Millisecond
	w := &world{Scene: &scene.Scene{Servers: []sim.NodeID{"server-1", "server-2", "server-3"}}, roles: map[sim.NodeID][]roleChange{}}
	for i, term := range []int64{3, 4, 5} {
		at := time.Duration(1000+300*i) * ms
		w.roles["server-2"] = append(w.roles["server-2"], roleChange{term, check.Candidate, at})
		w.roles["server-3"] = append(w.roles["server-3"], roleChange{term, check.Candidate, at + 2*ms})
	}
	story := w.splitElections(0, 5*time.Second)
	assert.Contains(t, story, "server-2 and server-3 stood for election 3 times, in terms 3 to 5, each time within 2ms of each other, and no election made a leader")
	assert.Contains(t, story, "election timeouts are not randomized")

	w.roles["server-3"][2].at += 200 * ms // they stood apart in term 5
	assert.Empty(t, w.splitElections(0, 5*time.Second), "two split rounds are not yet a pattern")
	w.roles["server-3"][2].at -= 200 * ms
	w.roles["server-2"] = append(w.roles["server-2"], roleChange{5, check.Leader, 1700 * ms})
	assert.Empty(t, w.splitElections(0, 5*time.Second), "term 5 elected a leader")
}

// With pre-vote, split rounds move no term and servers may say nothing
// while they ask: the rounds are read off the trace, as requests with a
// Term that two servers send to the others within a few ms of each other.
func TestSplitPreVotesAreReadOffTheTrace(t *testing.T) {
	w := newWorld(1, func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
		p.SetStatus(check.ServerState{Term: 1, Role: check.Follower})
		p.Go("asks", func(p *sim.Proc) {
			if self == "server-1" {
				return
			}
			for range 3 {
				p.Sleep(300 * time.Millisecond)
				for _, o := range servers {
					if o != self {
						p.Send(o, askMsg{Term: 2, Candidate: self})
					}
				}
			}
		})
		p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return nil, nil })
	}, 3)
	defer w.Close()
	require.NoError(t, w.W.Run(2*time.Second))
	story := w.splitElections(0, 2*time.Second)
	assert.Contains(t, story, "server-2 and server-3 asked the others for their votes (or pre-votes) together 3 times, each time asking about term 2")
}
