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

// A crash that tears where it is told keeps all of a record but its last
// byte, whatever the seed; asked to lose more than is unsynced, it keeps
// none of it, and what was synced stays.
func TestCrashTearingKeepsAllButTheBytesItLoses(t *testing.T) {
	for _, c := range []struct{ lose, kept int }{{1, 7}, {8, 0}, {20, 0}, {0, 8}} {
		w := sim.New(1)
		w.AddNode("server-1", func(p *sim.Proc) {
			f := p.Disk().Open("wal")
			f.Append([]byte("synced\n"))
			f.Sync(p)
			f.Append([]byte("record\n\n"))
		})
		w.At(10*ms, func() { w.CrashTearing("server-1", c.lose) })
		require.NoError(t, w.Run(time.Second))
		assert.Equal(t, []sim.Loss{{At: 10 * ms, File: "wal", Unsynced: 8, Kept: c.kept}}, w.DiskLosses("server-1"), "losing %d", c.lose)
		assert.Equal(t, 7+c.kept, w.Disk("server-1").Open("wal").Size(), "losing %d", c.lose)
		w.Close()
	}
}

// Each disk event says what it did as values, so that a suite reads a
// disk's story without parsing the timeline's words: the operation, the
// file, and the file's size and durable bytes once it was done.
func TestADiskEventSaysWhatItDidAsValues(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) {
		f := p.Disk().Open("wal")
		f.Append([]byte("synced\n"))
		f.Sync(p)
		f.Append([]byte("record\n\n"))
		f.Truncate(10)
		f.Append([]byte("more"))
	})
	w.At(10*ms, func() { w.CrashTearing("server-1", 2) })
	require.NoError(t, w.Run(time.Second))
	var ops []sim.DiskOp
	for _, e := range w.Trace().Events() {
		if e.Kind == sim.EvDisk {
			ops = append(ops, *e.Disk)
		}
	}
	assert.Equal(t, []sim.DiskOp{
		{Op: sim.DiskAppend, File: "wal", Size: 7, Durable: 0},
		{Op: sim.DiskSync, File: "wal", Size: 7, Durable: 7},
		{Op: sim.DiskAppend, File: "wal", Size: 15, Durable: 7},
		{Op: sim.DiskTruncate, File: "wal", Size: 10, Durable: 7},
		{Op: sim.DiskAppend, File: "wal", Size: 14, Durable: 7},
		{Op: sim.DiskCrash, File: "wal", Size: 12, Durable: 12},
	}, ops)
}
