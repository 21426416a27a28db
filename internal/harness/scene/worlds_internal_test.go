package scene

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// A randomized check that fails says how many worlds it ran and how many
// failed once RUNS asks for them all, and otherwise which world failed
// first and that it stopped there. Here a judge fails every odd seed.
func TestARandomizedFailureCountsItsWorlds(t *testing.T) {
	t.Setenv(suite.PicturesEnv, t.TempDir())
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
	t.Setenv("RUNS", "")
	out := newRunner(ch).outcome(0)
	require.Len(t, out.failures, 1)
	assert.True(t, strings.HasSuffix(out.failures[0].Details, "world 1 of 10 failed, and the check stopped there: RUNS=10 runs every world and counts the failures"), out.failures[0].Details)
	t.Setenv("RUNS", "10")
	out = newRunner(ch).outcome(0)
	require.Len(t, out.failures, 1)
	assert.True(t, strings.HasSuffix(out.failures[0].Details, "10 worlds, 5 failed (the first, seed 1, is told here)"), out.failures[0].Details)
}

// lanesWorld is a world of the parallel chapter: a client that writes
// through server-1 and reads through server-2, more times on some seeds
// than on others, so that worlds take different times to run.
func lanesWorld(seed int64) *Scene {
	s := New(seed, func(p *sim.Proc, _ sim.NodeID, _ []sim.NodeID) { kube.Serve(p, kube.NewMemStore(0)) })
	s.Client("controller-a", func(p *sim.Proc, api *kube.Client) {
		for i := range 3 + int(seed%5)*4 {
			api.Pin("server-1").Create(kube.Object{Kind: "deployments", Name: fmt.Sprintf("web-%d", i), Replicas: int(seed)})
			api.Pin("server-2").Get("deployments/web-0", kube.ReadOptions{})
			p.Sleep(50 * time.Millisecond)
		}
	})
	s.Run(10 * time.Second)
	return s
}

// parallelChapter is a chapter whose randomized check fails at seeds 3, 9
// and 20 (the first of them, seed 3, slow to build when gate is set: it
// waits until seed 9's world has been built, so that a later failing seed
// is finished first), with a check that tallies, one that sums and one
// that shows a figure. built counts the worlds built, finished lists their
// seeds in the order they were built.
type parallelChapter struct {
	mu       sync.Mutex
	built    int
	finished []int64
	gate     chan struct{} // closed once seed 9 is built; nil: no waiting
	once     sync.Once
}

func (pc *parallelChapter) chapter() Chapter[*Scene] {
	fails := func(s *Scene) *suite.Failure {
		if s.Seed == 3 || s.Seed == 9 || s.Seed == 20 {
			return &suite.Failure{Name: "odd-seed", Story: fmt.Sprintf("seed %d wrote %d objects", s.Seed, len(s.History.Operations())), At: 120 * time.Millisecond}
		}
		return nil
	}
	build := func(seed int64) *Scene {
		if pc.gate != nil && seed == 3 {
			select {
			case <-pc.gate:
			case <-time.After(20 * time.Second):
			}
		}
		s := lanesWorld(seed)
		pc.mu.Lock()
		pc.built++
		pc.finished = append(pc.finished, seed)
		pc.mu.Unlock()
		if pc.gate != nil && seed == 9 {
			pc.once.Do(func() { close(pc.gate) })
		}
		return s
	}
	random := []Play{{World: "random", Seeds: Random(40)}}
	return Chapter[*Scene]{
		ID:     "ex04",
		Worlds: map[string]Build[*Scene]{"random": build},
		Checks: []Check[*Scene]{
			{Name: "randomized", Plays: random, Judges: []Judge[*Scene]{fails},
				Figures: []Figure[*Scene]{{Name: "writes", Text: func(s *Scene) string { return fmt.Sprint(len(s.History.Operations())) }}}},
			{Name: "tallied", Plays: random, Judges: []Judge[*Scene]{fails},
				Tally: func(plays [][]*suite.Failure) *suite.Failure {
					n, first := 0, -1
					for j, f := range plays[0] {
						if f != nil {
							n++
							if first < 0 {
								first = j
							}
						}
					}
					f := *plays[0][first]
					f.Story += fmt.Sprintf(", one of %d of %d worlds", n, len(plays[0]))
					return &f
				}},
			{Name: "summed", Plays: random, Judges: []Judge[*Scene]{func(*Scene) *suite.Failure { return nil }},
				Sum: &Sum[*Scene]{
					Count: func(s *Scene) Counts { return Counts{"operations": len(s.History.Operations()), "worlds": 1} },
					Judge: func(sum Counts, seeds []int64) *suite.Failure {
						return &suite.Failure{Name: "summed", Story: fmt.Sprintf("%d operations in %d worlds, seeds %v", sum["operations"], sum["worlds"], seeds)}
					}}},
		},
	}
}

// told is everything a chapter's checks report, as text: the figures, each
// failure's story, marker line and picture, in order.
func told(t *testing.T, c Chapter[*Scene], workers int) string {
	r := newRunner(c)
	r.workers = workers
	var b strings.Builder
	for i := range c.Checks {
		out := r.outcome(i)
		for _, fig := range out.figures {
			fmt.Fprintf(&b, "figure %s: %s\n", fig.name, fig.text)
		}
		for _, f := range out.failures {
			b.WriteString(f.Text() + f.Line() + "\n")
			if f.HTML != "" {
				page, err := os.ReadFile(f.HTML)
				require.NoError(t, err)
				b.Write(page)
			}
		}
	}
	return b.String()
}

// Worlds played in parallel report what worlds played one after another
// do, byte for byte: the first failing seed in the order of the seeds
// (seed 3, here finished after seed 9, which fails too), its story,
// timeline, replay command and picture, the tally's and the sum's counts,
// the figure; with RUNS unset (the check stops at seed 3, and the worlds
// after it not yet begun are never built) and with RUNS=40 (every world
// counted).
func TestWorldsPlayedInParallelReportWhatWorldsPlayedInTurnDo(t *testing.T) {
	t.Setenv(suite.PicturesEnv, t.TempDir())
	for _, runs := range []string{"", "40"} {
		t.Run("RUNS="+runs, func(t *testing.T) {
			t.Setenv("RUNS", runs)
			serial := &parallelChapter{}
			want := told(t, serial.chapter(), 1)
			assert.Contains(t, want, "seed 3 · replay: make ex04 SEED=3")
			assert.Contains(t, want, "one of 3 of 40 worlds")
			assert.Contains(t, want, "figure writes: ")

			parallel := &parallelChapter{gate: make(chan struct{})}
			got := told(t, parallel.chapter(), 4)
			assert.Equal(t, want, got, "the report of 4 workers is the report of one")
			assert.Less(t, slices.Index(parallel.finished, 9), slices.Index(parallel.finished, 3),
				"seed 9 failed before seed 3 was finished, and seed 3 is the one told")
		})
	}
}

// A check that stops at its first failing world does not build the worlds
// after it that have not begun: at most a window of a few times the workers
// beyond it.
func TestAStoppedCheckCancelsTheWorldsAfterIt(t *testing.T) {
	t.Setenv(suite.PicturesEnv, t.TempDir())
	t.Setenv("RUNS", "")
	pc := &parallelChapter{}
	c := pc.chapter()
	c.Checks[0].Plays = []Play{{World: "random", Seeds: Random(200)}}
	c.Checks = c.Checks[:1]
	r := newRunner(c)
	r.workers = 4
	out := r.outcome(0)
	require.Len(t, out.failures, 1)
	assert.Equal(t, int64(3), out.failures[0].Seed)
	assert.Less(t, pc.built, 40, "the worlds after seed 3 not yet begun were never built")
}
