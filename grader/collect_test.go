package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A mistyped path, or one that holds no exercises, is a mistake in the
// command, not a student who did nothing: exit status 2 and one line on
// stderr, before anything is read or written. (Run in this workbook:
// nothing gets as far as changing it.)
func TestCollectOnAPathWithoutExercisesExitsTwo(t *testing.T) {
	for _, dir := range []string{filepath.Join(t.TempDir(), "studnet"), t.TempDir()} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"collect", dir}, &stdout, &stderr)
		assert.Equal(t, exitUsage, code, stderr.String())
		assert.Empty(t, stdout.String())
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
		assert.True(t, strings.HasPrefix(stderr.String(), "grader: "+dir), stderr.String())
	}
}
