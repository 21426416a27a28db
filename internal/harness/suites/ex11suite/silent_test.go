package ex11suite

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// A server that never says its state leaves the monitor nothing to judge:
// the world fails, naming that server, instead of passing unjudged.
func TestAServerThatSaysNothingFailsTheWorld(t *testing.T) {
	w := &world{Scene: &scene.Scene{Servers: []sim.NodeID{"server-1", "server-2"}}, said: map[sim.NodeID]bool{"server-1": true}}
	w.Scene.W = sim.New(1)
	defer w.W.Close()
	f := silent(w)
	require.NotNil(t, f)
	assert.Equal(t, "server-said-nothing", f.Name)
	assert.Contains(t, f.Story, "server-2 never told its term")

	w.said["server-2"] = true
	assert.Nil(t, silent(w), "every server said its state")
}
