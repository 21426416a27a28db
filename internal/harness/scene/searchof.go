package scene

import (
	"testing"

	"onehistory/internal/harness/check"
)

// SearchOf is a Search for a check whose build makes more than a scene: a
// world of the suite's own type W (the scene, the clients' plans, what the
// servers held) that its judge needs whole. Build returns the scene and the
// world; Judge receives the world. Only one world is alive at a time: the
// one judged last is let go before the next is built, since a world holds
// its whole trace.
type SearchOf[W any] struct {
	Seeds []int64
	Build func(seed int64) (*Scene, W)
	Judge func(t *testing.T, w W) bool
	// The guard against vacuous runs, as in Search.
	MinCompleted int
	MinCovered   float64
	Faults       func(s *Scene) []check.Fault
}

// Run runs the search and reports whether every seed passed.
func (x SearchOf[W]) Run(t *testing.T) bool {
	t.Helper()
	var w W
	return Search{
		Seeds: x.Seeds,
		Build: func(seed int64) *Scene {
			s, built := x.Build(seed)
			w = built
			return s
		},
		Judge: func(t *testing.T, _ *Scene) bool {
			ok := x.Judge(t, w)
			var gone W
			w = gone
			return ok
		},
		MinCompleted: x.MinCompleted,
		MinCovered:   x.MinCovered,
		Faults:       x.Faults,
	}.Run(t)
}
