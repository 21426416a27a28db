package sim_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/sim"
)

// worldTrace runs a small world of seed and returns its trace as text: what
// a call of Parallel computes in a suite.
func worldTrace(seed int64) string {
	w := sim.New(seed, sim.Latency(time.Millisecond, 40*time.Millisecond))
	defer w.Close()
	w.AddNode("server", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) { return req, nil })
	})
	for c := range 3 {
		w.AddNode(sim.NodeID(fmt.Sprintf("client-%d", c)), func(p *sim.Proc) {
			for i := range 5 {
				p.Call("server", fmt.Sprintf("ping %d", i), time.Second)
			}
		})
	}
	w.Run(10 * time.Second)
	return fmt.Sprint(w.Trace().Events())
}

// Worlds played on four goroutines come back in the order of their seeds,
// each the world its seed makes alone.
func TestParallelYieldsEachWorldInTheOrderOfItsSeed(t *testing.T) {
	var got []string
	for i, tr := range sim.Parallel(50, 4, func(i int) string { return worldTrace(int64(i + 1)) }) {
		require.Len(t, got, i, "in order")
		got = append(got, tr)
	}
	for i, tr := range got {
		assert.Equal(t, worldTrace(int64(i+1)), tr, "seed %d", i+1)
	}
}

// A loop that stops stops the calls after it not yet begun; every call
// before it has run.
func TestParallelStopsWhereTheLoopStops(t *testing.T) {
	var started atomic.Int64
	var seen []int
	for i := range sim.Parallel(1000, 4, func(i int) int { started.Add(1); return i }) {
		seen = append(seen, i)
		if i == 10 {
			break
		}
	}
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, seen)
	assert.Less(t, started.Load(), int64(100), "at most a window beyond the loop began")
}

// One worker is the plain loop: each call when the loop asks for it.
func TestParallelWithOneWorkerRunsNothingAhead(t *testing.T) {
	calls := 0
	for i := range sim.Parallel(10, 1, func(i int) int { calls++; return i }) {
		assert.Equal(t, i+1, calls)
		if i == 2 {
			break
		}
	}
	assert.Equal(t, 3, calls)
}

// A call that panics panics again in the loop, when its turn comes, with
// its value and its stack; the calls before it were yielded.
func TestParallelRaisesAPanicInItsTurn(t *testing.T) {
	boom := errors.New("boom")
	var seen []int
	defer func() {
		r := recover()
		p, ok := r.(*sim.ParallelPanic)
		require.True(t, ok, "%v", r)
		assert.ErrorIs(t, p, boom)
		assert.Contains(t, p.Error(), "parallel_test.go")
		assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6}, seen)
	}()
	for i := range sim.Parallel(100, 4, func(i int) int {
		if i == 7 || i == 9 {
			panic(boom)
		}
		return i
	}) {
		seen = append(seen, i)
	}
	t.Fatal("the loop ended without the panic")
}
