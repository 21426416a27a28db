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
