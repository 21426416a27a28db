package suite

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/verdict"
)

// Marker starts the one machine-readable line a failed check prints. The
// grader finds it in the test's output and reads the JSON that follows; the
// learner reads the story printed above it.
const Marker = "##onehistory-failure "

// FigureMarker starts the machine-readable line of a figure: a block of text
// a suite shows about a run (a table, a count, a history) that the book may
// quote. The book's capture generator reads it back with ParseFigure.
const FigureMarker = "##onehistory-figure "

// PanicName is the Name of the failure a suite reports when the learner's
// code panicked inside the world (a sim.PanicError), with the panic's stack
// in Details. The grader reports such a chapter as an error, at the first
// line of the learner's code in that stack, rather than as a failed check.
const PanicName = "panic"

// Failure is the story of one failed check, as data. A suite builds one and
// hands it to Report; the grader reads it back from the Marker line.
type Failure struct {
	Chapter  string        `json:"chapter"`           // "ex04"
	Check    string        `json:"check"`             // "randomized"
	Name     string        `json:"name"`              // the named failure, e.g. "stale-read"
	Clause   course.Clause `json:"clause"`            // the contract clause it breaks
	Story    string        `json:"story"`             // one line: who did what where, and what went wrong
	At       time.Duration `json:"at_ns"`             // virtual time of the decisive event
	Seed     int64         `json:"seed"`              // the seed of the failing world
	Replay   string        `json:"replay"`            // the command that replays it exactly
	Details  string        `json:"details,omitempty"` // more lines: the operations and servers involved
	Timeline string        `json:"timeline,omitempty"`
	HTML     string        `json:"html,omitempty"` // the failure's picture, relative to the workbook when it is inside it

	// Ops are the operations a judge names as breaking the contract, the
	// decisive one first (check.Violation.Ops): the picture highlights them.
	Ops []check.OpID `json:"-"`
	// Drawing, when a judge sets it, draws porcupine's view of the history
	// (check.Linearization.DrawHTML); the chapter's runner folds it into
	// the failure's picture, which it writes only for the failure it
	// reports, and sets HTML.
	Drawing func(io.Writer) error `json:"-"`
}

// Replay is the command that replays chapter id's world with seed.
func Replay(id string, seed int64) string { return fmt.Sprintf("make %s SEED=%d", id, seed) }

// ReplayAll is the command that runs chapter id's checks again over the
// same seeds, for a failure that no one world shows (seed 0): a sum over
// every world of a check. RUNS, when set, is part of it.
func ReplayAll(id string) string {
	if runs := os.Getenv("RUNS"); runs != "" {
		return fmt.Sprintf("make %s RUNS=%s", id, runs)
	}
	return "make " + id
}

// Text renders the failure for a person: the story first, then the clause,
// the seed and the replay command, then details and the timeline.
func (f Failure) Text() string {
	var b strings.Builder
	if f.Seed == 0 && f.At == 0 {
		// No one world shows it (a sum over a check's worlds): no seed, no
		// instant.
		fmt.Fprintf(&b, "%s: %s\n", f.Name, f.Story)
	} else {
		fmt.Fprintf(&b, "%s at %s: %s\n", f.Name, FormatTime(f.At), f.Story)
	}
	if f.Clause != 0 {
		fmt.Fprintf(&b, "  contract: %s: %s\n", f.Clause, f.Clause.Meaning())
	}
	if f.Seed == 0 {
		fmt.Fprintf(&b, "  every world of the check · replay: %s\n", f.Replay)
	} else {
		fmt.Fprintf(&b, "  seed %d · replay: %s\n", f.Seed, f.Replay)
	}
	if f.Details != "" {
		b.WriteString("\n" + strings.TrimRight(f.Details, "\n") + "\n")
	}
	if f.Timeline != "" {
		b.WriteString("\n" + strings.TrimRight(f.Timeline, "\n") + "\n")
	}
	if f.HTML != "" {
		fmt.Fprintf(&b, "\n  history visualization: %s\n", f.HTML)
	}
	return b.String()
}

// Line is the Marker line: the marker followed by the failure as JSON.
func (f Failure) Line() string {
	data, err := json.Marshal(f)
	if err != nil {
		panic(err) // a Failure is plain data; this cannot happen
	}
	return Marker + string(data)
}

// ParseLine reads a Failure back from an output line that contains Marker.
func ParseLine(line string) (Failure, bool) { return parseMarked[Failure](line, Marker) }

// parseMarked reads a T back from the JSON that follows marker in line.
func parseMarked[T any](line, marker string) (T, bool) {
	var v T
	i := strings.Index(line, marker)
	if i < 0 {
		return v, false
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(line[i+len(marker):])), &v); err != nil {
		var zero T
		return zero, false
	}
	return v, true
}

// Report fails t with f: the story for the learner, then the Marker line for
// the grader. Fill Chapter, Check, Seed and Replay, or let Report derive them
// from t's name and the seed.
func Report(t testing.TB, f Failure) {
	t.Helper()
	if f.Chapter == "" || f.Check == "" {
		id, check := splitName(t.Name())
		if f.Chapter == "" {
			f.Chapter = id
		}
		if f.Check == "" {
			f.Check = check
		}
	}
	if f.Replay == "" {
		f.Replay = Replay(f.Chapter, f.Seed)
	}
	t.Error("\n" + f.Text())
	t.Log(f.Line())
	verdict.Failure(f.Check, f)
}

// FigureLine is one figure as its marker line carries it.
type FigureLine struct {
	Chapter string `json:"chapter"` // "ex05"
	Check   string `json:"check"`   // "story"
	Name    string `json:"name"`    // the figure's name, as a capture marker names it
	Text    string `json:"text"`    // the figure itself, lines joined by newlines
}

// Figure logs a figure of the run: text, under name, on one marker line that
// `go test -json` (and so the grader's engine) always shows, passing or not.
// A book page quotes it between capture markers (figure=name), so the page
// shows exactly what the suite computed. Figures say nothing to the grader's
// verdict. Chapter and check come from t's name.
func Figure(t testing.TB, name, text string) {
	t.Helper()
	id, check := splitName(t.Name())
	data, err := json.Marshal(FigureLine{Chapter: id, Check: check, Name: name, Text: text})
	if err != nil {
		panic(err) // plain strings; this cannot happen
	}
	t.Log(FigureMarker + string(data))
}

// ParseFigure reads a figure back from an output line that contains
// FigureMarker.
func ParseFigure(line string) (FigureLine, bool) { return parseMarked[FigureLine](line, FigureMarker) }

// splitName turns "TestEx04/randomized" (or a subtest of it,
// "TestEx04/randomized/seed-17") into ("ex04", "randomized").
func splitName(name string) (string, string) {
	top, check, _ := strings.Cut(name, "/")
	check, _, _ = strings.Cut(check, "/")
	return strings.ToLower(strings.TrimPrefix(top, "Test")), check
}

// FormatTime prints a virtual time as milliseconds, to a tenth, the one way
// the workbook prints time (sim.FormatTime): "1234.5ms", "400ms".
func FormatTime(d time.Duration) string { return sim.FormatTime(d) }

// UpperFirst is s with its first letter upper-case, for a story that
// begins a sentence: "the cluster ..." becomes "The cluster ...".
func UpperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// CheckFunc is one check of a hidden suite.
type CheckFunc func(t *testing.T)

// Run runs chapter id's checks as subtests, in the registry's order. Every
// check the registry names must be given, and no other: the grader scores the
// registry's names, so a mismatch is a bug in the suite and fails loudly.
//
// Under the grader, Run gives each check's verdict on the grader's private
// channel (package verdict) once the check has ended: passed only when the
// check ran to its end without failing or skipping. Printed test results
// carry no weight there.
//
// Run holds the suite to one processor (GOMAXPROCS 1) unless the
// environment sets GOMAXPROCS: a simulated world runs one process at a time,
// handing control from goroutine to goroutine, and a handoff within one
// processor costs far less than waking another; the garbage collector's
// parallel workers, too, cost more than they give when the grader runs a
// chapter per CPU. When the environment sets GOMAXPROCS (the grader does,
// to the CPUs it has over the chapters it runs at once), a chapter plays
// that many worlds at once instead (Workers), each on one processor. It
// lets the heap grow to seventeen times what is live before collecting
// (GOGC 1600) unless the environment sets GOGC, within a soft limit of
// suiteMemoryLimit unless the environment sets GOMEMLIMIT: a suite builds
// world after world on a live heap of a few megabytes, and at the default
// it spends a fifth of its time collecting. What a run does is the same
// either way.
func Run(t *testing.T, id string, checks map[string]CheckFunc) {
	t.Helper()
	if os.Getenv("GOMAXPROCS") == "" {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(suiteGOGC))
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(suiteMemoryLimit))
	}
	ch := course.MustLookup(id)
	for _, k := range ch.Checks {
		if checks[k.Name] == nil {
			t.Fatalf("suite bug: chapter %s has no check %q", id, k.Name)
		}
	}
	for name := range checks {
		if _, ok := ch.Check(name); !ok {
			t.Fatalf("suite bug: check %q is not in chapter %s's registry entry", name, id)
		}
	}
	verdict.Begin(id)
	for _, k := range ch.Checks {
		var completed, failed, skipped bool
		ok := t.Run(k.Name, func(t *testing.T) {
			defer func() { failed, skipped = t.Failed(), t.Skipped() }()
			checks[k.Name](t)
			completed = true
		})
		verdict.Checked(k.Name, ok && completed && !failed && !skipped)
	}
	verdict.End()
}

// Workers is how many worlds a chapter's suite plays at once
// (scene.Chapter, through sim.Parallel): the processors the environment
// gives the test process when it sets GOMAXPROCS, and 1 when it does not
// (Run then holds the suite to one processor). The grader sets GOMAXPROCS
// for each chapter's test binary to the CPUs over the chapters it runs at
// once, at least 1: a chapter graded alone uses every CPU, and every
// chapter graded at once keeps to one each. What a run reports is the
// same whatever the number.
func Workers() int {
	if os.Getenv("GOMAXPROCS") == "" {
		return 1
	}
	return max(runtime.GOMAXPROCS(0), 1)
}

// suiteGOGC is the collector's target Run sets: the heap may grow to
// seventeen times its live size (about 80 MB for ex03's suite at RUNS=1000,
// against 12 MB at Go's default of 100), which saves about a tenth of the
// suite's time over five times (GOGC 400).
const suiteGOGC = 1600

// suiteMemoryLimit is the soft limit on the memory of a suite's process Run
// sets: near it, the collector runs as often as it must to stay under, so
// a suite whose live heap grows (a wide RUNS) costs time, not memory.
const suiteMemoryLimit = 256 << 20

// Seeds returns the seeds a randomized check explores: def seeds starting at
// 1, or RUNS seeds if RUNS is set, or exactly SEED if SEED is set (a replay).
func Seeds(def int) []int64 {
	if s := os.Getenv("SEED"); s != "" {
		if seed, err := strconv.ParseInt(s, 10, 64); err == nil {
			return []int64{seed}
		}
	}
	n := def
	if s := os.Getenv("RUNS"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			n = v
		}
	}
	seeds := make([]int64, n)
	for i := range seeds {
		seeds[i] = int64(i + 1)
	}
	return seeds
}

// StorySeeds returns the seeds a scripted check (the story's scene) runs:
// n seeds starting at 1, or exactly SEED if SEED is set. RUNS does not widen
// it: RUNS widens the randomized checks, where a wider search finds more;
// a scene replays the same incident with a little jitter, and some scenes
// are long (ex02's spans eight virtual minutes).
func StorySeeds(n int) []int64 {
	if os.Getenv("SEED") != "" {
		return Seeds(n)
	}
	seeds := make([]int64, n)
	for i := range seeds {
		seeds[i] = int64(i + 1)
	}
	return seeds
}

// SceneSeeds returns the seeds of the scripted scenes a randomized check
// plays before its random worlds: n seeds starting at 1; with SEED set, that
// seed alone if it is one of them, and none otherwise. A replay then runs
// exactly what the check ran at that seed: a random world that failed at
// seed 42 replays as that failure, not as a scene the check never played at
// 42 (StorySeeds would play it, and a scene that fails there would hide the
// world the learner was sent to see).
func SceneSeeds(n int) []int64 {
	if s := os.Getenv("SEED"); s != "" {
		if seed, err := strconv.ParseInt(s, 10, 64); err == nil && seed >= 1 && seed <= int64(n) {
			return []int64{seed}
		}
		return nil
	}
	return StorySeeds(n)
}

// Replaying reports whether SEED is set: one world, replayed, and the suite
// should print its whole story (the timeline) even more generously.
func Replaying() bool { return os.Getenv("SEED") != "" }

// WriteDrawing writes a failure's drawing to dir/name.html, creating dir if
// needed, and returns the file's path, or the error from creating or
// writing it.
func WriteDrawing(dir, name string, draw func(io.Writer) error) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("suite: writing the visualization: %w", err)
	}
	path := filepath.Join(dir, name+".html")
	f, err := os.Create(path)
	if err != nil {
		return "", fmt.Errorf("suite: writing the visualization: %w", err)
	}
	err = draw(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("suite: writing the visualization: %w", err)
	}
	return path, nil
}

// PicturesEnv names the folder pictures go to instead of .onehistory/: the
// grader sets it when it grades the stubs or the solutions, so that their
// pictures never replace the learner's.
const PicturesEnv = "ONEHISTORY_PICTURES"

// OutputDir is where suites write files a learner opens (the pictures of
// failures): .onehistory/ at the module root, which git ignores, or the
// folder PicturesEnv names. It is created on demand.
func OutputDir() string {
	if dir := os.Getenv(PicturesEnv); dir != "" && os.MkdirAll(dir, 0o755) == nil {
		return dir
	}
	root := ModuleRoot()
	if root == "" {
		return os.TempDir()
	}
	out := filepath.Join(root, ".onehistory")
	if os.MkdirAll(out, 0o755) != nil {
		return os.TempDir()
	}
	return out
}

// ModuleRoot is the folder of the go.mod above the working directory (the
// workbook, when a suite runs), or "" when there is none.
func ModuleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// WorkbookPath is path as a learner names it from the workbook's folder
// (".onehistory/ex04-story-seed-1.html"), or path itself when it lies
// outside the workbook.
func WorkbookPath(path string) string {
	root := ModuleRoot()
	if root == "" {
		return path
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return filepath.ToSlash(rel)
}

// PictureName is the name of the picture of chapter's check failing at
// seed: "ex04-story-seed-1", one file per failing check.
func PictureName(chapter, check string, seed int64) string {
	return fmt.Sprintf("%s-%s-seed-%d", chapter, check, seed)
}

// RemovePictures removes chapter's pictures from dir, the files of an
// earlier run, before a run writes its own: "ex04-*.html".
func RemovePictures(dir, chapter string) {
	old, _ := filepath.Glob(filepath.Join(dir, chapter+"-*.html"))
	for _, f := range old {
		os.Remove(f)
	}
}
