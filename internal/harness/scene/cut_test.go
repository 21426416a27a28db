package scene_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// A cut link loses what its two ends send each other, and nothing else:
// server-1 still answers its client while its calls to server-2 time out,
// and once the link is restored they get through again.
func TestACutLinkLosesOnlyWhatItsTwoEndsSendEachOther(t *testing.T) {
	s := scene.New(1, nil)
	cut := scene.Cut{A: "server-1", B: "server-2", From: 100 * time.Millisecond, For: time.Second}
	store := kube.NewMemStore(0)
	s.W.AddNode("server-2", func(p *sim.Proc) { kube.Serve(p, store) })
	var during, after error
	s.W.AddNode("server-1", func(p *sim.Proc) {
		relay := kube.NewClient(p, "server-2").Quiet()
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			return relay.For(p).Get("deployments/web", kube.ReadOptions{})
		})
	})
	var relayed error
	s.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(200 * time.Millisecond)
		_, during = api.Pin("server-1").WithTimeout(3*time.Second).Get("deployments/web", kube.ReadOptions{})
		_, relayed = api.Pin("server-2").Get("deployments/web", kube.ReadOptions{})
		p.Sleep(time.Second)
		_, after = api.Pin("server-1").Get("deployments/web", kube.ReadOptions{})
	})
	s.Inject(cut)
	require.NoError(t, s.Run(5*time.Second))
	defer s.Close()
	assert.ErrorIs(t, during, kube.ErrTimeout, "server-1's call to server-2 was lost in the cut")
	assert.ErrorIs(t, relayed, kube.ErrNotFound, "kubectl still reaches server-2 directly during the cut")
	assert.ErrorIs(t, after, kube.ErrNotFound, "after the cut the relay gets its answer again")
	assert.Equal(t, "link server-1 ↔ server-2 cut from 100ms for 1000ms", cut.String())
	require.Len(t, s.Faults, 1)
	assert.Equal(t, check.Fault{Name: "link server-1 ↔ server-2 cut", Start: 100 * time.Millisecond, End: 1100 * time.Millisecond}, s.Faults[0])
	assert.True(t, cut.During(100*time.Millisecond) && !cut.During(1100*time.Millisecond))
}
