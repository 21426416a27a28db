package main

import (
	"context"
	"os/exec"
	"testing"

	"onehistory/grader/internal/engine"
	"onehistory/grader/internal/result"
	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
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
