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
	assert.Equal(t, check.Fault{Kind: sim.FaultCut, Desc: "link server-1 ↔ server-2 cut", Nodes: []sim.NodeID{"server-1", "server-2"}, Start: 100 * time.Millisecond, End: 1100 * time.Millisecond}, s.Faults[0])
	assert.True(t, cut.During(100*time.Millisecond) && !cut.During(1100*time.Millisecond))
}

// A cut holds whatever else happens to the link meanwhile: a slow spell
// that ends during the cut, or one that begins during it, lets no message
// through until the cut heals, as the timeline's "cut" says. server-1 sends
// server-2 a note every 10ms (at 5ms, 15ms, ...), stamped with when it left; from 500ms the link
// is slow (300–400ms) until 1500ms, cut from 1000ms to 3000ms, and slower
// still (600–700ms) from 2000ms to 4000ms. Nothing sent during the cut
// arrives, nothing arrives during it but what was on its way when it
// began, the second spell takes over when the cut heals, and after it the
// link is the one it was before the first.
func TestACutOverlappingSlowSpellsLetsNothingThroughUntilItHeals(t *testing.T) {
	s := scene.New(1, nil)
	type note struct{ sent, arrived time.Duration }
	var notes []note
	s.W.AddNode("server-2", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			notes = append(notes, note{sent: req.(time.Duration), arrived: p.Now()})
			return nil, nil
		})
	})
	s.W.AddNode("server-1", func(p *sim.Proc) {
		p.Sleep(5 * time.Millisecond) // off the faults' edges
		for p.Now() < 5*time.Second {
			p.Send("server-2", p.Now())
			p.Sleep(10 * time.Millisecond)
		}
	})
	s.Inject(
		scene.SlowLink{A: "server-1", B: "server-2", Link: sim.Link{Min: 300 * time.Millisecond, Max: 400 * time.Millisecond}, From: 500 * time.Millisecond, For: time.Second},
		scene.Cut{A: "server-2", B: "server-1", From: time.Second, For: 2 * time.Second},
		scene.SlowLink{A: "server-1", B: "server-2", Link: sim.Link{Min: 600 * time.Millisecond, Max: 700 * time.Millisecond}, From: 2 * time.Second, For: 2 * time.Second},
	)
	require.NoError(t, s.Run(6*time.Second))
	defer s.Close()
	require.NotEmpty(t, notes)
	during := func(t0, t1 time.Duration) func(time.Duration) bool {
		return func(t time.Duration) bool { return t >= t0 && t < t1 }
	}
	cut, firstSpell, secondSpell := during(time.Second, 3*time.Second), during(500*time.Millisecond, time.Second), during(3*time.Second, 4*time.Second)
	var before, after int
	for _, n := range notes {
		delay := n.arrived - n.sent
		assert.False(t, cut(n.sent), "a note sent at %v, during the cut, arrived at %v", n.sent, n.arrived)
		if cut(n.arrived) {
			assert.Less(t, n.sent, time.Second, "a note arrived at %v, during the cut, sent at %v", n.arrived, n.sent)
		}
		switch {
		case firstSpell(n.sent):
			assert.True(t, delay >= 300*time.Millisecond && delay <= 400*time.Millisecond, "sent at %v in the first spell: %v", n.sent, delay)
		case secondSpell(n.sent):
			before++
			assert.True(t, delay >= 600*time.Millisecond && delay <= 700*time.Millisecond, "sent at %v, the cut healed and the second spell in force: %v", n.sent, delay)
		case n.sent >= 4*time.Second:
			after++
			assert.LessOrEqual(t, delay, 20*time.Millisecond, "sent at %v, every fault over: %v", n.sent, delay)
		}
	}
	assert.NotZero(t, before, "notes sent in the second spell after the cut arrived")
	assert.NotZero(t, after, "notes sent after every fault arrived")
}

// A one-way cut loses what server-1 sends server-2 and nothing else:
// server-2's call reaches server-1 (which hears it) but its answer, sent
// server-1 → server-2, is lost; server-1's call never reaches server-2; and
// the cut is recorded as a fault of its own kind.
func TestAOneWayCutLosesOnlyOneDirection(t *testing.T) {
	s := scene.New(1, nil)
	cut := scene.CutOneWay{Sender: "server-1", Receiver: "server-2", From: 100 * time.Millisecond, For: time.Second}
	heard := map[sim.NodeID]int{}
	echo := func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			heard[p.Node()]++
			return req, nil
		})
	}
	s.W.AddNode("server-1", echo)
	s.W.AddNode("server-2", echo)
	var toTwo, toOne, later error
	s.W.Go("server-1", "ask", func(p *sim.Proc) {
		p.Sleep(200 * time.Millisecond)
		_, toTwo = p.Call("server-2", "ping", 100*time.Millisecond)
		p.Sleep(time.Second)
		_, later = p.Call("server-2", "ping", 100*time.Millisecond)
	})
	s.W.Go("server-2", "ask", func(p *sim.Proc) {
		p.Sleep(200 * time.Millisecond)
		_, toOne = p.Call("server-1", "ping", 100*time.Millisecond)
	})
	s.Inject(cut)
	require.NoError(t, s.Run(3*time.Second))
	defer s.Close()
	assert.ErrorIs(t, toTwo, sim.ErrTimeout, "server-1's call to server-2 was lost in the cut")
	assert.ErrorIs(t, toOne, sim.ErrTimeout, "server-2's call reaches server-1, but the answer travels server-1 → server-2: lost")
	assert.Equal(t, 1, heard["server-1"], "server-1 heard server-2's call through the cut")
	assert.NoError(t, later, "after the cut server-1 reaches server-2 again")
	assert.Equal(t, 1, heard["server-2"], "server-2 heard only the call after the cut")
	assert.Equal(t, "link server-1 → server-2 cut one way from 100ms for 1000ms", cut.String())
	require.Len(t, s.Faults, 1)
	assert.Equal(t, sim.FaultCutOneWay, s.Faults[0].Kind)
	assert.Equal(t, "one-way cut", s.Faults[0].Kind.String())
}
