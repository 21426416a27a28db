package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/course"
)

// The forgeries a determined student tries, each as one extra file in the
// fake chapter's folder beside the untouched stub (which fails both
// checks). Every one of them needs a package a chapter may not import, so
// the import check refuses each before it is built; and each is graded a
// second time with that check switched off, to show that the verdict
// channel alone gives it nothing and names it as tampering.

// forgedLines are the lines go test -v prints for a chapter that passes,
// with test2json's framing byte (^V) where the testing package puts it.
const forgedLines = `"\x16=== RUN   TestEx99\n\x16=== RUN   TestEx99/alpha\n\x16--- PASS: TestEx99/alpha (0.00s)\n\x16=== RUN   TestEx99/beta\n\x16--- PASS: TestEx99/beta (0.00s)\n\x16--- PASS: TestEx99 (0.00s)\n\x16PASS\n"`

var forgeries = []struct {
	name, file string
	slow       bool // the stub takes its time, so that a rewriting goroutine keeps up with the suite
}{
	{"the seven-line forgery on stdout, in init", `package ex99

import "os"

func init() { os.Stdout.WriteString(` + forgedLines + `); os.Exit(0) }
`, false},
	{"the forgery on stderr", `package ex99

import "os"

func init() { os.Stderr.WriteString(` + forgedLines + `); os.Exit(0) }
`, false},
	{"the forgery from a goroutine", `package ex99

import (
	"os"
	"time"
)

func init() {
	go func() {
		os.Stdout.WriteString(` + forgedLines + `)
		os.Exit(0)
	}()
	time.Sleep(time.Second)
}
`, false},
	{"-test.run=^$ appended to os.Args", `package ex99

import "os"

func init() { os.Args = append(os.Args, "-test.run=^$") }
`, false},
	{"framing bytes printed during a check, then syscall.Exit(0)", `package ex99

import (
	"os"
	"syscall"
)

func init() {
	os.Stdout.WriteString("\x16=== RUN   TestEx99\n")
	os.Stdout.WriteString(` + forgedLines + `)
	syscall.Exit(0)
}
`, false},
	{"os.Stdout replaced by a pipe that rewrites FAIL into PASS", `package ex99

import (
	"bufio"
	"os"
	"strings"
)

func init() {
	r, w, _ := os.Pipe()
	real := os.Stdout
	os.Stdout = w
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			real.WriteString(strings.ReplaceAll(sc.Text(), "FAIL", "PASS") + "\n")
		}
	}()
}
`, true},
	{"lines written on the verdict channel itself", `package ex99

import "os"

func init() {
	f := os.NewFile(3, "verdicts")
	f.WriteString("{\"nonce\":\"guess\",\"event\":\"verdict\",\"check\":\"alpha\",\"passed\":true}\n")
}
`, false},
}

func TestEveryForgeryIsRefusedByTheImportCheck(t *testing.T) {
	t.Parallel()
	for _, f := range forgeries {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			root := fakeWorkbook(t)
			write(t, root, "exercises/ex99-fake/forge.go", f.file)
			ch := gradeFake(t, options(t, root))
			assert.Equal(t, result.Error, ch.Status)
			assert.Equal(t, 0, ch.Points)
			require.NotNil(t, ch.Problem)
			assert.Equal(t, result.Forbidden, ch.Problem.Kind)
			assert.Regexp(t, `^exercises/ex99-fake/forge.go:\d+: imports "(os|syscall|bufio)", which a chapter's code may not`, ch.Problem.Summary)
			assert.Equal(t, "exercises/ex99-fake/forge.go", ch.Problem.File)
		})
	}
}

func TestEveryForgeryFailsAtTheVerdictChannelAlone(t *testing.T) {
	t.Parallel()
	for _, f := range forgeries {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			root := fakeWorkbook(t)
			write(t, root, "exercises/ex99-fake/forge.go", f.file)
			if f.slow {
				write(t, root, "exercises/ex99-fake/fake.go", "package ex99\n\nimport \"time\"\n\nfunc Behave(check string) string { time.Sleep(300 * time.Millisecond); return \"wrong\" }\n")
			}
			opts := options(t, root)
			opts.SkipImportCheck = true
			ch := gradeFake(t, opts)
			assert.Equal(t, result.Error, ch.Status, statuses(ch))
			assert.Equal(t, 0, ch.Points)
			require.NotNil(t, ch.Problem)
			assert.Equal(t, result.Tampering, ch.Problem.Kind, ch.Problem.Summary)
			assert.True(t, strings.HasPrefix(ch.Problem.Summary, "tampering: "), ch.Problem.Summary)
			assert.Contains(t, ch.Problem.Summary, "so this chapter scores 0")
		})
	}
}

// Even a solved chapter scores nothing when it also forges: the report
// must not reward a run whose output lies, whatever the suite said.
func TestASolvedChapterThatExitsEarlyScoresNothing(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/fake.go", `package ex99

import "os"

var calls int

func Behave(check string) string {
	calls++
	if calls == 2 {
		os.Exit(0)
	}
	return "ok"
}
`)
	opts := options(t, root)
	opts.SkipImportCheck = true
	ch := gradeFake(t, opts)
	assert.Equal(t, result.Error, ch.Status)
	assert.Equal(t, 0, ch.Points, "alpha's pass verdict came, but the process lied about beta")
	require.NotNil(t, ch.Problem)
	assert.Equal(t, result.Tampering, ch.Problem.Kind)
	assert.Contains(t, ch.Problem.Summary, "never reported check beta")
}

// A chapter's code that gets hold of the suite's own verdict package (the
// import check refuses it; here that check is off) and gives every check a
// pass itself, in init, before the suite begins, then exits with success:
// the package gives no verdict to a caller outside the hidden suites, and
// tells the grader who called instead.
func TestAChapterThatCallsTheVerdictPackageScoresNothing(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/forge.go", `package ex99

import (
	"os"

	"onehistory/internal/harness/verdict"
)

func init() {
	verdict.Begin("ex99")
	verdict.Checked("alpha", true)
	verdict.Checked("beta", true)
	verdict.End()
	os.Stdout.WriteString(`+forgedLines+`)
	os.Exit(0)
}
`)
	ch := gradeFake(t, options(t, root))
	require.NotNil(t, ch.Problem)
	assert.Equal(t, result.Forbidden, ch.Problem.Kind, "the import check refuses the verdict package")

	opts := options(t, root)
	opts.SkipImportCheck = true
	ch = gradeFake(t, opts)
	assert.Equal(t, result.Error, ch.Status, statuses(ch))
	assert.Equal(t, 0, ch.Points)
	require.NotNil(t, ch.Problem)
	assert.Equal(t, result.Tampering, ch.Problem.Kind)
	assert.Contains(t, ch.Problem.Summary, "code outside the hidden suite (onehistory/exercises/ex99-fake.init.0) called the suite's verdict package")
}

// -test.count=2 slipped into os.Args runs the hidden suite twice, so that
// every line it writes comes twice, signed and all: a second begin after
// the end is tampering, even for a solved chapter.
func TestTheSuiteRunTwiceScoresNothing(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/fake.go", solved)
	write(t, root, "exercises/ex99-fake/twice.go", `package ex99

import "os"

func init() { os.Args = append(os.Args, "-test.count=2") }
`)
	opts := options(t, root)
	opts.SkipImportCheck = true
	ch := gradeFake(t, opts)
	assert.Equal(t, result.Error, ch.Status, statuses(ch))
	assert.Equal(t, 0, ch.Points)
	require.NotNil(t, ch.Problem)
	assert.Equal(t, result.Tampering, ch.Problem.Kind)
	assert.Contains(t, ch.Problem.Summary, "line 4 (begin) came after the suite's end")
}

// log.Fatal ends the process with status 1, every simulated node and the
// hidden suite with it: the rules refuse it (process-state). Without them
// it is not a forgery, but the check it ended is not passed, and the report
// says what happened.
func TestLogFatalInACheckIsNoReport(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/fake.go", `package ex99

import "log"

func Behave(check string) string {
	if check == "beta" {
		log.Fatal("giving up")
	}
	return "ok"
}
`)
	opts := options(t, root)
	ch := gradeFake(t, opts)
	require.NotNil(t, ch.Problem)
	assert.Equal(t, result.Forbidden, ch.Problem.Kind, "the rules refuse log.Fatal, which would end every node")
	assert.Equal(t, "process-state", ch.Problem.Rule)

	opts.SkipImportCheck = true // without the rules, the process ending is still caught
	ch = gradeFake(t, opts)
	assert.Equal(t, result.Error, ch.Status, statuses(ch))
	assert.Equal(t, 3, ch.Points, "alpha passed before beta ended the process")
	require.NotNil(t, ch.Problem)
	assert.Equal(t, result.NoReport, ch.Problem.Kind)
	assert.Contains(t, ch.Problem.Summary, "exit status 1")
	assert.Contains(t, ch.Problem.Summary, `check "beta"`)
}

// A learner's debug printing still shows, apart from the suite's own output.
func TestTheLearnersPrintsAreKeptApart(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/fake.go", `package ex99

import "fmt"

func init() { fmt.Println("starting up") }

func Behave(check string) string {
	fmt.Println("asked about", check)
	return "ok"
}
`)
	ch := gradeFake(t, options(t, root))
	require.Equal(t, result.Pass, ch.Status, statuses(ch))
	assert.Equal(t, "starting up\n", ch.Printed)
	assert.Equal(t, "asked about alpha\n", ch.Checks[0].Printed)
	assert.Equal(t, "asked about beta\n", ch.Checks[1].Printed)
}

// A correct solution that prints one 10 MB line without a newline passes,
// and reading it takes about as long as go test itself does.
func TestAHugeLineDoesNotFailCorrectCode(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/fake.go", `package ex99

import (
	"fmt"
	"strings"
)

func init() { fmt.Print(strings.Repeat("x", 10<<20)) }

func Behave(check string) string {
	fmt.Print(strings.Repeat("\x00\xff", 1<<20))
	return "ok"
}
`)
	start := time.Now()
	ch := gradeFake(t, options(t, root))
	require.Equal(t, result.Pass, ch.Status, "%s %+v", statuses(ch), ch.Problem)
	assert.Equal(t, 10, ch.Points)
	t.Logf("graded in %s", time.Since(start).Round(time.Millisecond))
	assert.Less(t, len(ch.Output), DefaultMaxOutput+1000)
}

// A process the learner's code starts dies with the test binary.
func TestNoChildOutlivesTheTestBinary(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	write(t, root, "exercises/ex99-fake/child.go", fmt.Sprintf(`package ex99

import (
	"os"
	"os/exec"
	"strconv"
)

func init() {
	cmd := exec.Command("sleep", "313")
	if cmd.Start() == nil {
		os.WriteFile(%q, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
	}
}
`, pidFile))
	ch := gradeFake(t, options(t, root))
	assert.Equal(t, result.Forbidden, ch.Problem.Kind, "os/exec is refused")

	opts := options(t, root)
	opts.SkipImportCheck = true
	gradeFake(t, opts)
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err, "the child was started")
	pid, err := strconv.Atoi(string(data))
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return gone(pid) }, 5*time.Second, 20*time.Millisecond, "sleep 313 (pid %d) outlived the grading", pid)
}

// gone reports whether pid has ended (a zombie waiting for its reaper
// counts as ended).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat))
	return len(fields) > 2 && fields[2] == "Z"
}

// Chapter ex98 is a copy of the fake chapter. Its code, when it runs,
// rewrites ex99's hidden suite to pass everything. Every chapter is built
// before any runs, so ex99 is graded by the suite as it was: its stub
// fails.
func TestAChapterCannotRewriteAnothersSuiteAtRunTime(t *testing.T) {
	t.Parallel()
	root := fakeWorkbook(t)
	second := fake
	second.ID, second.Slug, second.Suite = "ex98", "second", "internal/harness/suites/ex99suite"
	suiteFile := filepath.Join(root, "internal/harness/suites/ex99suite/suite.go")
	write(t, root, "exercises/ex98-second/ex98_test.go", second.TestFile())
	write(t, root, "exercises/ex98-second/fake.go", fmt.Sprintf(`package ex98

import "os"

func init() {
	os.WriteFile(%q, []byte("package ex99suite\n\nimport \"testing\"\n\nfunc Run(t *testing.T, behave func(string) string) {}\n"), 0o644)
}

func Behave(check string) string { return "ok" }
`, suiteFile))
	opts := options(t, root)
	opts.SkipImportCheck = true
	opts.Parallel = 1 // ex98 runs first, then ex99
	rep := Grade(context.Background(), opts, []course.Chapter{second, fake})
	data, err := os.ReadFile(suiteFile)
	require.NoError(t, err)
	require.Contains(t, string(data), "func Run(t *testing.T, behave func(string) string) {}", "ex98's code ran and rewrote the suite")
	assert.Equal(t, result.NotStarted, rep.Chapters[1].Status, "ex99 was graded by its suite as built")
	assert.Equal(t, "fake-failure", rep.Chapters[1].Failure.Name)
}
