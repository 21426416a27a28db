package scene_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// pair is a world of the example chapter: the story's two writers, and how
// many times a world of this chapter was built.
type pair struct {
	*scene.Scene
	built *int
}

// Stage is the scene the pair played (the embedded field hides the
// method a *Scene has of that name).
func (p pair) Stage() *scene.Scene { return p.Scene }

// pairChapter judges the story's two writers with the shared judges, in
// two checks that play the same world, and counts the worlds it builds.
func pairChapter(boot scene.Boot, built *int) scene.Chapter[pair] {
	return scene.Chapter[pair]{
		ID: "ex04",
		Worlds: map[string]scene.Build[pair]{
			"story": func(seed int64) pair { *built++; return pair{twoWriters(seed, boot), built} },
		},
		Checks: []scene.Check[pair]{
			{Name: "story", Plays: []scene.Play{{World: "story", Seeds: scene.Story(3)}},
				Judges: []scene.Judge[pair]{scene.OnStage[pair](scene.OneHistory), scene.OnStage[pair](scene.Linearizable)}},
			{Name: "acknowledged", Plays: []scene.Play{{World: "story", Seeds: scene.Story(3)}},
				Judges: []scene.Judge[pair]{scene.OnStage[pair](scene.Durable), func(p pair) *suite.Failure {
					all, acked := p.Writes()
					return &suite.Failure{Name: "counted", Story: fmt.Sprintf("%d of %d writes acknowledged", acked, all)}
				}}},
		},
	}
}

func TestAJudgedWorldIsAFailureValueWithItsSeedItsTimeAndItsTimeline(t *testing.T) {
	built := 0
	ch := pairChapter(lonely, &built)
	f := ch.Verdict("story", "story", 2)
	require.NotNil(t, f, "the naive pair keeps two stores")
	// server-2 never heard of web, so its empty history is a prefix of
	// server-1's and OneHistory finds nothing; the next judge does.
	assert.Equal(t, "non-linearizable", f.Name, "the first judge that finds something is the one told")
	assert.Equal(t, int64(2), f.Seed)
	assert.Equal(t, f.At, f.At.Round(100*time.Microsecond), "the runner rounds the decisive moment")
	assert.Contains(t, f.Timeline, "controller-a", "the runner draws the timeline before the world is let go")
	assert.Nil(t, f.Drawing, "a finished failure carries no drawing: the runner keeps it aside")
}

func TestEveryCheckThatPlaysAWorldIsJudgedFromOneBuild(t *testing.T) {
	built := 0
	ch := pairChapter(lonely, &built)
	_ = ch.Verdict("story", "story", 1)
	assert.Equal(t, 1, built, "one world, judged for both checks that play it")
	f := ch.Verdict("acknowledged", "story", 1)
	require.NotNil(t, f)
	assert.Equal(t, "counted", f.Name, "each check asks its own judges, in order")
	assert.Equal(t, "2 of 3 writes acknowledged", f.Story)
}

// Checks that share one list of judges (the same slice) share its verdict
// on a world: the runner asks the list once, and each check still tells
// the failure as its own.
func TestChecksThatShareTheirJudgesJudgeAWorldOnce(t *testing.T) {
	built, asked := 0, 0
	ch := pairChapter(lonely, &built)
	shared := []scene.Judge[pair]{func(p pair) *suite.Failure {
		asked++
		return &suite.Failure{Name: "counted", Story: "judged"}
	}}
	ch.Checks[0].Judges, ch.Checks[1].Judges = shared, shared
	f := ch.Verdict("acknowledged", "story", 1)
	require.NotNil(t, f)
	assert.Equal(t, "counted", f.Name, "the shared verdict is each check's")
	assert.Equal(t, 1, asked, "one world, one list of judges: asked once for both checks")

	ch.Checks[1].Judges = append([]scene.Judge[pair](nil), shared...)
	asked = 0
	_ = ch.Verdict("acknowledged", "story", 1)
	assert.Equal(t, 2, asked, "two lists alike but not shared are each asked")
}

func TestAWorldThatCouldNotRunIsToldBeforeAnyJudge(t *testing.T) {
	built := 0
	ch := pairChapter(func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
		if self == "server-2" {
			var m map[string]int
			m["web"] = 2 // a panic on server-2's first instant
		}
		kube.Serve(p, kube.NewMemStore(0))
	}, &built)
	f := ch.Verdict("story", "story", 1)
	require.NotNil(t, f)
	assert.Equal(t, suite.PanicName, f.Name)
	assert.True(t, strings.Contains(f.Story, "server-2"), f.Story)
}

func TestSeedsFollowTheEnvironment(t *testing.T) {
	t.Setenv("RUNS", "7")
	assert.Len(t, scene.Random(3).List(), 7, "RUNS widens a randomized play")
	assert.Len(t, scene.Story(3).List(), 3, "and leaves a scene alone")
	t.Setenv("SEED", "42")
	assert.Equal(t, []int64{42}, scene.Random(3).List(), "SEED replays one world")
	assert.Equal(t, []int64{42}, scene.Story(3).List())
	assert.Empty(t, scene.Scenes(3).List(), "a replay of a random world plays no scripted scene")
}

// A chapter is a list of worlds and checks; a judge is a function from a
// finished world to the failure it finds. Here the naive pair of API
// servers, each with a store of its own, is judged by the shared judges.
func ExampleChapter() {
	ch := scene.Chapter[*scene.Scene]{
		ID: "ex04",
		Worlds: map[string]scene.Build[*scene.Scene]{
			"story": func(seed int64) *scene.Scene { return twoWriters(seed, lonely) },
		},
		Checks: []scene.Check[*scene.Scene]{{
			Name:   "story",
			Plays:  []scene.Play{{World: "story", Seeds: scene.Story(3)}},
			Judges: []scene.Judge[*scene.Scene]{scene.OneHistory, scene.Durable, scene.Linearizable},
		}},
	}
	// In a suite: ch.Run(t). Here, one world, judged as Run would:
	f := ch.Verdict("story", "story", 1)
	fmt.Println(f.Name, "at", suite.FormatTime(f.At))
	fmt.Println(f.Replay == "", f.Seed)
	// Output:
	// non-linearizable at 1025.1ms
	// true 1
}

func TestWithDetailsAddsAFigureUnderAFailureAndLeavesAPassAlone(t *testing.T) {
	fails := func(pair) *suite.Failure { return &suite.Failure{Name: "stale-read", Details: "the read"} }
	holds := func(pair) *suite.Failure { return nil }
	figure := func(pair) string { return "the figure" }
	nothing := func(pair) string { return "" }

	f := scene.WithDetails[pair](fails, figure)(pair{})
	require.NotNil(t, f)
	assert.Equal(t, "the read\n\nthe figure", f.Details, "the figure follows the details after a blank line")
	g := scene.WithDetails[pair](func(pair) *suite.Failure { return &suite.Failure{Details: "ends in a newline\n"} }, figure)(pair{})
	assert.Equal(t, "ends in a newline\n\nthe figure", g.Details, "one blank line, however the details ended")
	assert.Equal(t, "the read", fails(pair{}).Details, "the judge's own failure is left as it was")
	assert.Nil(t, scene.WithDetails[pair](holds, figure)(pair{}), "a judge that holds still holds")
	assert.Equal(t, "the read", scene.WithDetails[pair](fails, nothing)(pair{}).Details, "an empty figure adds nothing")
}

func TestAWorldBuiltAgainstTheLearnersCodeGetsItWithEverySeed(t *testing.T) {
	type met struct {
		*scene.Scene
		seed int64
		impl string
	}
	built := scene.Against[met]("the learner's code")
	w := built(func(seed int64, impl string) met { return met{seed: seed, impl: impl} })(7)
	assert.Equal(t, int64(7), w.seed)
	assert.Equal(t, "the learner's code", w.impl)
}
