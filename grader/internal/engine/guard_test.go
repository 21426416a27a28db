package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/result"
	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
)

// Every stub as shipped and every solution uses only what a chapter may.
func TestEveryStubAndSolutionPassesTheImportCheck(t *testing.T) {
	wb, err := workbook.Find(".")
	require.NoError(t, err)
	for _, ch := range course.All() {
		if len(ch.Pristine()) == 0 {
			continue // a chapter still being written
		}
		assert.Nil(t, guard(ch, wb.Path(ch.SolutionDir()), ch.SolutionDir(), result.Solutions, nil), "%s's solution", ch.ID)
		assert.Nil(t, guard(ch, wb.Path(ch.Dir()), ch.Dir(), result.Stubs, ch.Pristine()), "%s's stub", ch.ID)
	}
}

// guardText checks one file, named code.go, as chapter ch's code.
func guardText(t *testing.T, ch course.Chapter, text string) *result.Problem {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "code.go", text)
	return guard(ch, dir, "exercises/"+ch.ID+"-x", result.Exercises, nil)
}

func TestTheImportCheck(t *testing.T) {
	ex01 := course.Chapter{ID: "ex01", Forbidden: []string{"internal/harness/kube.MemStore", "internal/harness/kube.NewMemStore"}}
	ex03 := course.Chapter{ID: "ex03", Imports: []string{"internal/harness/suites/ex03suite/drill"}}
	refused := map[string]struct {
		ch        course.Chapter
		text, say string
	}{
		"os":                   {ex03, "package x\n\nimport \"os\"\n", `code.go:3: imports "os", which a chapter's code may not: it reads and writes files`},
		"unsafe, blank":        {ex03, "package x\n\nimport _ \"unsafe\"\n", `imports "unsafe"`},
		"cgo":                  {ex03, "package x\n\n// int f() { return 1; }\nimport \"C\"\n", `imports "C"`},
		"another chapter":      {ex03, "package x\n\nimport \"onehistory/exercises/ex02-the-page\"\n", "not the suites, the solutions, other chapters"},
		"a solution":           {ex03, "package x\n\nimport \"onehistory/solutions/ex03-silence-is-not-agreement\"\n", "not the suites, the solutions"},
		"another's extra":      {ex01, "package x\n\nimport \"onehistory/internal/harness/suites/ex03suite/drill\"\n", `imports "onehistory/internal/harness/suites/ex03suite/drill"`},
		"math/rand":            {ex03, "package x\n\nimport \"math/rand\"\n", "randomness comes from the simulated world"},
		"ignored by its tags":  {ex03, "//go:build ignore\n\npackage x\n\nimport \"os\"\n", `imports "os"`},
		"the answer":           {ex01, "package x\n\nimport \"onehistory/internal/harness/kube\"\n\nvar s = kube.NewMemStore(5)\n", "code.go:5: uses kube.NewMemStore, the harness's own answer to what chapter ex01 asks you to build"},
		"the answer, embedded": {ex01, "package x\n\nimport \"onehistory/internal/harness/kube\"\n\ntype S struct{ *kube.MemStore }\n", "uses kube.MemStore"},
		"the answer, renamed":  {ex01, "package x\n\nimport k \"onehistory/internal/harness/kube\"\n\ntype S struct{ *k.MemStore }\n", "uses kube.MemStore"},
		"a dot import":         {ex01, "package x\n\nimport . \"onehistory/internal/harness/kube\"\n", "with a dot"},
		"a harness variable":   {ex03, "package x\n\nimport \"onehistory/internal/harness/kube\"\n\nfunc init() { kube.DefaultMaxDelay = 0 }\n", "code.go:5: changes kube.DefaultMaxDelay, a variable of the harness"},
		"a field of one":       {ex03, "package x\n\nimport \"onehistory/internal/harness/kube\"\n\nfunc init() { kube.ErrConflict.Message = \"\" }\n", "changes kube.ErrConflict"},
		"its address":          {ex03, "package x\n\nimport \"onehistory/internal/harness/kube\"\n\nvar p = &kube.DefaultMaxDelay\n", "changes kube.DefaultMaxDelay"},
	}
	for name, c := range refused {
		p := guardText(t, c.ch, c.text)
		if assert.NotNil(t, p, name) {
			assert.Equal(t, result.Forbidden, p.Kind, name)
			assert.Contains(t, p.Summary, c.say, name)
		}
	}

	allowed := map[string]string{
		"the allowed standard packages": "package x\n\nimport (\n\t\"fmt\"\n\t\"sort\"\n\t\"encoding/json\"\n\t\"hash/crc32\"\n)\n",
		"the chapter's extra import":    "package x\n\nimport \"onehistory/internal/harness/suites/ex03suite/drill\"\n\nvar _ = drill.New\n",
		"another chapter's answer":      "package x\n\nimport \"onehistory/internal/harness/kube\"\n\nvar s = kube.NewMemStore(5)\n",
		"reading a harness variable":    "package x\n\nimport \"onehistory/internal/harness/kube\"\n\nvar d = kube.DefaultMaxDelay\n",
	}
	for name, text := range allowed {
		assert.Nil(t, guardText(t, ex03, text), name)
	}
}

// Non-Go files the go command would build are refused; other files and
// subfolders are left alone.
func TestOnlyGoFilesAreBuilt(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "notes.md", "my notes")
	write(t, dir, "scratch/old.go", "package scratch\n\nimport \"os\"\n")
	assert.Nil(t, guard(course.Chapter{ID: "ex01"}, dir, "exercises/ex01-x", result.Exercises, nil))
	for _, name := range []string{"fast.s", "lib.c", "blob.syso", "FAST.S"} {
		d := t.TempDir()
		write(t, d, name, "")
		p := guard(course.Chapter{ID: "ex01"}, d, "exercises/ex01-x", result.Exercises, nil)
		if assert.NotNil(t, p, name) {
			assert.Equal(t, "exercises/ex01-x/"+name, p.File)
			assert.Contains(t, p.Summary, "may hold Go files only")
		}
	}
}
