package scene

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"onehistory/internal/harness/sim"
)

// The picture draws the nodes the failure is about even when the terminal's
// timeline leaves them out: a node a fault hit, or that the story names,
// gets a lane of its own after the timeline's, so that its crash is shaded
// on it and not on the lanes of the nodes it did not hit. A name inside a
// longer one ("node-7" in "node-70") is not the node.
func TestThePictureHasALaneForEveryNodeTheFailureIsAbout(t *testing.T) {
	nodes := []sim.NodeID{"server-1", "node-controller", "node-2", "node-3", "node-7", "node-8"}
	faults := []sim.Fault{
		{Kind: sim.FaultCrash, Desc: "crash node-2", Nodes: []sim.NodeID{"node-2"}},
		{Kind: sim.FaultSlow, Desc: "disk of server-1", Nodes: []sim.NodeID{"server-1"}},
	}
	story := "at 150012.3ms the node controller evicted pods/web-node-7 from node-7, which was alive; node-70 and node-8x are not nodes of this world"
	assert.Equal(t, []sim.NodeID{"server-1", "node-2", "node-7"}, extraLanes(nodes, []sim.NodeID{"node-controller"}, faults, story))
	assert.Empty(t, extraLanes(nodes, nodes, faults, story), "a node that is a lane already is not drawn twice")

	assert.True(t, namesWord("evicted it from node-7.", "node-7"))
	assert.False(t, namesWord("pods/web-node-7", "node-7"))
	assert.False(t, namesWord("node-70", "node-7"))
}
