// Package result holds what a grading run found, as plain data, so that
// computing a grade and showing it stay apart.
//
// The engine produces one Chapter per graded chapter, each with a Check per
// check in the registry, in the registry's order:
//
//	ch := result.Chapter{ID: "ex01", Status: result.Fail, Points: 4, Max: 10}
//	ch.Checks[1].Failure // the story the hidden suite told, seed and replay included
//	ch.Problem           // set when the code did not build, panicked or hung
//
// A Report gathers the chapters of one run; Tally totals them in points and
// per contract clause. The renderers (text, JSON, JUnit) read a Report and
// never change it.
package result
