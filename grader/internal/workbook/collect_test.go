package workbook

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/course"
)

// Collect reads a student's checkout for grader collect. Each test lays one
// out in a temporary folder, beside a "course" folder that holds what a
// student must not get graded as theirs: the solution.

var second = course.Chapter{ID: "ex98", Slug: "second"}

// checkout is a student's checkout with ex99's folder holding fake.go and
// a test file, and the course's solution beside it; it returns both roots.
func checkout(t *testing.T) (string, string) {
	t.Helper()
	top := t.TempDir()
	student, courseRoot := filepath.Join(top, "student"), filepath.Join(top, "course")
	write(t, filepath.Join(student, "exercises/ex99-fake/fake.go"), "package ex99 // mine\n")
	write(t, filepath.Join(student, "exercises/ex99-fake/ex99_test.go"), "package ex99\n")
	write(t, filepath.Join(student, "exercises/ex99-fake/notes.txt"), "to do\n")
	write(t, filepath.Join(courseRoot, "solutions/ex99-fake/fake.go"), "package ex99 // the solution\n")
	return student, courseRoot
}

func TestCollectTakesTheStubFilesOnly(t *testing.T) {
	student, _ := checkout(t)
	write(t, filepath.Join(student, "exercises/ex99-fake/sub/deep.go"), "package sub\n")
	require.NoError(t, os.Mkdir(filepath.Join(student, "exercises/ex99-fake/dir.go"), 0o755))
	sub, err := Collect(student, []course.Chapter{chapter, second})
	require.NoError(t, err)
	assert.Equal(t, map[string]map[string]string{"ex99": {"fake.go": "package ex99 // mine\n"}}, sub.Files)
	assert.Empty(t, sub.Refused)
	assert.Equal(t, student, sub.From)
}

// A link to a file outside the checkout, by a relative or an absolute
// path, is refused like any link: collect never follows one.
func TestCollectRefusesALinkToAFileOutside(t *testing.T) {
	student, courseRoot := checkout(t)
	require.NoError(t, os.Symlink(filepath.Join(courseRoot, "solutions/ex99-fake/fake.go"), filepath.Join(student, "exercises/ex99-fake/abs.go")))
	require.NoError(t, os.Symlink("../../../course/solutions/ex99-fake/fake.go", filepath.Join(student, "exercises/ex99-fake/rel.go")))
	sub, err := Collect(student, []course.Chapter{chapter})
	require.NoError(t, err)
	assert.Empty(t, sub.Files, "a chapter with a refusal is taken from nothing")
	assert.Equal(t, []Refusal{
		{"ex99", "exercises/ex99-fake/abs.go", "is a symbolic link: collect copies regular files only"},
		{"ex99", "exercises/ex99-fake/rel.go", "is a symbolic link: collect copies regular files only"},
	}, sub.Refused)
}

// A hard link is a regular file, and nothing in it says where its other
// names are: one made in the student's folder to the course's solution
// reads as the solution. collect refuses every file with more than one
// name.
func TestCollectRefusesAHardLink(t *testing.T) {
	student, courseRoot := checkout(t)
	err := os.Link(filepath.Join(courseRoot, "solutions/ex99-fake/fake.go"), filepath.Join(student, "exercises/ex99-fake/linked.go"))
	if err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	sub, err := Collect(student, []course.Chapter{chapter})
	require.NoError(t, err)
	if hardLinks(mustLstat(t, filepath.Join(student, "exercises/ex99-fake/linked.go"))) == 1 {
		t.Skip("this system does not count a file's names")
	}
	assert.Empty(t, sub.Files)
	assert.Equal(t, []Refusal{{"ex99", "exercises/ex99-fake/linked.go", "has other names (2 hard links): collect copies only files that are nowhere else"}}, sub.Refused)
}

func mustLstat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	return fi
}

// The chapter's folder, or exercises/ itself, a link: refused without a
// look inside.
func TestCollectRefusesALinkedFolder(t *testing.T) {
	student, courseRoot := checkout(t)
	require.NoError(t, os.Symlink(filepath.Join(courseRoot, "solutions/ex99-fake"), filepath.Join(student, "exercises/ex98-second")))
	sub, err := Collect(student, []course.Chapter{chapter, second})
	require.NoError(t, err)
	assert.Equal(t, []Refusal{{"ex98", "exercises/ex98-second", "is a symbolic link: collect copies regular files only"}}, sub.Refused)
	assert.Contains(t, sub.Files, "ex99", "the other chapter is collected")

	other := filepath.Join(t.TempDir(), "other")
	require.NoError(t, os.Mkdir(other, 0o755))
	require.NoError(t, os.Symlink(filepath.Join(courseRoot, "solutions"), filepath.Join(other, "exercises")))
	sub, err = Collect(other, []course.Chapter{chapter, second})
	require.NoError(t, err)
	assert.Empty(t, sub.Files)
	assert.Equal(t, []Refusal{
		{"ex99", "exercises", "is a symbolic link: collect copies regular files only"},
		{"ex98", "exercises", "is a symbolic link: collect copies regular files only"},
	}, sub.Refused)
}

// A path that is not a student's checkout is an error, and nothing is read.
func TestCollectNeedsExercises(t *testing.T) {
	_, err := Collect(filepath.Join(t.TempDir(), "studnet"), []course.Chapter{chapter})
	assert.ErrorContains(t, err, "studnet: no such file or directory")

	empty := t.TempDir()
	_, err = Collect(empty, []course.Chapter{chapter})
	assert.ErrorIs(t, err, ErrNoExercises)

	write(t, filepath.Join(empty, "exercises/README"), "nothing here\n")
	_, err = Collect(empty, []course.Chapter{chapter})
	assert.ErrorIs(t, err, ErrNoExercises, "exercises/ holds no exNN-* folder")

	file := t.TempDir()
	write(t, filepath.Join(file, "exercises"), "a file\n")
	_, err = Collect(file, []course.Chapter{chapter})
	assert.ErrorIs(t, err, ErrNoExercises)

	student, _ := checkout(t)
	_, err = Collect(filepath.Join(student, "exercises/ex99-fake/fake.go"), []course.Chapter{chapter})
	assert.ErrorContains(t, err, "is not a folder")
}

// What collect refused is remembered for the grading that follows, and
// replaced by the next collect.
func TestTheLastCollectIsRemembered(t *testing.T) {
	wb := Workbook{Root: t.TempDir()}
	_, ok, err := wb.LastCollected()
	require.NoError(t, err)
	assert.False(t, ok, "no collect here yet")

	c := Collected{From: "/students/ada", Refused: []Refusal{{"ex99", "exercises", "is a symbolic link: collect copies regular files only"}}}
	require.NoError(t, wb.SaveCollected(c))
	got, ok, err := wb.LastCollected()
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, c, got)

	require.NoError(t, wb.SaveCollected(Collected{From: "/students/grace"}))
	got, _, _ = wb.LastCollected()
	assert.Equal(t, Collected{From: "/students/grace", Refused: []Refusal{}}, got)

	write(t, wb.collectedFile(), "{not json")
	_, _, err = wb.LastCollected()
	assert.Error(t, err, "a record that cannot be read is an error: a refusal must not be lost")
}
