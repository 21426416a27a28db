package ex06suite

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

type recorder struct {
	testing.TB
	errors, logs []string
}

func (r *recorder) Helper()           {}
func (r *recorder) Name() string      { return "TestEx06/story" }
func (r *recorder) Error(args ...any) { r.errors = append(r.errors, args[0].(string)) }
func (r *recorder) Log(args ...any)   { r.logs = append(r.logs, args[0].(string)) }

// A server that knows nothing of the other refuses controller-b's scale
// (web does not exist there): a cluster that says no is not the fix.
func TestTheStoryCountsRefusals(t *testing.T) {
	s := storyScene(1, func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) { kube.Serve(p, kube.NewMemStore(0)) })
	defer s.Close()
	r := &recorder{TB: t}
	assert.False(t, reportWritesRefused(r, s, 1.0, false))
	require.Len(t, r.logs, 1)
	f, ok := suite.ParseLine(r.logs[0])
	require.True(t, ok)
	assert.Equal(t, "writes-refused", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, "only 2 of 3 writes sent while the servers' link was whole were accepted"), f.Story)
}

// One store behind both servers keeps one history in the story.
func TestOneStoreKeepsTheStoryToOneHistory(t *testing.T) {
	shared := kube.NewMemStore(0)
	s := storyScene(1, func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) { kube.Serve(p, shared) })
	defer s.Close()
	r := &recorder{TB: t}
	assert.True(t, s.ReportRun(r) && reportWritesRefused(r, s, 1.0, false) && reportStoryDivergence(r, s), strings.Join(r.errors, "\n"))
}

// A write in flight when the link is cut, or sent just after, is not held
// against the cluster; one long before or after is.
func TestACutHoldsUpOnlyTheWritesAroundIt(t *testing.T) {
	s := scene.New(1, nil)
	defer s.Close()
	s.Inject(scene.Cut{A: server1, B: server2, From: 2 * time.Second, For: time.Second})
	op := func(call, ret time.Duration) check.Operation {
		return check.Operation{Input: check.Write("deployments/web", 1), Call: call, Return: ret, Result: check.Acked(1)}
	}
	assert.False(t, heldUp(s, op(0, 100*ms)), "long before")
	assert.True(t, heldUp(s, op(1900*ms, 2100*ms)), "in flight when the cut began")
	assert.True(t, heldUp(s, op(3000*ms+cutRecovery, 3000*ms+cutRecovery+time.Millisecond)), "just within the recovery")
	assert.False(t, heldUp(s, op(3001*ms+cutRecovery, 3100*ms+cutRecovery)), "after the recovery")
}
