package sim_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/sim"
)

// Sent is a message that carries the virtual time it was sent at.
type Sent struct{ At time.Duration }

// delaysOn sends n messages one way over link, one every 10ms, and returns
// how long each took to arrive, in the order they were sent.
func delaysOn(t *testing.T, seed int64, link sim.Link, n int) []time.Duration {
	t.Helper()
	w := sim.New(seed)
	defer w.Close()
	var delays []time.Duration
	w.AddNode("node-1", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, _ sim.NodeID, req any) (any, error) {
			delays = append(delays, p.Now()-req.(Sent).At)
			return nil, nil
		})
	})
	w.AddNode("controller", func(p *sim.Proc) {
		for range n {
			p.Send("node-1", Sent{At: p.Now()})
			p.Sleep(10 * ms)
		}
	})
	w.SetLink("controller", "node-1", link)
	require.NoError(t, w.Run(time.Hour))
	require.Len(t, delays, n)
	return delays
}

// A long-tailed link: 95% of heartbeats arrive in 10–100ms, the rest take
// up to 25s, spread over every scale between (as many between 1s and 2.5s as
// between 10s and 25s), so a silence of seconds is rare and not a proof.
func TestALongTailedLinkMakesAFewMessagesLateBySeconds(t *testing.T) {
	link := sim.Link{Min: 10 * ms, Max: 100 * ms, Tail: 0.05, TailMax: 25 * time.Second}
	delays := delaysOn(t, 7, link, 20000)
	var tail, overSecond, overTen int
	for _, d := range delays {
		require.GreaterOrEqual(t, d, 10*ms)
		require.LessOrEqual(t, d, 25*time.Second)
		if d > 100*ms {
			tail++
		}
		if d > time.Second {
			overSecond++
		}
		if d > 10*time.Second {
			overTen++
		}
	}
	// About 5% in the tail (1000 of 20000), of which log-uniform draws put
	// about 59% above 1s and 17% above 10s.
	assert.InDelta(t, 1000, tail, 150)
	assert.InDelta(t, 590, overSecond, 120)
	assert.InDelta(t, 170, overTen, 60)
}

// A link without a tail draws what it always drew: the same seed gives the
// same delays whether or not TailMax is set, since the tail draws nothing
// while its probability is 0.
func TestALinkWithoutATailDrawsNothingForIt(t *testing.T) {
	plain := delaysOn(t, 3, sim.Link{Min: 10 * ms, Max: 100 * ms}, 500)
	unused := delaysOn(t, 3, sim.Link{Min: 10 * ms, Max: 100 * ms, TailMax: time.Minute}, 500)
	assert.Equal(t, plain, unused)
	assert.LessOrEqual(t, slices.Max(plain), 100*ms)
}

func TestATailThatEndsBeforeTheLinkIsMisuse(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("a", nil)
	w.AddNode("b", nil)
	assert.PanicsWithError(t, "sim: misuse: SetLink(a→b): a tail of 0.1 ends at TailMax 50ms, below Max 100ms",
		func() { w.SetLink("a", "b", sim.Link{Max: 100 * ms, Tail: 0.1, TailMax: 50 * ms}) })
	assert.PanicsWithError(t, "sim: misuse: SetDefaultLink: Drop, Duplicate and Tail are probabilities in [0, 1]",
		func() { w.SetDefaultLink(sim.Link{Tail: 2}) })
}

// A busy disk: each sync takes its own latency within the span set, and
// the span is one slow-disk fault from when it is set to when it is reset.
func TestADiskWhoseSyncsVaryDrawsEachSyncInItsSpan(t *testing.T) {
	w := sim.New(5)
	defer w.Close()
	var took []time.Duration
	w.AddNode("store", func(p *sim.Proc) {
		f := p.Disk().Open("wal")
		for range 200 {
			f.Append([]byte("x"))
			start := p.Now()
			f.Sync(p)
			took = append(took, p.Now()-start)
		}
	})
	w.At(0, func() { w.SetDiskSyncLatencies("store", 200*ms, 2*time.Second) })
	w.At(time.Minute, func() { w.SetDiskSyncLatencies("store", 0, 0) })
	require.NoError(t, w.Run(time.Hour))
	require.Len(t, took, 200)
	var slow, fast int
	for _, d := range took {
		switch {
		case d == ms:
			fast++ // after the reset: the world's 1ms
		case d >= 200*ms && d <= 2*time.Second:
			slow++
		default:
			t.Fatalf("a sync took %v, outside both spans", d)
		}
	}
	assert.Positive(t, fast)
	assert.Positive(t, slow)
	assert.Greater(t, slices.Max(took[:slow]), slices.Min(took[:slow]), "the syncs in the span vary")
	faults := w.Faults()
	require.Len(t, faults, 1)
	assert.Equal(t, sim.FaultSlowDisk, faults[0].Kind)
	assert.Equal(t, "disk of store syncing in 200–2000ms", faults[0].Desc)
	assert.Equal(t, time.Minute, faults[0].End)
	assert.Equal(t, "slow", faults[0].Kind.Shade())
}
