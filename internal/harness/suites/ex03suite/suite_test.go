package ex03suite

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/suites/ex03suite/drill"
)

// tally judges every world check name plays, as the runner does, and
// returns the failure the check's tally reports.
func tally(t *testing.T, impl func(c *drill.Cluster) error, name string) *suite.Failure {
	t.Setenv("RUNS", "3")
	ch := chapter(impl)
	i := slices.IndexFunc(ch.Checks, func(k scene.Check[*world]) bool { return k.Name == name })
	require.GreaterOrEqual(t, i, 0, name)
	plays := make([][]*suite.Failure, len(ch.Checks[i].Plays))
	for p, play := range ch.Checks[i].Plays {
		for _, seed := range play.Seeds.List() {
			plays[p] = append(plays[p], ch.Verdict(name, play.World, seed))
		}
	}
	return ch.Checks[i].Tally(plays)
}

// wolf runs the world and always reports a finding.
func wolf(c *drill.Cluster) error {
	c.Run(time.Second) //nolint:errcheck // nothing runs
	return errors.New("the cluster is broken\nreally")
}

// A drill that cries wolf catches every broken cluster and is told so, and
// then told the finding it reported against a correct one.
func TestADrillThatAlwaysFailsIsAFalseAlarm(t *testing.T) {
	f := tally(t, wolf, "catches-async-replication")
	require.NotNil(t, f)
	assert.Equal(t, nameFalseAlarm, f.Name)
	assert.Equal(t, `your drill caught the cluster "asynchronous replication" on 3 of 3 seeds, but it also reported a finding against the cluster "one store behind both servers", which keeps the contract (seed 1): the cluster is broken`, f.Story)
	assert.Contains(t, f.Details, "your drill's finding, in full:\n  the cluster is broken\n  really")

	f = tally(t, wolf, "passes-correct-clusters")
	require.NotNil(t, f)
	assert.True(t, strings.HasPrefix(f.Story, `your drill reported a finding against the cluster "one store behind both servers"`), f.Story)
}

// A drill that never runs the world declares every cluster healthy: each
// broken one is told with how many seeds it slipped through, and the
// correct ones are passed for nothing.
func TestADrillThatNeverRunsTheWorldMissesEveryCluster(t *testing.T) {
	idle := func(c *drill.Cluster) error { return nil }
	f := tally(t, idle, "catches-lost-write")
	require.NotNil(t, f)
	assert.Equal(t, nameSilence, f.Name)
	assert.True(t, strings.HasSuffix(f.Story, "; your drill declared it healthy on 3 of 3 seeds (it must catch it on 90%)"), f.Story)
	assert.Contains(t, f.Details, "it never ran the world (c.Run)")
	assert.Equal(t, int64(1), f.Seed, "the first seed it slipped through")

	f = tally(t, idle, "passes-correct-clusters")
	require.NotNil(t, f)
	assert.True(t, strings.HasPrefix(f.Story, "your drill passed every correct cluster, but it passes the broken ones too: a drill that never fails proves nothing. "+
		`The cluster "asynchronous replication"`), f.Story)
}

// A drill that panics is told before anything it concluded.
func TestADrillThatPanicsIsToldFirst(t *testing.T) {
	f := tally(t, func(c *drill.Cluster) error { panic("oops") }, "catches-divergence")
	require.NotNil(t, f)
	assert.Equal(t, suite.PanicName, f.Name)
	assert.Equal(t, `your drill panicked on the cluster "two separate memories"`, f.Story)
}
