package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// One go command builds every chapter; its -json events say which
// package each line of build output and each failure belongs to, and so
// which chapter: a compile error in ex02 is ex02's alone. An event of a
// package no chapter is (the harness itself failing to build), or a line
// that is not an event, leaves the command's word on the other chapters
// unaccounted for, and they are built again one by one.
func TestOneBuildTellsEachChaptersCompileErrorsApart(t *testing.T) {
	ex01 := &unit{dir: "exercises/ex01-one-memory"}
	ex02 := &unit{dir: "exercises/ex02-the-page"}
	units := []*unit{ex01, ex02}
	stream := stream(
		event{ImportPath: "onehistory/exercises/ex02-the-page [onehistory/exercises/ex02-the-page.test]", Action: "build-output", Output: "# onehistory/exercises/ex02-the-page [onehistory/exercises/ex02-the-page.test]\n"},
		event{ImportPath: "onehistory/exercises/ex02-the-page [onehistory/exercises/ex02-the-page.test]", Action: "build-output", Output: "exercises/ex02-the-page/store.go:20:17: undefined: quorum\n"},
		event{ImportPath: "onehistory/exercises/ex02-the-page [onehistory/exercises/ex02-the-page.test]", Action: "build-fail"},
		event{ImportPath: "onehistory/exercises/ex01-one-memory.test", Action: "build-output", Output: "ld: a note\n"},
	)
	said, unclaimed := buildOutputs(stream, units)
	assert.False(t, unclaimed)
	assert.True(t, said[ex02].failed)
	assert.Contains(t, said[ex02].output.String(), "store.go:20:17: undefined: quorum")
	assert.False(t, said[ex01].failed)
	assert.Equal(t, "ld: a note\n", said[ex01].output.String())

	_, unclaimed = buildOutputs(stream+`{"ImportPath":"onehistory/internal/harness/sim","Action":"build-fail"}`+"\n", units)
	assert.True(t, unclaimed, "the harness failing is no chapter's")
	_, unclaimed = buildOutputs(stream+"go: updates to go.mod needed\n", units)
	assert.True(t, unclaimed, "a line that is not an event")

	assert.Equal(t, ex01, owner("onehistory/exercises/ex01-one-memory_test [onehistory/exercises/ex01-one-memory.test]", units))
	assert.Nil(t, owner("onehistory/exercises/ex01-one-memory-extra", units), "a folder's name is whole")
}
