package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/result"
	"onehistory/grader/internal/workbook"
)

// A report names the graded work by its git origin and commit and the
// course by its commit, each learned from git; a folder that is not the top
// of a git checkout, even one inside a checkout, has none, and a URL's
// credentials never reach the report.
func TestTheReportNamesTheWorkAndTheCourseFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	course, student := t.TempDir(), t.TempDir()
	commit := func(dir string) string {
		for _, args := range [][]string{
			{"init", "-q"}, {"remote", "add", "origin", "https://x-access-token:s3cret@github.com/course/onehistory-ada.git"},
			{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "work in " + dir},
		} {
			cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
		}
		return git(dir, "rev-parse", "HEAD")
	}
	courseCommit, studentCommit := commit(course), commit(student)
	require.Len(t, courseCommit, 40)
	require.NotEqual(t, courseCommit, studentCommit)

	started := time.Date(2026, 3, 2, 14, 5, 9, 500, time.Local)
	own := provenance(workbook.Workbook{Root: course}, nil, started)
	assert.Equal(t, result.Provenance{
		Repository: "https://github.com/course/onehistory-ada.git", Commit: courseCommit, CourseCommit: courseCommit,
		GraderVersion: graderVersion(), Time: started.UTC().Truncate(time.Second),
	}, own)

	collected := &result.Collection{From: student, Repository: gitRepository(student), Commit: gitCommit(student)}
	p := provenance(workbook.Workbook{Root: course}, collected, started)
	assert.Equal(t, studentCommit, p.Commit, "a collected checkout's commit, not the course's")
	assert.Equal(t, courseCommit, p.CourseCommit)
	assert.NotContains(t, p.Repository, "s3cret")

	inside := filepath.Join(course, "exercises")
	require.NoError(t, os.Mkdir(inside, 0o755))
	assert.Empty(t, gitCommit(inside), "a folder inside a checkout does not borrow its commit")
	assert.Empty(t, gitRepository(t.TempDir()))
	assert.Equal(t, "git@github.com:o/r.git", withoutCredentials("git@github.com:o/r.git"))
	assert.False(t, strings.Contains(withoutCredentials("https://u:p@example.com/o/r"), "u:p"))
}
