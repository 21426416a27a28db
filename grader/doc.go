// Command grader tells a learner how far through One History they are, and
// an instructor how far a whole class is.
//
// # Grading
//
// Run it anywhere inside a clone of the workbook:
//
//	go run ./grader              every chapter: status, points, clauses, score
//	go run ./grader ex03         one chapter in full: story, timeline, replay command
//	go run ./grader ex03 --seed 42   replay one world exactly (make ex03 SEED=42)
//	go run ./grader ex03 --runs 1000 widen the randomized checks (make ex03 RUNS=1000)
//
// Each chapter is one of: pass; fail (the one-line story of its first
// failure and the command that replays it); untouched (its folder still
// holds the stub as shipped); error (a compile error, with the compiler's
// first error; a panic, at the first line of the learner's code in the
// stack; code that breaks a rule of the simulated world, refused before
// building, with the rule named; tampering, when the run claimed more than the hidden suite
// reported; or a process that failed before the suite reported every
// check, such as log.Fatal); timeout (naming the check that hung).
//
// # How a chapter is graded
//
// First the grader runs the world's rules over every chapter's code
// (package rules, a typed static analysis: the imports a chapter may make,
// no package-level state, no wall clock, no go statements, nothing beyond
// the node, not the harness's own answer...) and refuses a chapter that
// breaks one; `grader vet` shows the same without grading. Then it builds
// every chapter's test binary with one go command,
//
//	go test -c -json -o .onehistory/build/exercises/ -vet=off -trimpath -overlay=<tmp>/overlay.json ./exercises/ex01-.../ ./exercises/ex02-.../ ...
//
// which compiles what the chapters share once, links only the chapters
// whose code changed since the last run, and tells each chapter's compile
// errors apart (a chapter it cannot account for is built again on its
// own), and only once all are built runs them, each
// in a process group of its own, so that one chapter's code cannot change
// how another is built, and one chapter's crash or hang costs that chapter
// and nothing else. The overlay puts the registry's own thin test file in
// place of the folder's (edited, deleted or not) and hides every other
// _test.go file, so a learner's TestMain never runs; the report names the
// files it hid ("your test files were not run by the grader: …", and
// own_tests in JSON), so that a learner does not take their passing for
// the grader's.
//
// A check scores only on the verdict the hidden suite gave it on a private
// channel (package internal/harness/verdict: a pipe the test binary gets as
// an extra file, each line on it numbered and signed with a key fresh for
// the run, which arrives on a second pipe that the suite's plumbing reads
// and closes before the chapter's code runs). The test's output, read
// through test2json, tells the story, never the score: where it claims more
// than the verdicts, the chapter scores 0 as tampering. The test binary gets
// its -timeout and a grace period; then the grader kills its process group,
// as it does whenever a binary ends, and on Linux every process the binary
// left that escaped the group. Output of any size and shape is read as it
// comes, and kept up to a cap; the cut is noted.
//
// # Reports for machines
//
//	grader --json                 the report in schema onehistory.grader/v1 (grader/SCHEMA.md)
//	grader --junit junit.xml      JUnit XML as well; a compile error carries the compiler's text
//	grader --min-score 70%        succeed on a score instead of on every chapter passing
//
// The exit status is 0 when everything asked for passes (or the score
// reaches --min-score), 1 when something does not, 2 when the command could
// not run: a bad flag, an unknown chapter, no workbook, no working go
// command, a --min-score above what the chapters are worth.
//
// # Around the grading
//
//	grader hint ex03      the next of three hints (remembered in .onehistory/)
//	grader list           the chapters, their clauses and points
//	grader watch [ex03]   grade again on every save (polling), or on Enter
//	grader reset ex03     put the stub back as shipped, after asking; backs up first
//	grader collect DIR    (CI) copy only the exercise Go files of checkout DIR into this clean one;
//	                      regular files only: a link is refused, and its chapter reported as refused
//	grader class PATH...  (instructors) one gradebook of a class, from grade.json reports or
//	                      students' checkouts (graded here in turn through collect): Markdown,
//	                      and --csv FILE, --html FILE (package gradebook)
//
// For course authors, `grader --solutions` grades solutions/ and
// `grader --stubs` grades the pristine stubs embedded in package course,
// succeeding only when each shows its chapter's named failure; `make test`
// checks both through the same engine (workbook_test.go).
//
// The go command is $GO if set, else go on PATH. The code is cut by concern:
// package engine runs and classifies, package result holds what it found,
// package render shows it (text, JSON, JUnit), package gradebook puts a
// class's reports in one table, package workbook knows the
// checkout (its root, stubs, reset, hint state, what collect took from a
// student's checkout and what it refused).
package main
