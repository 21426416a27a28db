package scene

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// A randomized check that fails says how many worlds it ran and how many
// failed once RUNS asks for them all, and otherwise which world failed
// first and that it stopped there. Here a judge fails every odd seed.
func TestARandomizedFailureCountsItsWorlds(t *testing.T) {
	ch := Chapter[*Scene]{
		ID: "ex04",
		Worlds: map[string]Build[*Scene]{"random": func(seed int64) *Scene {
			s := New(seed, func(p *sim.Proc, _ sim.NodeID, _ []sim.NodeID) { kube.Serve(p, kube.NewMemStore(0)) })
			s.Run(0)
			return s
		}},
		Checks: []Check[*Scene]{{Name: "randomized", Plays: []Play{{World: "random", Seeds: Random(10)}},
			Judges: []Judge[*Scene]{func(s *Scene) *suite.Failure {
				if s.Seed%2 == 1 {
					return &suite.Failure{Name: "odd"}
				}
				return nil
			}}}},
	}
	seeds := Random(10).List()
	t.Setenv("RUNS", "")
	assert.Equal(t, "world 1 of 10 failed, and the check stopped there: RUNS=10 runs every world and counts the failures",
		newRunner(ch).worldsFailed("random", 0, seeds, 0))
	t.Setenv("RUNS", "10")
	assert.Equal(t, "10 worlds, 5 failed (the first, seed 1, is told here)", newRunner(ch).worldsFailed("random", 0, Random(10).List(), 0))
}
