package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/sim"
)

// keptOfTears crashes a node holding 200 unsynced bytes once per seed and
// counts, over the crashes that tore them, how many kept at most 16 bytes
// and how many all but at most 16.
func keptOfTears(t *testing.T, opts ...sim.Option) (torn, head, tail int) {
	for seed := int64(1); seed <= 400; seed++ {
		w := sim.New(seed, opts...)
		w.AddNode("server-1", func(p *sim.Proc) {
			p.Disk().Open("wal").Append(make([]byte, 200))
		})
		w.At(10*ms, func() { w.Crash("server-1") })
		require.NoError(t, w.Run(time.Second))
		loss := w.DiskLosses("server-1")
		require.Len(t, loss, 1)
		k := loss[0].Kept
		require.True(t, k >= 0 && k <= 200, "seed %d kept %d of 200", seed, k)
		if k > 0 && k < 200 {
			torn++
			if k <= 16 {
				head++
			}
			if k >= 184 {
				tail++
			}
		}
		w.Close()
	}
	return torn, head, tail
}

// With DiskTearsAtEdges, a torn write keeps its first few bytes or all but
// its last few about a quarter of the time each, where a prefix of any
// length would do so one time in twelve: a torn tail shorter than a
// record's header, or a record one byte short, comes within a few worlds.
func TestTearsAtEdgesComeOftenWithTheOptionOnly(t *testing.T) {
	torn, head, tail := keptOfTears(t, sim.DiskTearsAtEdges())
	assert.Greater(t, torn, 100)
	assert.Greater(t, head*5, torn, "first few bytes kept in %d of %d tears", head, torn)
	assert.Greater(t, tail*5, torn, "all but the last few kept in %d of %d tears", tail, torn)

	torn, head, tail = keptOfTears(t)
	assert.Greater(t, torn, 100)
	assert.Less(t, head*8, torn, "first few bytes kept in %d of %d tears without the option", head, torn)
	assert.Less(t, tail*8, torn, "all but the last few kept in %d of %d tears without the option", tail, torn)
}
