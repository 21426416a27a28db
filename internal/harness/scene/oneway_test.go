package scene_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// A link slow one way only delays what its sender sends during the spell:
// server-2's answer, sent then, lands after a whole exchange begun later,
// and the way back, and the link after the spell, keep the scene's latency.
func TestASlowOneWayLinkDelaysOnlyItsWayAndOnlyDuringTheSpell(t *testing.T) {
	const ms = time.Millisecond
	s := scene.New(1, nil, scene.Latency(2*ms, 2*ms))
	slow := scene.SlowOneWay{Sender: "server-2", Receiver: "server-1", Link: sim.Link{Min: 400 * ms, Max: 400 * ms}, From: 100 * ms, For: 50 * ms}
	s.W.AddNode("server-2", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) { return p.Now(), nil })
	})
	var early, late [2]time.Duration // when each call's answer was taken, and when it landed
	s.W.AddNode("server-1", func(p *sim.Proc) {
		p.Go("early", func(p *sim.Proc) {
			p.Sleep(99 * ms)
			r, err := p.Call("server-2", "now?", time.Second)
			if !assert.NoError(t, err) {
				return
			}
			early = [2]time.Duration{r.(time.Duration), p.Now()}
		})
		p.Sleep(200 * ms)
		r, err := p.Call("server-2", "now?", time.Second)
		if !assert.NoError(t, err) {
			return
		}
		late = [2]time.Duration{r.(time.Duration), p.Now()}
	})
	s.Inject(slow)
	require.NoError(t, s.Run(2*time.Second))
	defer s.Close()
	assert.Equal(t, [2]time.Duration{101 * ms, 501 * ms}, early, "asked at 99ms, fast there, answered at 101ms during the spell, slow back")
	assert.Equal(t, [2]time.Duration{202 * ms, 204 * ms}, late, "asked after the spell: fast both ways, done before the early answer lands")
	assert.Equal(t, "slow link server-2 → server-1 only (400ms) from 100ms for 50ms", slow.String())
	require.Len(t, s.Faults, 1)
	assert.Equal(t, check.Fault{Kind: sim.FaultSlow, Desc: "slow link server-2 → server-1 only (400ms)", Nodes: []sim.NodeID{"server-2", "server-1"}, Start: 100 * ms, End: 150 * ms}, s.Faults[0])
}

// A one-way spell that ends during a cut leaves its way cut: it composes
// with the cut as a two-way spell does, and the link is the default again
// once the cut heals.
func TestASlowOneWaySpellEndingDuringACutLeavesItCut(t *testing.T) {
	const ms = time.Millisecond
	s := scene.New(1, nil, scene.Latency(2*ms, 2*ms))
	arrived := map[time.Duration]time.Duration{} // sent → arrived
	s.W.AddNode("server-2", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			arrived[req.(time.Duration)] = p.Now()
			return nil, nil
		})
	})
	s.W.AddNode("server-1", func(p *sim.Proc) {
		for _, at := range []time.Duration{150 * ms, 250 * ms, 350 * ms} {
			p.Sleep(at - p.Now())
			p.Send("server-2", p.Now())
		}
	})
	s.Inject(
		scene.SlowOneWay{Sender: "server-1", Receiver: "server-2", Link: sim.Link{Min: 400 * ms, Max: 400 * ms}, From: 100 * ms, For: 100 * ms},
		scene.Cut{A: "server-1", B: "server-2", From: 140 * ms, For: 160 * ms},
	)
	require.NoError(t, s.Run(2*time.Second))
	defer s.Close()
	assert.NotContains(t, arrived, 150*ms, "sent during both: the cut holds")
	assert.NotContains(t, arrived, 250*ms, "sent after the spell ended, the cut still on: lost")
	assert.Equal(t, 352*ms, arrived[350*ms], "sent after the cut healed: the default link")
}
