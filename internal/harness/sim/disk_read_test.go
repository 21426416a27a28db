package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/sim"
)

// A read of a file ends where the file does: a reader that slices past its
// end (a record whose length runs past a torn tail) panics on every run,
// whatever capacity the copy's allocation happened to round up to.
func TestAReadEndsWhereTheFileEnds(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) {
		p.Disk().Open("wal").Append([]byte("12345"))
	})
	require.NoError(t, w.Run(time.Millisecond))
	f := w.Disk("server-1").Open("wal")
	all := f.ReadAll()
	assert.Equal(t, "12345", string(all))
	assert.Equal(t, len(all), cap(all))
	part := f.ReadAt(1, 3)
	assert.Equal(t, "234", string(part))
	assert.Equal(t, len(part), cap(part))
	assert.Panics(t, func() { _ = all[:len(all)+1] })
}

// A suite reading a disk from outside without a copy (World.FileBytes) sees
// what ReadAll and Synced would, ends where the file does too, and reads
// nothing of a file the node never opened (without creating it).
func TestASuiteReadsAFileWithoutACopy(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) {
		f := p.Disk().Open("wal")
		f.Append([]byte("123"))
		f.Sync(p)
		f.Append([]byte("45"))
	})
	require.NoError(t, w.Run(time.Second))
	data, synced := w.FileBytes("server-1", "wal")
	f := w.Disk("server-1").Open("wal")
	assert.Equal(t, f.ReadAll(), data)
	assert.Equal(t, f.Synced(), synced)
	assert.Equal(t, 3, synced)
	assert.Equal(t, len(data), cap(data))
	none, n := w.FileBytes("server-1", "other")
	assert.Nil(t, none)
	assert.Zero(t, n)
	assert.Equal(t, []string{"wal"}, w.Disk("server-1").Files())
}

// One node's disk made slow syncs in its own latency while the others keep
// the world's, a Sync already under way keeps the latency it began with,
// and the slow spell is a fault of its kind until the latency is reset.
func TestOneDiskSyncsSlowerThanTheWorlds(t *testing.T) {
	w := sim.New(1, sim.DiskSyncLatency(2*time.Millisecond))
	defer w.Close()
	synced := map[sim.NodeID][]time.Duration{}
	for _, id := range []sim.NodeID{"fast", "slow"} {
		w.AddNode(id, func(p *sim.Proc) {
			f := p.Disk().Open("wal")
			for range 3 {
				f.Append([]byte("x"))
				f.Sync(p)
				synced[id] = append(synced[id], p.Now())
			}
		})
	}
	w.At(time.Millisecond, func() { w.SetDiskSyncLatency("slow", 10*time.Millisecond) })
	w.At(15*time.Millisecond, func() { w.SetDiskSyncLatency("slow", 0) })
	require.NoError(t, w.Run(time.Second))
	assert.Equal(t, []time.Duration{2 * time.Millisecond, 4 * time.Millisecond, 6 * time.Millisecond}, synced["fast"])
	assert.Equal(t, []time.Duration{2 * time.Millisecond, 12 * time.Millisecond, 22 * time.Millisecond}, synced["slow"])
	faults := w.Faults()
	require.Len(t, faults, 1)
	assert.Equal(t, sim.FaultSlowDisk, faults[0].Kind)
	assert.Equal(t, []sim.NodeID{"slow"}, faults[0].Nodes)
	assert.Equal(t, time.Millisecond, faults[0].Start)
	assert.Equal(t, 15*time.Millisecond, faults[0].End)
	assert.Equal(t, "slow disk", faults[0].Kind.String())
}
