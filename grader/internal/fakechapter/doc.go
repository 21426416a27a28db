// Package fakechapter is a chapter of the grader's own, ex99 "A fake
// chapter", for the grader's tests: a module named like the workbook, small
// enough to write into a temporary folder, with a hidden suite that tells
// its failures through the real suite protocol.
//
// It has two checks, alpha (3 points) and beta (7 points); each asks the
// learner's Behave function for "ok". The stub answers "wrong" to both; the
// solution answers "ok". A failed check reports the named failure
// "fake-failure" with the SEED it was given (7 by default), and a timeline
// longer than test2json's 1 KB output events, so that a grader which does
// not reassemble split lines cannot read it. An answer of "panic in the
// world" makes the check report the failure suite.PanicName, as a suite does
// when the simulated world caught a panic in the learner's code.
//
// It never enters the course registry: tests hand Chapter to the engine, or
// point the grader command's chapter list at it.
package fakechapter
