// Command mutants measures how well each chapter's hidden suite teaches: it
// grades small, deliberate mistakes in the reference solutions (mutants) and
// reports which ones the suite catches, and with which named failure.
//
// Usage:
//
//	go run ./grader/mutants [-j N] [exNN ...]   (make mutants, make mutants CH=ex04)
//
// A mutant is one file, mutants/exNN/NAME.txtar, in txtar format. Its comment
// holds key: value lines (mistake, clause, expect, needs); its sections come in
// pairs, "-- old F --" then "-- new F --", and are applied in order to the
// chapter's solution folder: the old text, whole lines, must occur exactly
// once in F at that point, and is replaced by the new text. A mutant whose
// expect is "pass" is an equivalent, a harmless change that must still pass.
//
// Each mutant is applied to a copy of the solution inside a temporary copy of
// the workbook and graded there through the grader's engine at the default
// seed counts, several at once. One line per mutant says what happened:
//
//	killed by <check>: <failure>, diagnosed          the declared failure, first
//	killed by <check>: <failure>, MISDIAGNOSED: ...  another failure came first
//	SURVIVED                                        every check passed
//	passes / BROKEN (equivalent fails: ...)         for equivalents
//
// and a summary per chapter gives the share killed, the share killed with the
// declared failure, and the equivalents passing. The command exits nonzero
// when a chapter kills under 95% of its mutants, diagnoses under 90%, has an
// equivalent that fails, has too few mutants, or a mutant cannot be applied.
package main
