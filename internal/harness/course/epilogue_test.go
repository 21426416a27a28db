package course_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"onehistory/internal/harness/course"
)

// The epilogue's table says which chapters earn each clause. It is a figure
// written in prose, so it is checked against the registry: a chapter that
// changes its clauses changes the page too. The table is the core's: the
// bonus chapters are scored apart and named in the page's own sentence.
func TestTheEpilogueNamesTheChaptersThatEarnEachClause(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "..", "book", "99-epilogue.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range course.Clauses {
		var want []string
		for _, ch := range course.Core() {
			if ch.Exercises(k) {
				want = append(want, ch.ID)
			}
		}
		prefix := fmt.Sprintf("| %d. %s |", int(k), k.Title())
		found := false
		for _, line := range strings.Split(string(page), "\n") {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				found = true
				got := strings.TrimSpace(strings.Trim(strings.TrimSpace(rest), "|"))
				if got != strings.Join(want, ", ") {
					t.Errorf("book/99-epilogue.md says clause %d is earned by %q; the registry says %q", int(k), got, strings.Join(want, ", "))
				}
			}
		}
		if !found {
			t.Errorf("book/99-epilogue.md has no row %q", prefix)
		}
	}
}
