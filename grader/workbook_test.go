package main

import (
	"context"
	"os/exec"
	"strconv"
	"testing"

	"onehistory/grader/internal/engine"
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
		if *first != *second {
			t.Errorf("%s: %s twice gave two different reports:\n%s\n---\n%s", ch.ID, found.Replay, first.Text(), second.Text())
		}
	}
}
