package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/sim"
)

// A monitor hooked with OnStep sees every step, and sees a server's status
// change at the very step that changed it: the server says it leads term 2
// at 10ms, and at 10ms, not later, the hook reads "leader of term 2".
func TestOnStepSeesEveryStatusChangeAtItsStep(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) {
		p.SetStatus("follower of term 1")
		p.Sleep(10 * ms)
		p.SetStatus("leader of term 2")
		p.Sleep(10 * ms)
	})
	var seen []string
	var last uint64
	steps := 0
	w.OnStep(func() {
		steps++
		v, version := w.Status("server-1")
		if version == last {
			return
		}
		last = version
		seen = append(seen, sim.FormatTime(w.Now())+" "+v.(string))
	})
	require.NoError(t, w.Run(time.Second))
	assert.Equal(t, []string{"0ms follower of term 1", "10ms leader of term 2"}, seen)
	assert.Equal(t, int(w.Steps()), steps, "the hook ran after every step")
}

// A crash forgets what a server said about itself: its status is nil and
// its version changes, so a monitor knows to forget it too; after the
// restart it is what the new boot says.
func TestACrashForgetsAServersStatus(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	boots := 0
	w.AddNode("server-1", func(p *sim.Proc) {
		boots++
		if boots == 1 {
			p.SetStatus("leader of term 1")
		}
	})
	w.At(5*ms, func() { w.Crash("server-1") })
	var before, during any
	var v1, v2 uint64
	w.At(4*ms, func() { before, v1 = w.Status("server-1") })
	w.At(6*ms, func() { during, v2 = w.Status("server-1") })
	w.At(7*ms, func() { w.Restart("server-1") })
	require.NoError(t, w.Run(time.Second))
	assert.Equal(t, "leader of term 1", before)
	assert.Nil(t, during, "a crashed server says nothing about itself")
	assert.NotEqual(t, v1, v2)
	after, _ := w.Status("server-1")
	assert.Nil(t, after, "the second boot said nothing yet")
}

// A hook may end the run: a monitor that finds a broken invariant calls
// Stop, and the run ends after that step.
func TestAHookMayStopTheRun(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) {
		for {
			p.Sleep(10 * ms)
		}
	})
	w.OnStep(func() {
		if w.Now() >= 50*ms {
			w.Stop()
		}
	})
	require.NoError(t, w.Run(time.Second))
	assert.Equal(t, 50*ms, w.Now())
}

// A hook that reads the trace with Since after every step sees each event
// once, in order, whatever the chunk it sits in: a sender of 1000 messages
// (more than the trace's first chunks hold) seen step by step gives the
// same events as the whole trace read at the end.
func TestTraceSinceGivesWhatIsNewAfterEveryStep(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", kvServer)
	w.AddNode("client", func(p *sim.Proc) {
		for i := range 1000 {
			p.Send("server-1", Put{Key: "k", Value: i})
			p.Sleep(ms)
		}
	})
	var seen []sim.Event
	w.OnStep(func() { seen = append(seen, w.Trace().Since(len(seen))...) })
	require.NoError(t, w.Run(2*time.Second))
	all := w.Trace().Events()
	require.GreaterOrEqual(t, len(all), 2000)
	assert.Equal(t, all, seen)
	assert.Empty(t, w.Trace().Since(len(all)))
	assert.Equal(t, all[len(all)-3:], w.Trace().Since(len(all)-3))
	assert.Equal(t, all, w.Trace().Since(-1), "a negative index counts from the first event")
	buf := make([]sim.Event, 0, 8)
	buf = w.Trace().AppendSince(buf[:0], len(all)-2)
	assert.Equal(t, all[len(all)-2:], buf)
	assert.Empty(t, w.Trace().AppendSince(buf[:0], len(all)), "nothing new: the buffer comes back empty")
}
