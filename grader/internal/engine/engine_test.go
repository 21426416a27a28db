package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/fakechapter"
	"onehistory/grader/internal/result"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/suite"
)

// These tests grade a small chapter of their own (see package fakechapter)
// in a module of their own in a temporary folder: two checks, alpha (3
// points) and beta (7 points), that ask the learner's Behave function for
// "ok". Each test writes the learner's code one way and says what the grader
// must make of it.

var fake = fakechapter.Chapter

const (
	theStub = fakechapter.Stub
	solved  = fakechapter.Solved
)

// fakeWorkbook writes the fake module and returns its root.
func fakeWorkbook(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, fakechapter.Write(root))
	return root
}

func write(t *testing.T, root, name, text string) {
	t.Helper()
	file := filepath.Join(root, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
}

func options(t *testing.T, root string) Options {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	return Options{
		Root: root, Go: goCmd, Timeout: 20 * time.Second,
		Pristine: fakechapter.Pristine, CacheDir: "off",
	}
}

func gradeFake(t *testing.T, opts Options) result.Chapter {
	t.Helper()
	return Chapter(context.Background(), opts, fake)
}

func statuses(ch result.Chapter) string {
	var s []string
	for _, c := range ch.Checks {
		s = append(s, c.Name+"="+string(c.Status))
	}
	return strings.Join(s, " ")
}

// A fresh checkout: the stub is as shipped, so the chapter is "not started",
// and still its failure is told, with the seed and the replay command.
func TestTheStubAsShippedIsNotStarted(t *testing.T) {
	t.Parallel()
	ch := gradeFake(t, options(t, fakeWorkbook(t)))
	assert.Equal(t, result.NotStarted, ch.Status)
	assert.Equal(t, 0, ch.Points)
	assert.Equal(t, 10, ch.Max)
	require.NotNil(t, ch.Failure)
	assert.Equal(t, "fake-failure", ch.Failure.Name)
	assert.Equal(t, "alpha", ch.Failure.Check)
	assert.Equal(t, int64(7), ch.Failure.Seed)
	assert.Equal(t, "make ex99 SEED=7", ch.Failure.Replay)
	// The timeline is longer than test2json's 1 KB output events: the
	// grader must put the Marker line back together before reading it.
	assert.Len(t, ch.Failure.Timeline, 60*len(fakechapter.TimelineLine))
	assert.NotContains(t, ch.Output, suite.Marker, "Marker lines are for the grader, not for the learner's eyes")
	assert.Equal(t, "make ex99", ch.Command)
}

// The learner's work passes every check: full points.
func TestASolvedChapterPasses(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/fake.go", solved)
	ch := gradeFake(t, options(t, root))
	assert.Equal(t, result.Pass, ch.Status, statuses(ch))
	assert.Equal(t, 10, ch.Points)
	assert.Nil(t, ch.Failure)
}

// SEED reaches the suite, and the failure it reports carries it.
func TestTheSeedReachesTheSuite(t *testing.T) {
	t.Parallel()
	opts := options(t, fakeWorkbook(t))
	opts.Seed = "42"
	opts.Env = append(os.Environ(), "SEED=999") // the grader's own SEED does not leak through
	ch := gradeFake(t, opts)
	require.NotNil(t, ch.Failure)
	assert.Equal(t, int64(42), ch.Failure.Seed)
	assert.Equal(t, "make ex99 SEED=42", ch.Command)
}

// A hang before any check starts, where go test's own timer is not yet set:
// the grader kills the process group itself.
func TestAHangInInitIsKilled(t *testing.T) {
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/stuck.go", "package ex99\n\nimport \"time\"\n\nfunc init() { time.Sleep(time.Hour) }\n")
	opts := options(t, root)
	opts.SkipImportCheck = true // the rules refuse time.Sleep; the time limit holds without them
	opts.Timeout = time.Second
	defer func(g time.Duration) { grace = g }(grace)
	grace = 500 * time.Millisecond
	ch := gradeFake(t, opts) // returns at all only because the grader killed the process
	assert.Equal(t, result.Timeout, ch.Status)
	require.NotNil(t, ch.Problem)
	assert.Contains(t, ch.Problem.Summary, "before any check started")
	assert.Equal(t, 0, ch.Points)
}

// Deleting it changes nothing either.
func TestADeletedTestFileChangesNothing(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	require.NoError(t, os.Remove(filepath.Join(root, "exercises/ex99-fake/ex99_test.go")))
	ch := gradeFake(t, options(t, root))
	assert.Equal(t, result.NotStarted, ch.Status)
	assert.Equal(t, "fake-failure", ch.Failure.Name)
}

// Grading the stubs overlays the pristine stub onto the exercise folder: the
// learner's edits, even a solved chapter, do not count.
func TestTheStubsSourceIgnoresTheLearnersEdits(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/fake.go", solved)
	write(t, root, "exercises/ex99-fake/extra.go", "package ex99\n\nfunc Extra() {}\n")
	opts := options(t, root)
	opts.Source = result.Stubs
	ch := gradeFake(t, opts)
	assert.Equal(t, result.Fail, ch.Status, statuses(ch))
	assert.Equal(t, "fake-failure", ch.Failure.Name)
}

// The solutions source grades solutions/.
func TestTheSolutionsSourceGradesTheSolutions(t *testing.T) {
	t.Parallel()
	opts := options(t, fakeWorkbook(t))
	opts.Source = result.Solutions
	ch := gradeFake(t, opts)
	assert.Equal(t, result.Pass, ch.Status, statuses(ch))
	assert.Equal(t, "solutions/ex99-fake", ch.Dir)
}

// A missing exercise folder is reported, with the way back.
func TestAMissingFolderSaysHowToRestoreIt(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	require.NoError(t, os.RemoveAll(filepath.Join(root, "exercises/ex99-fake")))
	ch := gradeFake(t, options(t, root))
	assert.Equal(t, result.Error, ch.Status)
	assert.Contains(t, ch.Problem.Summary, "grader reset ex99")
}

// Grade runs chapters side by side and totals the report per clause.
func TestGradeTotalsTheReport(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/fake.go", solved)
	var started, finished int
	opts := options(t, root)
	opts.Started = func(course.Chapter) { started++ }
	opts.Finished = func(result.Chapter) { finished++ }
	rep := Grade(context.Background(), opts, []course.Chapter{fake})
	assert.Equal(t, 1, started)
	assert.Equal(t, 1, finished)
	assert.Equal(t, 10, rep.Points)
	assert.True(t, rep.AllPass())
	require.Len(t, rep.Clauses, 1)
	assert.Equal(t, result.ClauseTotal{Clause: course.OneHistory, Passing: 1, Chapters: 1, Points: 10, Max: 10}, rep.Clauses[0])
}

// Grading the same code twice runs it once: the second result comes from
// the cache, keyed by the test binary and SEED; a new SEED runs it again.
func TestTheSameCodeIsRunOnce(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	runs := filepath.Join(t.TempDir(), "runs")
	write(t, root, "exercises/ex99-fake/fake.go", fmt.Sprintf(`package ex99

import "os"

func init() {
	f, _ := os.OpenFile(%q, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	f.WriteString("run\n")
	f.Close()
}

func Behave(check string) string { return "ok" }
`, runs))
	opts := options(t, root)
	opts.SkipImportCheck = true
	opts.CacheDir = t.TempDir()
	for range 2 {
		ch := gradeFake(t, opts)
		require.Equal(t, result.Pass, ch.Status, statuses(ch))
		assert.Equal(t, 10, ch.Points)
	}
	data, _ := os.ReadFile(runs)
	assert.Equal(t, "run\n", string(data), "the second grading came from the cache")
	opts.Seed = "5"
	gradeFake(t, opts)
	data, _ = os.ReadFile(runs)
	assert.Equal(t, "run\nrun\n", string(data), "another seed is another run")
}

// Where open files cannot be passed to a child (Windows), the verdict
// channel is a folder of files: the key in one, read and removed by the
// verdict package, the lines in another, read once the binary has ended.
// It grades as the pipe does: the stub fails with its story, the solution
// passes, a line added to the file is tampering.
func TestTheFileChannelGradesAsThePipeDoes(t *testing.T) {
	t.Parallel()
	opts := options(t, fakeWorkbook(t))
	opts.fileChannel = true
	ch := gradeFake(t, opts)
	assert.Equal(t, result.NotStarted, ch.Status, statuses(ch))
	require.NotNil(t, ch.Failure)
	assert.Equal(t, "fake-failure", ch.Failure.Name)

	opts.Source = result.Solutions
	ch = gradeFake(t, opts)
	assert.Equal(t, result.Pass, ch.Status, statuses(ch))
	assert.Equal(t, 10, ch.Points)

	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("the forger below finds the channel's folder in /proc/self/environ")
	}
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/forge.go", `package ex99

import (
	"os"
	"path/filepath"
	"strings"
)

// The folder's name stays in the environment the process started with.
func init() {
	environ, _ := os.ReadFile("/proc/self/environ")
	for _, kv := range strings.Split(string(environ), "\x00") {
		if dir, ok := strings.CutPrefix(kv, "ONEHISTORY_VERDICTS=@"); ok {
			f, _ := os.OpenFile(filepath.Join(dir, "lines"), os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString("{\"seq\":1,\"event\":\"verdict\",\"check\":\"alpha\",\"passed\":true}\n")
			f.Close()
		}
	}
}

func Behave(check string) string { return "ok" }
`)
	require.NoError(t, os.Remove(filepath.Join(root, "exercises/ex99-fake/fake.go")))
	opts = options(t, root)
	opts.fileChannel = true
	opts.SkipImportCheck = true
	ch = gradeFake(t, opts)
	assert.Equal(t, result.Error, ch.Status, statuses(ch))
	require.NotNil(t, ch.Problem)
	assert.Equal(t, result.Tampering, ch.Problem.Kind, ch.Problem.Summary)
}
