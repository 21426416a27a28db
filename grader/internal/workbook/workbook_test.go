package workbook

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/course"
)

var chapter = course.Chapter{ID: "ex99", Slug: "fake", Suite: "internal/harness/suites/ex99suite", Binding: "Behave"}

var pristine = map[string]string{"fake.go": "package ex99\n"}

func write(t *testing.T, file, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
}

// The grader runs from anywhere inside the checkout: it walks up to the
// workbook's go.mod, and past any other module's.
func TestFindWalksUpToTheWorkbook(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "// the workbook\nmodule onehistory\n\ngo 1.24.0\n")
	write(t, filepath.Join(root, "exercises", "tools", "go.mod"), "module example.com/tools\n")
	deep := filepath.Join(root, "exercises", "tools", "deeper")
	require.NoError(t, os.MkdirAll(deep, 0o755))

	wb, err := Find(deep)
	require.NoError(t, err)
	assert.Equal(t, root, wb.Root)
}

func TestFindSaysWhenThereIsNoWorkbook(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module onehistoryfan\n")
	_, err := Find(dir)
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestModuleOf(t *testing.T) {
	assert.Equal(t, "onehistory", moduleOf([]byte("module onehistory\n")))
	assert.Equal(t, "onehistory", moduleOf([]byte("module \"onehistory\" // quoted\n")))
	assert.Equal(t, "onehistory", moduleOf([]byte("// c\n\nmodule\tonehistory\n")))
	assert.Equal(t, "", moduleOf([]byte("modules onehistory\n")))
}

// A fresh stub is unchanged; an edit, an added file or a deleted file is a
// start. Test files are not part of the stub.
func TestUnchanged(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "fake.go"), "package ex99\n")
	write(t, filepath.Join(dir, "ex99_test.go"), "edited by the learner")
	assert.True(t, Unchanged(dir, pristine))

	write(t, filepath.Join(dir, "extra.go"), "package ex99\n")
	assert.False(t, Unchanged(dir, pristine))
	require.NoError(t, os.Remove(filepath.Join(dir, "extra.go")))

	write(t, filepath.Join(dir, "fake.go"), "package ex99 // mine\n")
	assert.False(t, Unchanged(dir, pristine))

	assert.False(t, Unchanged(dir, nil), "with no pristine stub stored, nothing is unchanged")
}

// Reset keeps the learner's files in a backup before putting the stub and
// the thin test file back.
func TestResetBacksUpThenRestores(t *testing.T) {
	wb := Workbook{Root: t.TempDir()}
	dir := wb.Path(chapter.Dir())
	write(t, filepath.Join(dir, "fake.go"), "package ex99 // my work\n")
	write(t, filepath.Join(dir, "helper.go"), "package ex99\n")
	write(t, filepath.Join(dir, "notes.md"), "my notes")

	assert.Equal(t, []string{"fake.go (edited)", "helper.go (added)"}, wb.Changes(chapter, pristine))
	backup, err := wb.Reset(chapter, pristine)
	require.NoError(t, err)

	files, err := StubFiles(dir)
	require.NoError(t, err)
	assert.Equal(t, pristine, files)
	test, err := os.ReadFile(filepath.Join(dir, chapter.TestFileName()))
	require.NoError(t, err)
	assert.Equal(t, chapter.TestFile(), string(test))
	assert.FileExists(t, filepath.Join(dir, "notes.md"), "only Go files belong to the stub")

	kept, err := os.ReadFile(filepath.Join(backup, "fake.go"))
	require.NoError(t, err)
	assert.Equal(t, "package ex99 // my work\n", string(kept))
	assert.FileExists(t, filepath.Join(backup, "helper.go"))
	assert.Empty(t, wb.Changes(chapter, pristine))
}

// Hints advance one level per call, per chapter, and stay at the last.
func TestNextHint(t *testing.T) {
	wb := Workbook{Root: t.TempDir()}
	for _, want := range []int{1, 2, 3, 3} {
		got, err := wb.NextHint("ex01", 3)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	assert.Equal(t, 3, wb.HintsShown("ex01"))
	assert.Equal(t, 0, wb.HintsShown("ex02"))
	got, err := wb.NextHint("ex02", 3)
	require.NoError(t, err)
	assert.Equal(t, 1, got)
}

// A hint asked for by number counts as seen when it is beyond the level
// reached, and the next hint goes on from it; asking again for an earlier
// one changes nothing.
func TestSawHint(t *testing.T) {
	wb := Workbook{Root: t.TempDir()}
	require.NoError(t, wb.SawHint("ex01", 2))
	assert.Equal(t, 2, wb.HintsShown("ex01"))
	require.NoError(t, wb.SawHint("ex01", 1))
	assert.Equal(t, 2, wb.HintsShown("ex01"), "seeing hint 1 again does not go back")
	got, err := wb.NextHint("ex01", 3)
	require.NoError(t, err)
	assert.Equal(t, 3, got)
}
