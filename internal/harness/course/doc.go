// Package course is the workbook's table of contents: one registry entry per
// chapter, holding everything the grader, the Makefile and the thin test
// files need to know about it, written once.
//
// # A chapter
//
// Each chapter's file (ex01.go, ex02.go, ...) calls register from init with
// a Chapter: its ID and slug (which name its folders), the named failure its
// stub must show, the contract Clauses it exercises, the Checks of its hidden
// suite with their points, three Hints, and how the thin test file hands the
// learner's package to the hidden suite (Suite and Binding).
//
//	c, _ := course.Lookup("ex01")
//	c.Dir()      // "exercises/ex01-one-memory": what the learner edits
//	c.TestName() // "TestEx01": the test that runs the hidden suite
//	c.Points()   // the sum of the checks' points
//
// # Generated files
//
// The thin test file in each exercise and solution folder is TestFile's text,
// and the pristine store (pristine/, embedded) is a copy of each stub as
// shipped, read back with Chapter.Pristine. Both are written by
//
//	go generate ./internal/harness/course
//
// and the package's tests fail when the committed copies drift from the
// registry (for the exercise folders, which learners edit, only when CI is
// set).
package course

//go:generate go run ./gen
