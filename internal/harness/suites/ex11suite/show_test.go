package ex11suite

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/sim"
)

// Forward is a message between servers in the world below.
type Forward struct{ Request string }

// While server-1 is down, server-2's calls to it and the refusals that
// answer them are left out of the timeline; the same call once server-1 is
// back is shown.
func TestTheTimelineLeavesOutCallsToADownServer(t *testing.T) {
	w := newWorld(1, func(p *sim.Proc, self sim.NodeID, _ []sim.NodeID) {
		p.SetStatus(check.ServerState{Term: 1, Role: check.Follower})
		if self == "server-2" {
			p.Go("caller", func(p *sim.Proc) {
				for p.Now() < 300*time.Millisecond {
					p.Call("server-1", Forward{Request: "UPDATE web"}, 50*time.Millisecond)
					p.Sleep(50 * time.Millisecond)
				}
			})
		}
		p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return "ok", nil })
	}, 3)
	defer w.Close()
	w.W.At(100*time.Millisecond, func() { w.W.Crash("server-1") })
	w.W.At(200*time.Millisecond, func() { w.W.Restart("server-1") })
	require.NoError(t, w.W.Run(time.Second))
	var shown, refused []time.Duration
	for _, e := range w.W.Trace().Events() {
		if e.Kind == sim.EvSend && e.Node == "server-2" {
			if w.showMessage(e) {
				shown = append(shown, e.At)
			} else {
				refused = append(refused, e.At)
			}
		}
		if e.Err != nil {
			assert.False(t, w.showMessage(e), "a refusal: %s", e)
		}
	}
	for _, at := range shown {
		assert.False(t, at >= 100*time.Millisecond && at < 200*time.Millisecond, "a call while server-1 was down is shown: %s", sim.FormatTime(at))
	}
	for _, at := range refused {
		assert.True(t, at >= 100*time.Millisecond && at < 200*time.Millisecond, "a call while server-1 was up is left out: %s", sim.FormatTime(at))
	}
	assert.NotEmpty(t, shown)
	assert.NotEmpty(t, refused)
}
