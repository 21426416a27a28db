package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/workbook"
)

// tool is the grader for the real workbook, or skips the test without a go
// command.
func tool(t *testing.T) Grader {
	t.Helper()
	wb, err := workbook.Find(".")
	require.NoError(t, err)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	return Grader{Root: wb.Root, Go: goCmd, Parallel: runtime.GOMAXPROCS(0)}
}

// The tool on one whole chapter, on every run of make test, so that it
// cannot rot: every mutant of ex01 applies to the solution as it is today
// and is graded, every equivalent passes, and the chapter's suite meets its
// bars on them.
func TestEx01MutantsMeetTheBars(t *testing.T) {
	if testing.Short() {
		t.Skip("grades every mutant of ex01 (-short skips it)")
	}
	g := tool(t)
	ms, err := Load(g.Root, "ex01")
	require.NoError(t, err)
	require.NotEmpty(t, ms)
	outcomes := g.GradeAll(context.Background(), ms, nil)
	var lines []string
	for _, o := range outcomes {
		lines = append(lines, o.Line())
		assert.NoError(t, o.Err)
		if o.Mutant.Equivalent() {
			assert.True(t, o.Passed, o.Line())
		}
	}
	s := Summarize(outcomes)
	require.Len(t, s, 1)
	report := strings.Join(lines, "\n") + "\n" + s[0].Line()
	assert.Empty(t, s[0].Shortfalls(), report)
	t.Log("\n" + report)
}

// A mutant whose old text is no longer in the solution is a tool error that
// names the mutant's file, found before anything is graded.
func TestAStaleMutantIsAnErrorNamingItsFile(t *testing.T) {
	g := tool(t)
	m, err := Parse("mutants/ex01/stale.txtar", []byte("mistake: m\nclause: 1\nexpect: missed-change\nneeds: nothing\n"+
		"-- old store.go --\nthis line is in no solution\n-- new store.go --\nx\n"))
	require.NoError(t, err)
	o := g.Grade(context.Background(), m)
	require.Error(t, o.Err)
	assert.Equal(t, "mutants/ex01/stale.txtar: edit 1: the old text is not in store.go: this line is in no solution", o.Err.Error())
	assert.Contains(t, o.Line(), "ERROR mutants/ex01/stale.txtar")
}

// Load names the file that does not parse.
func TestLoadNamesABadFile(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "mutants", "ex01"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "mutants", "ex01", "bad.txtar"), []byte("mistake: m\n"), 0o644))
	_, err := Load(root, "ex01")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mutants/ex01/bad.txtar: no expect: line")
}
