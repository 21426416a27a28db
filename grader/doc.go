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
// stack; or a process that ended without reporting, such as os.Exit in
// init); timeout (naming the check that hung).
//
// # How a chapter is graded
//
// Each chapter's hidden suite runs as its own process,
//
//	go test -json -vet=off -overlay=<tmp>/overlay.json -run '^TestEx03$' -timeout 60s ./exercises/ex03-.../
//
// at most GOMAXPROCS at once, so that one chapter's crash or hang costs that
// chapter and nothing else. The overlay puts the registry's own thin test
// file in place of the folder's (edited, deleted or not) and hides every
// other _test.go file, so a learner's TestMain never runs. A check scores
// only when its own subtest, TestEx03/<check>, reported a pass event: a
// process that exits 0 without running anything scores nothing. A check
// that fails prints a Marker line (package suite) whose JSON is the story
// the report tells. The test binary gets its -timeout and a grace period;
// then the grader kills its process group. Output beyond a cap is cut, and
// the cut is noted.
//
// # Reports for machines
//
//	grader --json                 the report in schema onehistory.grader/v1 (grader/SCHEMA.md)
//	grader --junit junit.xml      JUnit XML as well; a compile error carries the compiler's text
//	grader --min-score 70%        succeed on a score instead of on every chapter passing
//
// The exit status is 0 when everything asked for passes (or the score
// reaches --min-score), 1 when something does not, 2 when the command could
// not run: a bad flag, an unknown chapter, no workbook, no go command.
//
// # Around the grading
//
//	grader hint ex03      the next of three hints (remembered in .onehistory/)
//	grader list           the chapters, their clauses and points
//	grader watch [ex03]   grade again on every save (polling), or on Enter
//	grader reset ex03     put the stub back as shipped, after asking; backs up first
//
// For course authors, `grader --solutions` grades solutions/ and
// `grader --stubs` grades the pristine stubs embedded in package course,
// succeeding only when each shows its chapter's named failure; `make test`
// checks both through the same engine (workbook_test.go).
//
// The go command is $GO if set, else go on PATH. The code is cut by concern:
// package engine runs and classifies, package result holds what it found,
// package render shows it (text, JSON, JUnit), package workbook knows the
// checkout (its root, stubs, reset, hint state).
package main
