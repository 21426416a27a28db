//go:build unix

package workbook

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/course"
)

// A named pipe with a Go file's name is no file to copy: reading it would
// wait for a writer for ever.
func TestCollectRefusesANamedPipe(t *testing.T) {
	student, _ := checkout(t)
	require.NoError(t, syscall.Mkfifo(filepath.Join(student, "exercises/ex99-fake/pipe.go"), 0o644))
	sub, err := Collect(student, []course.Chapter{chapter})
	require.NoError(t, err)
	assert.Equal(t, []Refusal{{"ex99", "exercises/ex99-fake/pipe.go", "is not a regular file: collect copies regular files only"}}, sub.Refused)
}
