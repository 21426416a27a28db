package scene

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"onehistory/internal/harness/sim"
)

// A timeline set by ShowMessages, like the default, keeps every note,
// crash, restart and fault, never a disk event, and asks the chapter only
// about messages.
func TestShowMessagesDecidesOnlyTheMessages(t *testing.T) {
	s := &Scene{Servers: []sim.NodeID{"server-1", "server-2"}}
	between := sim.Event{Kind: sim.EvSend, Node: "server-1", Peer: "server-2"}
	toClient := sim.Event{Kind: sim.EvReply, Node: "server-1", Peer: "kubectl"}
	always := []sim.Event{{Kind: sim.EvNote, Node: "kubectl"}, {Kind: sim.EvCrash}, {Kind: sim.EvRestart}, {Kind: sim.EvFault}}
	disk := sim.Event{Kind: sim.EvDisk, Node: "server-1", Peer: "server-2"}

	keep := s.filter()
	assert.True(t, keep(between), "the default shows the messages between servers")
	assert.False(t, keep(toClient), "and no other")

	s.ShowMessages(func(e sim.Event) bool { return e.Peer == "kubectl" })
	keep = s.filter()
	assert.False(t, keep(between))
	assert.True(t, keep(toClient), "the chapter decides which messages show")
	for _, e := range always {
		assert.True(t, keep(e), "%s shows whatever the chapter says of messages", e.Kind)
	}
	assert.False(t, keep(disk), "a disk event never shows")
}
