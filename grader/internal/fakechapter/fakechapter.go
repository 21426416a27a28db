package fakechapter

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/suite"
)

// Chapter is the fake chapter's registry entry.
var Chapter = course.Chapter{
	ID: "ex99", Slug: "fake", Title: "A fake chapter", Failure: "fake-failure",
	Clauses: []course.Clause{course.OneHistory},
	Checks: []course.Check{
		{Name: "alpha", Title: "the first question", Points: 3},
		{Name: "beta", Title: "the second question", Points: 7},
	},
	Hints: [3]string{
		"Read what the suite asks for.",
		"It wants the word ok.",
		"Return \"ok\".",
	},
	Suite:   "internal/harness/suites/ex99suite",
	Binding: "Behave",
}

// Stub is the pristine stub: it answers every check wrongly.
const Stub = `package ex99

// Behave answers a check; the hidden suite wants "ok".
func Behave(check string) string { return "wrong" }
`

// Solved answers every check rightly.
const Solved = `package ex99

func Behave(check string) string { return "ok" }
`

// TimelineLine is one line of the failure's timeline; the timeline repeats
// it 60 times.
const TimelineLine = "│ server-1 │ server-2 │\n"

// Pristine is the stub as shipped, as course.Chapter.Pristine would return
// it.
func Pristine(course.Chapter) map[string]string { return map[string]string{"fake.go": Stub} }

// Files is the fake workbook: slash-separated path to text. Its hidden
// suite reports through the real verdict package, copied from the
// workbook's source (found above the working directory).
func Files() (map[string]string, error) {
	files := map[string]string{
		"go.mod": "module " + course.Module + "\n\ngo 1.24\n",
		"internal/harness/suites/ex99suite/suite.go": hiddenSuite(),
		"exercises/ex99-fake/fake.go":                Stub,
		"exercises/ex99-fake/ex99_test.go":           Chapter.TestFile(),
		"solutions/ex99-fake/fake.go":                Solved,
		"solutions/ex99-fake/ex99_test.go":           Chapter.TestFile(),
	}
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, "internal", "harness", "verdict")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return nil, err
			}
			files["internal/harness/verdict/"+name] = string(data)
		}
	}
	return files, nil
}

// moduleRoot is the workbook's root above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(data), "module "+course.Module+"\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("fakechapter: no %s module above the working directory", course.Module)
		}
		dir = parent
	}
}

// Write writes the fake workbook below root.
func Write(root string) error {
	files, err := Files()
	if err != nil {
		return err
	}
	for name, text := range files {
		file := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// hiddenSuite is the suite's source. The Marker lines are made here, by the
// real suite package, and pasted in; the seed in them (424242) is replaced
// at run time by the SEED the suite was given.
func hiddenSuite() string {
	marker := func(check string) string {
		return suite.Failure{
			Chapter: "ex99", Check: check, Name: "fake-failure", Clause: course.OneHistory,
			Story: "server-1 answered wrongly", At: 412 * time.Millisecond, Seed: 424242,
			Replay: "make ex99 SEED=424242", Timeline: strings.Repeat(TimelineLine, 60),
		}.Line()
	}
	caught := suite.Failure{
		Chapter: "ex99", Name: suite.PanicName, Seed: 7, Replay: "make ex99 SEED=7",
		Story:   "server-1/handle#4 panicked at 12ms: assignment to entry in nil map",
		Details: "goroutine 8 [running]:\nonehistory/exercises/ex99-fake.Behave({0x1, 0x2})\n\tonehistory/exercises/ex99-fake/fake.go:4 +0x5a\nonehistory/internal/harness/sim.(*World).runOne(0x1)\n\tonehistory/internal/harness/sim/proc.go:113 +0x84\n",
	}.Line()
	return fmt.Sprintf(`package ex99suite

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"onehistory/internal/harness/verdict"
)

var markers = map[string]string{"alpha": %q, "beta": %q}

// caught is the failure of a panic that the world caught in the learner's code.
const caught = %q

const marker = %q

// report logs a Marker line and tells the grader its failure, as suite.Report does.
func report(t *testing.T, check, line string) {
	t.Log(line)
	verdict.Failure(check, json.RawMessage(strings.TrimPrefix(line, marker)))
}

// Run runs the fake chapter's checks against behave, giving each check's
// verdict as suite.Run does.
func Run(t *testing.T, behave func(check string) string) {
	verdict.Begin("ex99")
	for _, name := range []string{"alpha", "beta"} {
		var completed, failed, skipped bool
		ok := t.Run(name, func(t *testing.T) {
			defer func() { failed, skipped = t.Failed(), t.Skipped() }()
			got := behave(name)
			if got == "panic in the world" {
				t.Error("a process panicked")
				report(t, name, caught)
				completed = true
				return
			}
			if got != "ok" {
				seed := os.Getenv("SEED")
				if seed == "" {
					seed = "7"
				}
				t.Errorf("server-1 answered wrongly: the code said %%q", got)
				report(t, name, strings.ReplaceAll(markers[name], "424242", seed))
			}
			completed = true
		})
		verdict.Checked(name, ok && completed && !failed && !skipped)
	}
	verdict.End()
}
`, marker("alpha"), marker("beta"), caught, suite.Marker)
}
