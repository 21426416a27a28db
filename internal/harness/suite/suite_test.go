package suite

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/sim"
)

// The Marker line is the grader's only way to read a failure's story: what
// Line writes, ParseLine must read back whole, wherever the line sits in the
// test's output.
func TestTheMarkerLineRoundTrips(t *testing.T) {
	f := Failure{
		Chapter: "ex04", Check: "randomized", Name: "stale-read", Clause: course.OneHistory,
		Story: "server-2 answered rv 6 after server-1 acknowledged rv 7", At: 412500 * time.Microsecond,
		Seed: 17, Replay: Replay("ex04", 17), Details: "op 3\nop 4", Timeline: "│ a │ b │\n", HTML: ".onehistory/x.html",
	}
	line := f.Line()
	require.True(t, strings.HasPrefix(line, Marker))
	assert.NotContains(t, line, "\n", "one line, whatever the story holds")

	got, ok := ParseLine("    suite.go:95: " + line)
	require.True(t, ok)
	assert.Equal(t, f, got)

	_, ok = ParseLine("no marker here")
	assert.False(t, ok)
	_, ok = ParseLine(Marker + "{not json")
	assert.False(t, ok)
}

// A person reads the story first, then the contract clause, the seed and
// the replay command, then the timeline and the visualization.
func TestTextTellsTheStoryFirst(t *testing.T) {
	f := Failure{Name: "stale-read", Story: "server-2 answered a stale value", At: 1500 * time.Millisecond,
		Clause: course.OneHistory, Seed: 17, Replay: "make ex04 SEED=17", Timeline: "timeline", HTML: "v.html"}
	text := f.Text()
	lines := strings.Split(text, "\n")
	assert.Equal(t, "stale-read at 1500ms: server-2 answered a stale value", lines[0])
	assert.Contains(t, lines[1], "clause 1 (One history, not one machine)")
	assert.Equal(t, "  seed 17 · replay: make ex04 SEED=17", lines[2])
	assert.Less(t, strings.Index(text, "timeline"), strings.Index(text, "v.html"))
}

// A failure no one world shows (a sum over every world of a check: seed 0)
// names no seed and no instant, and its replay runs the check again.
func TestAFailureOfNoOneWorldNamesNoSeed(t *testing.T) {
	t.Setenv("RUNS", "")
	f := Failure{Name: "vacuous-run", Story: "in 20 worlds no update met a Conflict", Replay: ReplayAll("ex12")}
	lines := strings.Split(f.Text(), "\n")
	assert.Equal(t, "vacuous-run: in 20 worlds no update met a Conflict", lines[0])
	assert.Equal(t, "  every world of the check · replay: make ex12", lines[1])
	t.Setenv("RUNS", "1000")
	assert.Equal(t, "make ex12 RUNS=1000", ReplayAll("ex12"))
}

// recorder is a testing.TB that keeps what Report says.
type recorder struct {
	testing.TB
	name   string
	errors []string
	logs   []string
}

func (r *recorder) Helper()           {}
func (r *recorder) Name() string      { return r.name }
func (r *recorder) Error(args ...any) { r.errors = append(r.errors, args[0].(string)) }
func (r *recorder) Log(args ...any)   { r.logs = append(r.logs, args[0].(string)) }

// Report fills the chapter, the check and the replay command from the test's
// name and the seed, fails the test with the story, and logs the Marker line.
func TestReportDerivesWhatItCan(t *testing.T) {
	r := &recorder{name: "TestEx04/randomized"}
	Report(r, Failure{Name: "stale-read", Story: "a stale read", Seed: 9})
	require.Len(t, r.errors, 1)
	assert.Contains(t, r.errors[0], "stale-read at 0ms: a stale read")
	require.Len(t, r.logs, 1)
	f, ok := ParseLine(r.logs[0])
	require.True(t, ok)
	assert.Equal(t, "ex04", f.Chapter)
	assert.Equal(t, "randomized", f.Check)
	assert.Equal(t, "make ex04 SEED=9", f.Replay)
}

// A figure is logged on one marker line, named after the chapter and check
// it came from, and read back whole.
func TestAFigureRoundTrips(t *testing.T) {
	r := &recorder{name: "TestEx05/story"}
	Figure(r, "pods", "web: 8 pods\nwanted: 5\n")
	require.Len(t, r.logs, 1)
	assert.Empty(t, r.errors, "a figure fails nothing")
	assert.NotContains(t, r.logs[0], "\n")
	f, ok := ParseFigure("    x.go:3: " + r.logs[0])
	require.True(t, ok)
	assert.Equal(t, FigureLine{Chapter: "ex05", Check: "story", Name: "pods", Text: "web: 8 pods\nwanted: 5\n"}, f)
	_, ok = ParseFigure(Failure{Name: "x"}.Line())
	assert.False(t, ok, "a failure's marker is not a figure's")
}

// SEED replays one world; RUNS widens; neither gives the default.
func TestSeeds(t *testing.T) {
	t.Setenv("SEED", "")
	t.Setenv("RUNS", "")
	assert.Equal(t, []int64{1, 2, 3}, Seeds(3))
	assert.False(t, Replaying())

	t.Setenv("RUNS", "5")
	assert.Len(t, Seeds(3), 5)

	t.Setenv("SEED", "42")
	assert.Equal(t, []int64{42}, Seeds(3))
	assert.True(t, Replaying())
}

func TestRunsWidensTheRandomizedChecksButNotTheStory(t *testing.T) {
	t.Setenv("SEED", "")
	t.Setenv("RUNS", "1000")
	assert.Len(t, Seeds(3), 1000)
	assert.Equal(t, []int64{1, 2, 3}, StorySeeds(3))

	// A replay replays the story too.
	t.Setenv("SEED", "42")
	assert.Equal(t, []int64{42}, StorySeeds(3))
}

// A randomized check's scenes replay only at the seeds the check played
// them: a replay of its random world 42 is that world, nothing before it.
func TestAReplayPlaysAScriptedSceneOnlyAtTheSeedsTheCheckPlayedIt(t *testing.T) {
	t.Setenv("SEED", "")
	t.Setenv("RUNS", "1000")
	assert.Equal(t, []int64{1, 2, 3}, SceneSeeds(3), "RUNS widens the random worlds, not the scenes")

	t.Setenv("SEED", "2")
	assert.Equal(t, []int64{2}, SceneSeeds(3))
	t.Setenv("SEED", "42")
	assert.Empty(t, SceneSeeds(3))
	assert.Equal(t, []int64{42}, Seeds(3), "the random world 42 is what replays")
}

func TestFormatTime(t *testing.T) {
	assert.Equal(t, "412.5ms", FormatTime(412500*time.Microsecond))
	assert.Equal(t, "0ms", FormatTime(0))
	// Stories round to a tenth of a millisecond: nobody reads nanoseconds.
	assert.Equal(t, "2026.5ms", FormatTime(2026487939*time.Nanosecond))
}

func TestARunThatCouldNotGoOnIsToldByWhatStoppedIt(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) {
		p.Sleep(3 * time.Millisecond)
		var m map[string]int
		m["web"] = 5 // the learner's bug: a nil map
	})
	f := RunFailure(w.Run(time.Second))
	assert.Equal(t, PanicName, f.Name)
	assert.Equal(t, 3*time.Millisecond, f.At)
	assert.Contains(t, f.Story, "process server-1/main panicked at 3ms: assignment to entry in nil map")
	assert.Contains(t, f.Details, "suite_test.go")

	w2 := sim.New(1)
	defer w2.Close()
	var mu sim.Mutex
	w2.AddNode("server-1", func(p *sim.Proc) { mu.Lock(p); mu.Lock(p) })
	f = RunFailure(w2.Run(time.Second))
	assert.Equal(t, DeadlockName, f.Name)
	assert.Contains(t, f.Story, "server-1/main waits in Mutex.Lock")
}

func TestCoverageFailsASearchWhoseFaultsMetAnIdleClusterButNotAReplay(t *testing.T) {
	idle := &check.Violation{Name: "vacuous-run", Story: "the crash hit an idle cluster"}
	var cov check.Coverage
	cov.Add(1, nil)
	cov.Add(2, idle)
	cov.Add(3, idle)

	t.Setenv("SEED", "")
	f := Covered(&cov, 0.9)
	require.NotNil(t, f, "one run of three exercised is not 90%")
	assert.Equal(t, "vacuous-run", f.Name)
	assert.Equal(t, int64(2), f.Seed, "the replay is the first idle seed")

	t.Setenv("SEED", "2")
	assert.Nil(t, Covered(&cov, 0.9), "a replay of one seed is not judged on coverage")
}

// A suite writes a history's drawing where a learner opens it; check only
// draws.
func TestWriteDrawingWritesTheDrawing(t *testing.T) {
	h := check.NewHistory()
	w := h.Call("controller-b", "server-1", check.Write("deployments/web", 5), 400*time.Millisecond)
	h.Return(w, check.Acked(2), 405*time.Millisecond)
	r := h.Call("controller-a", "server-2", check.Read("deployments/web"), 410*time.Millisecond)
	h.Return(r, check.Found(3, 1), 412*time.Millisecond)
	l := check.Linearizable(h, 0)
	faults := []check.Fault{{Kind: sim.FaultCrash, Desc: "crash server-1", Nodes: []sim.NodeID{"server-1"}, Start: 450 * time.Millisecond}}

	dir := t.TempDir() + "/out"
	path, err := WriteDrawing(dir, "ex04-seed-17", func(w io.Writer) error { return l.DrawHTML(w, faults) })
	require.NoError(t, err)
	assert.Equal(t, dir+"/ex04-seed-17.html", path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var drawn strings.Builder
	require.NoError(t, l.DrawHTML(&drawn, faults))
	assert.Equal(t, drawn.String(), string(data))

	_, err = WriteDrawing("/dev/null/not-a-dir", "x", func(w io.Writer) error { return l.DrawHTML(w, nil) })
	assert.Error(t, err)
}

// A failure's picture is written under the workbook's .onehistory folder,
// and the report names it relative to the workbook, so that the name means
// the same in a CI artifact as on the learner's machine; a path outside the
// workbook is left as it is.
func TestAPictureIsNamedRelativeToTheWorkbook(t *testing.T) {
	root := ModuleRoot()
	require.NotEmpty(t, root, "the suite's tests run inside the workbook")
	inside := root + string(os.PathSeparator) + ".onehistory" + string(os.PathSeparator) + "ex08-linearizable-seed-3.html"
	assert.Equal(t, ".onehistory/ex08-linearizable-seed-3.html", WorkbookPath(inside))
	outside := t.TempDir() + string(os.PathSeparator) + "elsewhere.html"
	assert.Equal(t, outside, WorkbookPath(outside))
}
