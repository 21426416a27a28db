package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/result"
	"onehistory/grader/internal/rules"
)

// Non-Go files the go command would build are refused, whatever their build
// constraints; other files and subfolders are left alone.
func TestOnlyGoFilesAreBuilt(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "notes.md", "my notes")
	write(t, dir, "scratch/old.go", "package scratch\n\nimport \"os\"\n")
	assert.Nil(t, foreignFiles(dir, "exercises/ex01-x"))
	for _, name := range []string{"fast.s", "lib.c", "blob.syso", "FAST.S"} {
		d := t.TempDir()
		write(t, d, name, "")
		p := foreignFiles(d, "exercises/ex01-x")
		if assert.NotNil(t, p, name) {
			assert.Equal(t, result.Forbidden, p.Kind)
			assert.Equal(t, string(rules.Files), p.Rule)
			assert.Equal(t, "exercises/ex01-x/"+name, p.File)
			assert.Contains(t, p.Summary, "may hold Go files only")
		}
	}
}

// deeplyNested is a Go file that the compiler builds and that go/parser
// refuses to read (it nests deeper than the parser allows).
func deeplyNested() string {
	const depth = 110_000
	return "package ex99\n\nfunc deep() int { return " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + " }\n"
}

// A file the compiler builds but the rules cannot read hides whatever it
// does: the chapter is refused, and nothing of it runs.
func TestAFileTheRulesCannotReadIsRefused(t *testing.T) {
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/fake.go", "package ex99\n\nfunc Behave(check string) string { return \"ok\" }\n")
	write(t, root, "exercises/ex99-fake/deep.go", deeplyNested())
	ch := gradeFake(t, options(t, root))
	require.NotNil(t, ch.Problem, statuses(ch))
	assert.Equal(t, result.Error, ch.Status)
	assert.Equal(t, result.Forbidden, ch.Problem.Kind)
	assert.Equal(t, string(rules.Unanalysable), ch.Problem.Rule)
	assert.Contains(t, ch.Problem.Summary, "exceeded max nesting depth")
	assert.Equal(t, 0, ch.Points)
}

// The same file beside code that does not compile is a compile error, told
// by the compiler: a learner's typo is never called an attack.
func TestAnUnreadableFileBesideACompileErrorIsACompileError(t *testing.T) {
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/fake.go", "package ex99\n\nfunc Behave(check string) string { return undefinedAnswer }\n")
	write(t, root, "exercises/ex99-fake/deep.go", deeplyNested())
	ch := gradeFake(t, options(t, root))
	require.NotNil(t, ch.Problem, statuses(ch))
	assert.Equal(t, result.Compile, ch.Problem.Kind)
	assert.Contains(t, ch.Problem.Summary, "undefined: undefinedAnswer")
}
