package engine

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/suite"
)

// A failure's drawing is written by the suite under the workbook, and named
// by its absolute path; the report names it relative to the workbook, so
// that it means the same in a CI artifact as on the learner's machine. A
// path outside the workbook is left as it is.
func TestADrawingIsNamedRelativeToTheWorkbook(t *testing.T) {
	root := t.TempDir()
	inside := filepath.Join(root, ".onehistory", "ex08-linearizable-seed-3.html")
	outside := filepath.Join(filepath.Dir(root), "elsewhere.html")
	f := suite.Failure{Check: "linearizable", Name: "stale-read", HTML: inside}
	res := result.Chapter{Checks: []result.Check{
		{Name: "story", Failures: []suite.Failure{{Check: "story", HTML: outside}}, Failure: &suite.Failure{Check: "story", HTML: outside}},
		{Name: "linearizable", Failures: []suite.Failure{f}, Failure: &f},
	}}
	res.Failure = res.Checks[1].Failure
	relativeDrawings(root, &res)
	assert.Equal(t, ".onehistory/ex08-linearizable-seed-3.html", res.Failure.HTML)
	assert.Equal(t, ".onehistory/ex08-linearizable-seed-3.html", res.Checks[1].Failures[0].HTML)
	assert.Equal(t, outside, res.Checks[0].Failure.HTML)
	assert.Equal(t, inside, f.HTML, "the suite's own record is not changed under it")
}
