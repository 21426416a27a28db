package engine

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A chapter graded alone plays its worlds on every CPU; chapters graded
// side by side share them, at least one each; one worker sets no
// GOMAXPROCS (the suite holds itself to one processor), whatever the
// grader's own environment says.
func TestAChapterPlaysItsWorldsOnTheCPUsItsNeighboursLeaveIt(t *testing.T) {
	cpus := runtime.GOMAXPROCS(0)
	alone := Options{Parallel: cpus}
	alone.workers(1)
	assert.Equal(t, cpus, alone.Workers)
	all := Options{Parallel: cpus}
	all.workers(14)
	assert.Equal(t, 1, all.Workers)
	set := Options{Parallel: 1, Workers: 3}
	set.workers(1)
	assert.Equal(t, 3, set.Workers, "a number given is kept")

	env := []string{"HOME=/h", "GOMAXPROCS=8"}
	assert.Equal(t, []string{"HOME=/h"}, workersEnv(env, 1))
	assert.Equal(t, []string{"HOME=/h", "GOMAXPROCS=2"}, workersEnv(env, 2))
}
