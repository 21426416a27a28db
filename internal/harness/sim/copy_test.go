package sim_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/sim"
)

// Batch is a message that holds references: a slice, a map, a pointer.
type Batch struct {
	Entries []int
	Seen    map[string]int
	Log     *[]string
	private []int
}

// A server that sends its history in one message does not share it: the
// receiver gets a copy, so a change the sender makes after the send never
// arrives without another message, and the receiver's changes stay its own.
func TestTheNetworkCarriesCopiesNotMemory(t *testing.T) {
	w := sim.New(1, sim.Latency(ms, ms))
	defer w.Close()
	var got Batch
	w.AddNode("server-2", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			got = req.(Batch)
			got.Entries[0] = -1 // the receiver's change stays on the receiver
			return got.Entries, nil
		})
	})
	log := []string{"created web"}
	sent := Batch{Entries: []int{1, 2, 3}, Seen: map[string]int{"web": 1}, Log: &log, private: []int{7}}
	var reply []int
	w.AddNode("server-1", func(p *sim.Proc) {
		p.Go("later", func(p *sim.Proc) {
			p.Sleep(ms / 2) // the message is on the wire
			sent.Entries[1] = 99
			sent.Seen["web"] = 99
			log[0] = "changed in memory"
			sent.private[0] = 99
		})
		r, err := p.Call("server-2", sent, time.Second)
		require.NoError(t, err)
		reply = r.([]int)
	})
	require.NoError(t, w.Run(time.Second))
	assert.Equal(t, []int{-1, 2, 3}, got.Entries, "the sender's later change did not travel")
	assert.Equal(t, 1, got.Seen["web"])
	assert.Equal(t, []string{"created web"}, *got.Log, "a pointer's target is copied too")
	assert.Equal(t, []int{7}, got.private, "unexported fields are copied as well")
	assert.Equal(t, 99, sent.Entries[1])
	assert.Equal(t, []int{-1, 2, 3}, reply, "the reply is a copy of what the receiver returned")
	reply[2] = 0
	assert.Equal(t, 3, got.Entries[2], "and changing it changes nothing on the receiver")
}

// A message that arrives twice arrives as two copies.
func TestADuplicatedMessageArrivesAsTwoCopies(t *testing.T) {
	w := sim.New(1, sim.Latency(ms, ms))
	defer w.Close()
	w.SetDefaultLink(sim.Link{Min: ms, Max: ms, Duplicate: 1})
	var got [][]int
	w.AddNode("server-2", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			b := req.(Batch)
			got = append(got, b.Entries)
			b.Entries[0]++
			return nil, nil
		})
	})
	w.AddNode("server-1", func(p *sim.Proc) { p.Send("server-2", Batch{Entries: []int{1}}) })
	require.NoError(t, w.Run(time.Second))
	assert.Equal(t, [][]int{{2}, {2}}, got, "each delivery changed only its own copy")
}

// The standard library's errors keep their identity across the network, so
// errors.Is works on an error a handler returned.
func TestErrorsKeepTheirIdentityAcrossTheNetwork(t *testing.T) {
	errStale := errors.New("stale")
	w := sim.New(1, sim.Latency(ms, ms))
	defer w.Close()
	w.AddNode("server-2", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			return nil, fmt.Errorf("server-2: %w", errStale)
		})
	})
	var err error
	w.AddNode("server-1", func(p *sim.Proc) { _, err = p.Call("server-2", "get", time.Second) })
	require.NoError(t, w.Run(time.Second))
	assert.ErrorIs(t, err, errStale)
}

// A function or a channel cannot travel: the run stops and says which
// message carried it.
func TestAFunctionCannotTravel(t *testing.T) {
	type Hook struct{ Call func() }
	w := sim.New(1, sim.Latency(ms, ms))
	defer w.Close()
	w.AddNode("server-2", func(p *sim.Proc) { p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return nil, nil }) })
	w.AddNode("server-1", func(p *sim.Proc) { p.Send("server-2", Hook{Call: func() {}}) })
	err := w.Run(time.Second)
	var m *sim.MisuseError
	require.ErrorAs(t, err, &m)
	assert.Contains(t, m.Error(), "the message Hook from server-1 to server-2 carries a func")
}

// The harness's working values are not data: a queue sent to another node
// would let two nodes wait on one queue.
func TestAQueueCannotTravel(t *testing.T) {
	type Handoff struct{ Q *sim.Queue[int] }
	w := sim.New(1, sim.Latency(ms, ms))
	defer w.Close()
	w.AddNode("server-2", func(p *sim.Proc) { p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return nil, nil }) })
	w.AddNode("server-1", func(p *sim.Proc) { p.Send("server-2", Handoff{Q: &sim.Queue[int]{}}) })
	err := w.Run(time.Second)
	var m *sim.MisuseError
	require.ErrorAs(t, err, &m)
	assert.Contains(t, m.Error(), "the message Handoff from server-1 to server-2 carries a sim.Queue[int], which belongs to the node that made it")
}
