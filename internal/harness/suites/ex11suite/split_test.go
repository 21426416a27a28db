package ex11suite

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

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
