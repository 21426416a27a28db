// Package engine grades chapters: it runs each chapter's hidden suite as its
// own `go test -json` process over an overlay of the grader's own test
// wiring, reads the event stream, and classifies what it saw into a
// result.Chapter.
//
//	rep := engine.Grade(ctx, engine.Options{Root: root, Go: "/usr/local/go/bin/go"}, course.All())
//	for _, ch := range rep.Chapters { fmt.Println(ch.ID, ch.Status, ch.Points, ch.Max) }
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
// A check passes only when its own subtest reported a pass event. In order,
// a chapter is: error, if the build failed (the compiler's first error, its
// file and line); timeout, if the run hit its time limit (the check that
// hung, from the timeout panic's list of running tests, or the last check
// that started when the grader had to kill the process group itself);
// error, if it panicked (the first stack frame in the learner's folder),
// whether the test process crashed or the simulated world caught the panic
// and the suite reported it as a failure named suite.PanicName;
// pass, if every check passed; error, if the process ended without
// reporting every check (os.Exit in init); else fail, with the first
// failure the suite reported on a Marker line. A chapter whose folder still
// holds the pristine stub and does not pass is not started.
//
// # Limits
//
// The test binary gets Options.Timeout (go test -timeout) plus a grace
// period from the moment it starts; the whole process, build included, gets
// Options.BuildLimit. Past either, the process group is killed. Output is
// kept up to Options.MaxOutput per chapter; the rest is counted and noted.
package engine
