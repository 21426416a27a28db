package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"onehistory/grader/internal/engine"
	"onehistory/grader/internal/render"
	"onehistory/grader/internal/result"
	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/suite"
)

// The workbook's own promise, checked through the grader's engine exactly as
// a learner's work is graded (the canonical test file overlaid, every other
// test file hidden): every chapter's pristine stub reproduces the chapter's
// named failure, and every reference solution earns every point. The stubs
// are the embedded pristine copies overlaid onto the exercise folders, so a
// learner's edits to exercises/ never break `make test`.

func realWorkbook(t *testing.T) (workbook.Workbook, string) {
	t.Helper()
	wb, err := workbook.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	if len(course.All()) == 0 {
		t.Skip("no chapter is registered yet")
	}
	return wb, goCmd
}

func TestEveryPristineStubShowsItsNamedFailure(t *testing.T) {
	wb, goCmd := realWorkbook(t)
	rep := engine.Grade(context.Background(), engine.Options{Root: wb.Root, Go: goCmd, Source: result.Stubs}, course.All())
	for _, problem := range stubProblems(rep) {
		t.Error(problem)
	}
}

func TestEverySolutionPasses(t *testing.T) {
	wb, goCmd := realWorkbook(t)
	rep := engine.Grade(context.Background(), engine.Options{Root: wb.Root, Go: goCmd, Source: result.Solutions}, course.All())
	for _, ch := range rep.Chapters {
		if ch.Status != result.Pass {
			why := string(ch.Status)
			if ch.Problem != nil {
				why = ch.Problem.Summary
			} else if ch.Failure != nil {
				why = ch.Failure.Story + " (" + ch.Failure.Replay + ")"
			}
			t.Errorf("%s: the solution in %s scores %d/%d: %s", ch.ID, ch.Dir, ch.Points, ch.Max, why)
		}
	}
}

// A failure is only useful if its replay command shows it again: for every
// chapter, the first failure of the stub's search, replayed with its seed,
// is the same failure at the same virtual time with the same timeline, and
// replaying it twice gives the same report byte for byte.
func TestEveryStubFailureReplaysExactlyFromItsSeed(t *testing.T) {
	wb, goCmd := realWorkbook(t)
	opts := engine.Options{Root: wb.Root, Go: goCmd, Source: result.Stubs}
	search := engine.Grade(context.Background(), opts, course.All())
	for _, ch := range search.Chapters {
		found := ch.Failure
		if found == nil {
			t.Errorf("%s: the stub's search reported no failure to replay", ch.ID)
			continue
		}
		replay := func() *suite.Failure {
			o := opts
			o.Seed = strconv.FormatInt(found.Seed, 10)
			rep := engine.Grade(context.Background(), o, []course.Chapter{course.MustLookup(ch.ID)})
			return rep.Chapters[0].Failure
		}
		first, second := replay(), replay()
		if first == nil || second == nil {
			t.Errorf("%s: %s found %q, but its replay failed nothing", ch.ID, found.Replay, found.Name)
			continue
		}
		if first.Name != found.Name || first.At != found.At || first.Timeline != found.Timeline {
			t.Errorf("%s: %s does not show the failure the search found:\nsearch: %s at %s\nreplay: %s at %s",
				ch.ID, found.Replay, found.Name, suite.FormatTime(found.At), first.Name, suite.FormatTime(first.At))
		}
		if first.Line() != second.Line() {
			t.Errorf("%s: %s twice gave two different reports:\n%s\n---\n%s", ch.ID, found.Replay, first.Text(), second.Text())
		}
	}
}

// ex03 grades a drill against hidden clusters, good and broken. A drill that
// cries wolf on every cluster must score no better than one that declares
// every cluster healthy: neither may earn more than a small share of the
// points. Each trivial drill is graded as if it were the learner's stub.
func TestTrivialDrillsScoreAlmostNothing(t *testing.T) {
	wb, goCmd := realWorkbook(t)
	ch, ok := course.Lookup("ex03")
	if !ok {
		t.Skip("no chapter ex03")
	}
	drills := map[string]string{
		"always healthy": "return nil",
		"always broken":  `return errors.New("this cluster is broken")`,
	}
	for name, body := range drills {
		src := "package ex03\n\nimport (\n\t\"errors\"\n\n\t\"onehistory/internal/harness/suites/ex03suite/drill\"\n)\n\n" +
			"var _ = errors.New\n\n// Drill is a trivial drill.\nfunc Drill(c *drill.Cluster) error {\n\tc.Run(5e9)\n\t" + body + "\n}\n"
		opts := engine.Options{Root: wb.Root, Go: goCmd, Source: result.Stubs,
			Pristine: func(course.Chapter) map[string]string { return map[string]string{"drill.go": src} }}
		rep := engine.Grade(context.Background(), opts, []course.Chapter{ch})
		got := rep.Chapters[0]
		if got.Status == result.Error || got.Status == result.Timeout {
			t.Fatalf("the %s drill did not run: %s", name, got.Problem.Summary)
		}
		if got.Points*10 > got.Max*3 {
			t.Errorf("the %s drill scores %d/%d: a drill that cannot tell good clusters from broken ones must not pass", name, got.Points, got.Max)
		}
		t.Logf("the %s drill scores %d/%d", name, got.Points, got.Max)
	}
}

// A learner at a terminal 80 columns wide runs make exNN on a fresh
// checkout: whatever the chapter, no line of the report is wider than the
// terminal. The stub failure's timeline draws the lanes that fit, leaves
// out and names those idle in the window, and becomes a list, one event a
// line, when the rest still do not fit, so no closing │ wraps; the suite's
// own tables in the details (the changes a crash lost, the histories side
// by side, the requests of an outage) narrow their columns, wrap their
// cells, or tell their rows one by one; the story and the contract wrap.
func TestEveryStubReportFitsEightyColumns(t *testing.T) {
	wb, goCmd := realWorkbook(t)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "COLUMNS=") && !strings.HasPrefix(kv, "ONEHISTORY_TIMELINE=") {
			env = append(env, kv)
		}
	}
	const width = 80
	opts := engine.Options{Root: wb.Root, Go: goCmd, Source: result.Stubs, Env: timelineEnv(env, false, width)}
	rep := engine.Grade(context.Background(), opts, course.All())
	for _, ch := range rep.Chapters {
		if ch.Failure == nil || ch.Failure.Timeline == "" {
			t.Errorf("%s: the stub's failure has no timeline to measure", ch.ID)
			continue
		}
		var out bytes.Buffer
		render.Verbose(&out, ch, render.NewPalette(false).Fitting(width))
		for _, line := range strings.Split(out.String(), "\n") {
			if n := utf8.RuneCountInString(line); n > width {
				what := "a line of the report"
				if strings.ContainsAny(line, "│┼") {
					what = "a line of the timeline"
				}
				t.Errorf("%s: at %d columns %s is %d wide:\n%s", ch.ID, width, what, n, line)
				break
			}
		}
	}
}
