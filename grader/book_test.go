package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"onehistory/grader/internal/captures"
)

// The book quotes only what runs: every story, timeline and figure between
// capture markers in book/*.md is what a fresh run of the chapter's suite
// prints today (see package captures). The captures depend on the pristine
// stubs and the solutions, never on a learner's work, so a difference is a
// page that promises what the code no longer does, wherever the test runs.
func TestTheBookQuotesFreshRuns(t *testing.T) {
	wb, goCmd := realWorkbook(t)
	pages, err := captures.Generate(context.Background(), captures.Options{Root: wb.Root, Go: goCmd, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Skip("no page has a capture")
	}
	stale, err := captures.Stale(pages)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range stale {
		old, _ := os.ReadFile(file)
		t.Errorf("%s quotes runs that no longer print what it says; run make generate and read the difference\n%s",
			captures.Rel(wb.Root, file), firstDifference(string(old), pages[file]))
	}
}

// firstDifference shows the first line where the page and its fresh
// captures differ.
func firstDifference(old, fresh string) string {
	a, b := strings.Split(old, "\n"), strings.Split(fresh, "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  the page: " + x + "\n  the run:  " + y
		}
	}
	return ""
}
