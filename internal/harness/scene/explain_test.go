package scene_test

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
)

func change(v int64, key string, value int) check.Change {
	return check.Change{Version: v, Key: key, Value: value}
}

// A server that applied a repeated message as a new change is blamed for
// the parting of the histories, not the position where they part.
func TestAServerThatNumberedAChangeTwiceIsNamedFirst(t *testing.T) {
	histories := map[string][]check.Change{
		"server-1": {change(1, "deployments/web", 3), change(2, "deployments/web", 5), change(3, "deployments/web", 6)},
		"server-2": {change(1, "deployments/web", 3), change(2, "deployments/web", 5), change(3, "deployments/web", 5), change(4, "deployments/web", 6)},
	}
	v := scene.NumberedTwice(histories)
	require.NotNil(t, v)
	assert.Equal(t, "divergent-history", v.Name)
	assert.True(t, strings.HasPrefix(v.Story, "server-2 numbered one change twice: it holds deployments/web=5 at position 2 and again at position 3"), v.Story)
	assert.Equal(t, []string{"server-2"}, v.Servers)

	histories["server-1"] = histories["server-2"]
	assert.Nil(t, scene.NumberedTwice(histories), "histories that agree have not parted")
}

// One history that holds one client's write twice is a write applied twice.
func TestOneHistoryHoldingAWriteTwiceIsAWriteAppliedTwice(t *testing.T) {
	h := check.NewHistory()
	op := h.Call("controller-b", "server-2", check.Write("deployments/web", 7), 700*time.Millisecond)
	h.Return(op, check.Acked(4), 900*time.Millisecond)
	final := []check.Change{change(1, "deployments/web", 3), change(2, "deployments/web", 7), change(3, "deployments/web", 8), change(4, "deployments/web", 7)}
	v := scene.AppliedTwice(h, final)
	require.NotNil(t, v)
	assert.Equal(t, "write-applied-twice", v.Name)
	assert.Contains(t, v.Story, "holds deployments/web=7 twice, at positions 2 and 4: controller-b's write deployments/web=7 (sent to server-2 at 700ms")

	assert.Nil(t, scene.AppliedTwice(h, final[:3]), "each write once")
	assert.Nil(t, scene.AppliedTwice(check.NewHistory(), final), "a value no client wrote is not a client's write applied twice")
}

// The one sentence under a stale read says why no order fits it.
func TestAStaleReadSaysWhyNoOrderFitsIt(t *testing.T) {
	h := check.NewHistory()
	w := h.Call("controller", "server-1", check.Write("deployments/web", 5), 2000*time.Millisecond)
	h.Return(w, check.Acked(2), 2007*time.Millisecond)
	r := h.Call("dashboard", "server-2", check.Read("deployments/web"), 2012*time.Millisecond)
	h.Return(r, check.Found(3, 1), 2020*time.Millisecond)
	l := check.Linearizable(h, 0)
	require.False(t, l.OK())
	why := scene.Impossible(h.Operations(), l.Violation)
	assert.Equal(t, "That is impossible in one history: controller's write ended at 2007ms, before dashboard's read began at 2012ms, "+
		"so every order puts it first, and after it deployments/web is no longer 3.", why)

	// One client whose read starts the instant its write returns: the
	// story says "then", not "before ... began" at the same instant.
	h = check.NewHistory()
	w = h.Call("writer-1", "server-3", check.Write("deployments/web", 12), 464800*time.Microsecond)
	h.Return(w, check.Acked(8), 537700*time.Microsecond)
	r = h.Call("writer-1", "server-3", check.Read("deployments/web"), 537700*time.Microsecond)
	h.Return(r, check.Found(11, 1), 609300*time.Microsecond)
	l = check.Linearizable(h, 0)
	require.False(t, l.OK())
	assert.Equal(t, "That is impossible in one history: writer-1's write ended at 537.7ms, and only then did writer-1's read begin, "+
		"so every order puts it first, and after it deployments/web is no longer 11.", scene.Impossible(h.Operations(), l.Violation))
}

// A list that lacks an object every client was told exists is a stale read
// of that object.
func TestAListThatMissesAnObjectIsAStaleRead(t *testing.T) {
	s := scene.New(2, lonely)
	s.Client("controller", func(p *sim.Proc, api *kube.Client) {
		api.Pin("server-1").Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3})
		p.Sleep(time.Millisecond)
		s.List(p, api.Pin("server-2"), "deployments", "deployments/web")
	})
	require.NoError(t, s.Run(time.Second))
	defer s.Close()
	f := scene.Linearizable(s)
	require.NotNil(t, f)
	assert.Equal(t, "stale-read", f.Name)
	assert.Contains(t, f.Story, "controller's list of deployments from server-2 at 71.9ms held no deployments/web")
	require.NotNil(t, f.Drawing, "the failure carries its picture, for the runner to write if it reports it")
	var page strings.Builder
	require.NoError(t, f.Drawing(&page))
	assert.Contains(t, page.String(), "<html")
}
