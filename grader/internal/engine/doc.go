// Package engine grades chapters: it checks each chapter's code, builds
// each chapter's test binary over an overlay of the grader's own test
// wiring, runs the binaries, and classifies what the hidden suites
// reported into result.Chapters.
//
//	rep := engine.Grade(ctx, engine.Options{Root: root, Go: "/usr/local/go/bin/go"}, course.All())
//	for _, ch := range rep.Chapters { fmt.Println(ch.ID, ch.Status, ch.Points, ch.Max) }
//
// # The phases
//
// Grade first runs the world's rules (package rules) over every graded
// folder, in one load of the go command: a chapter that breaks one is
// refused (a result of kind result.Forbidden, naming the rule) before
// anything of it is built, and so is a folder holding non-Go files the go
// command would build. It then prepares every chapter (at most Parallel at
// once) and builds them all with one `go test -c -json` into the
// workbook's .onehistory/build folder, where the binaries stay, so that the
// next run links only the chapters whose code changed (build.go); a
// chapter that one command cannot account for is built again on its own.
// A folder the rules could not read is refused if it builds, and reported
// as the compile error it is if not. Only when
// every binary is built does it run them (at most Parallel at once), so
// that nothing one chapter's code does to the files on disk changes how
// another is built.
//
// # The overlay
//
// Go's -overlay flag maps file paths to other files, or to nothing. The
// engine writes the registry's TestFile to a temporary folder and maps the
// chapter's thin test file to it; every other _test.go file in the folder
// maps to nothing. For the Stubs source, the embedded pristine stub files
// are mapped over the folder's and any other Go file is hidden: the learner's
// folder is never written to.
//
// # What counts
//
// The test binary runs with -test.v=test2json, in a process group of its
// own, its output read through test2json for the story, and with two extra
// open files: the hidden suite's private verdict channel (package
// internal/harness/verdict) and a pipe holding a key fresh for the run,
// which the verdict package reads and closes before the chapter's code
// runs. A check passes only on its pass verdict there, in a line signed
// with that key and numbered as the next one due. In order, a chapter is: error, if it was
// refused or did not build (the compiler's first error, its file and
// line); timeout, if the run hit its time limit (the check that hung, from
// the timeout panic's list of running tests, or the last check that started
// when the grader had to kill the process group itself); error of kind
// tampering, with 0 points, if the run claimed more than the verdicts (the
// output says a check or the package passed where the suite did not say
// so, the process exited with status 0 before the suite's end, lines on
// the channel did not come from the suite, or the suite's own lines came
// missing, repeated, out of order or from a caller outside the suites); error, if it panicked (the
// first stack frame in the learner's folder), whether the test process
// crashed or the simulated world caught the panic and the suite reported it
// as a failure named suite.PanicName; pass, if every check's verdict is a
// pass, the suite ended, the process exited 0 and its output ended in a
// pass; error, if the process failed before the suite reported every check
// (log.Fatal); else fail, with the first failure the suite reported. A
// chapter whose folder still holds the pristine stub and fails is not
// started.
//
// # Limits
//
// The build gets Options.BuildLimit; the test binary gets Options.Timeout
// (-test.timeout) plus a grace period from the moment it starts. Past
// either, the process group is killed; when the binary ends, its process
// group is killed in any case. Output is read as it comes, in time linear
// in its size, and kept up to Options.MaxOutput per chapter; the rest is
// counted and noted.
package engine
