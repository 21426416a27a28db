package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/sim"
)

// A controller paused for 20s between deciding and writing keeps what it
// decided: it wakes with its memory, its sleep ends late, and its clock
// shows the time it lost. A crash would have forgotten the decision.
func TestAPausedNodeKeepsItsMemoryAndWakesLate(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	var decided int
	var woke, clock time.Duration
	w.AddNode("controller-a", func(p *sim.Proc) {
		decided = 3 // in memory: the pods it means to create
		p.Sleep(100 * ms)
		woke, clock = p.Now(), p.Clock()
		decided++
	})
	w.At(50*ms, func() { w.Pause("controller-a") })
	w.At(20050*ms, func() { w.Resume("controller-a") })
	require.NoError(t, w.Run(time.Minute))
	assert.Equal(t, 4, decided, "the process went on from where it stopped")
	assert.Equal(t, 20050*ms, woke, "the 100ms sleep came due during the pause and fired at the resume")
	assert.Equal(t, woke, clock)
	f := w.Faults()
	require.Len(t, f, 1)
	assert.Equal(t, sim.FaultPause, f[0].Kind)
	assert.Equal(t, "pause controller-a from 50ms to 20050ms", f[0].String())
	assert.Equal(t, "pause", f[0].Kind.Shade())
}

// Requests to a paused node queue and are answered after the resume; the
// caller sees a slow reply, or a timeout if it gave up first, never a
// refusal: a paused node is not a crashed one.
func TestRequestsToAPausedNodeQueueUntilItResumes(t *testing.T) {
	w := sim.New(1, sim.Latency(ms, ms))
	defer w.Close()
	w.AddNode("server-1", kvServer)
	var patient, impatient error
	var patientAt time.Duration
	var got any
	w.AddNode("client", func(p *sim.Proc) {
		p.Sleep(10 * ms)
		p.Go("impatient", func(p *sim.Proc) {
			_, impatient = p.Call("server-1", Put{"k", 1}, 500*ms)
		})
		got, patient = p.Call("server-1", Get{"k"}, 5*time.Second)
		patientAt = p.Now()
	})
	w.At(5*ms, func() { w.Pause("server-1") })
	w.At(2005*ms, func() {
		assert.True(t, w.Up("server-1"), "a paused node is up")
		assert.True(t, w.Paused("server-1"))
		w.Resume("server-1")
		assert.False(t, w.Paused("server-1"))
	})
	require.NoError(t, w.Run(time.Minute))
	assert.ErrorIs(t, impatient, sim.ErrTimeout, "the outcome is unknown to a caller that gave up")
	require.NoError(t, patient)
	assert.Equal(t, 2006*ms, patientAt, "handled at the resume, answered over a 1ms link")
	_ = got // the two requests run in an order drawn from the seed
}

// A paused node with nothing left to do at the end of the run is frozen, not
// deadlocked; a crash of a paused node ends the pause.
func TestAPauseIsNotADeadlockAndACrashEndsIt(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) { p.Sleep(time.Second) })
	w.AddNode("server-2", func(p *sim.Proc) { p.Sleep(time.Second) })
	w.At(ms, func() { w.Pause("server-1"); w.Pause("server-2") })
	w.At(2*ms, func() { w.Crash("server-2") })
	require.NoError(t, w.Run(time.Minute), "server-1's sleep came due at 1000ms, paused: the run ends there")
	assert.True(t, w.Paused("server-1"))
	assert.False(t, w.Paused("server-2"))
	var kinds []string
	for _, f := range w.Faults() {
		kinds = append(kinds, f.String())
	}
	assert.Equal(t, []string{"pause server-1 from 1ms to 1000ms", "pause server-2 from 1ms to 2ms", "crash server-2 from 2ms to 1000ms"}, kinds)
}

// A node's clock at rate 2 gains a second each second, its sleeps and call
// timeouts are measured on that clock, and a skew still adds its offset.
func TestAClockAtItsOwnRateMeasuresTheNodesOwnWaits(t *testing.T) {
	w := sim.New(1, sim.Latency(10*time.Second, 10*time.Second))
	defer w.Close()
	w.AddNode("server-1", kvServer)
	var slept, clock, timedOut time.Duration
	w.AddNode("controller-b", func(p *sim.Proc) {
		p.Sleep(time.Second) // begun at the true rate: 1s of virtual time
		p.Sleep(time.Second) // at rate 2: half a second
		slept, clock = p.Now(), p.Clock()
		_, err := p.Call("server-1", Get{"k"}, 4*time.Second)
		assert.ErrorIs(t, err, sim.ErrTimeout)
		timedOut = p.Now()
	})
	w.At(500*ms, func() { w.SetSkew("controller-b", 100*ms); w.SetClockRate("controller-b", 2) })
	require.NoError(t, w.Run(time.Minute))
	assert.Equal(t, 1500*ms, slept)
	assert.Equal(t, 500*ms+2*time.Second+100*ms, clock, "0.5s at the true rate, 1s at twice it, and the skew")
	assert.Equal(t, 3500*ms, timedOut, "a 4s timeout on a clock at rate 2")
	f := w.Faults()
	require.NotEmpty(t, f)
	assert.Equal(t, sim.FaultClockRate, f[0].Kind)
	assert.Equal(t, "clock of controller-b running at 2×", f[0].Desc)
	assert.Equal(t, 500*ms, f[0].Start)
	assert.True(t, f[0].Open)
}

// Setting a rate never makes the clock jump; putting it back to 1 keeps
// what the slow spell lost, and ends the fault.
func TestAClockRateChangesTheClockWithoutAJump(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	var at []time.Duration
	w.AddNode("controller-a", func(p *sim.Proc) {
		for range 4 {
			at = append(at, p.Clock())
			p.Sleep(time.Second)
		}
	})
	w.SetClockRate("controller-a", 0.5)
	w.At(3*time.Second, func() { w.SetClockRate("controller-a", 1) })
	require.NoError(t, w.Run(time.Minute))
	// At rate 0.5 each 1s sleep lasts 2s of virtual time: the reads are at
	// virtual 0s, 2s, 4s and 5s (the last sleep begun at rate 1). The
	// clock lost half of each second until 3s, and keeps what it lost.
	assert.Equal(t, []time.Duration{0, time.Second, 2500 * ms, 3500 * ms}, at)
	f := w.Faults()
	require.Len(t, f, 1)
	assert.Equal(t, "clock of controller-a running at 0.5× from 0ms to 3000ms", f[0].String())
}

// Harness code running in the node's own process (a client's callback) may
// pause it between two statements: what follows runs after the resume, with
// what the process held before.
func TestAPauseFromTheNodesOwnProcessFreezesItThere(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	var before, after time.Duration
	w.AddNode("controller-a", func(p *sim.Proc) {
		p.Sleep(60 * time.Second)
		before = p.Now() // decided
		w.Pause("controller-a")
		after = p.Now() // writes
	})
	w.At(80*time.Second, func() { w.Resume("controller-a") })
	require.NoError(t, w.Run(2*time.Minute))
	assert.Equal(t, 60*time.Second, before)
	assert.Equal(t, 80*time.Second, after)
}
