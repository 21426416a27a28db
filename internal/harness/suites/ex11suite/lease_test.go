package ex11suite

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"onehistory/internal/harness/sim"
)

// A deposed leader's story says when it last heard from a majority: in five
// servers, the second most recent of the others' last messages to it (with
// itself, three), what it sent itself not counting.
func TestADeposedLeaderLastHeardFromAMajorityWhenTheSecondOtherFellSilent(t *testing.T) {
	servers := []sim.NodeID{"server-1", "server-2", "server-3", "server-4", "server-5"}
	ms := time.Millisecond
	events := []sim.Event{
		{At: 100 * ms, Kind: sim.EvRecv, Node: "server-1", Peer: "server-2"},
		{At: 200 * ms, Kind: sim.EvRecv, Node: "server-1", Peer: "server-3"},
		{At: 300 * ms, Kind: sim.EvRecvReply, Node: "server-1", Peer: "server-4"},
		{At: 350 * ms, Kind: sim.EvRecv, Node: "server-1", Peer: "dashboard"},
		{At: 360 * ms, Kind: sim.EvSend, Node: "server-1", Peer: "server-2"},
		{At: 400 * ms, Kind: sim.EvRecv, Node: "server-2", Peer: "server-3"},
		{At: 900 * ms, Kind: sim.EvRecv, Node: "server-1", Peer: "server-4"},
	}
	assert.Equal(t, 200*ms, heardFromMajority(events, servers, "server-1", 800*ms),
		"server-4 at 300ms and server-3 at 200ms: a majority with itself last at 200ms")
	assert.Equal(t, 200*ms, heardFromMajority(events, servers, "server-1", time.Second),
		"server-4 again at 900ms moves nothing: server-3 is still the second")
	assert.Equal(t, time.Duration(0), heardFromMajority(events, servers, "server-1", 150*ms),
		"by 150ms it had heard from one other server only")
}
