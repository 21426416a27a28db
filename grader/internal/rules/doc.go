// Package rules is the world's rules: what a chapter's code may do so that
// the simulated world is the only world it touches, checked by a typed
// static analysis (golang.org/x/tools/go/analysis) before the grader runs
// anything.
//
// # Why there are rules
//
// Every simulated node runs in one Go process. Go therefore offers a
// chapter's code doors that the world it simulates does not have: a
// package-level variable is memory that every server shares and that
// survives every simulated crash; the standard logger is one per process;
// time.Now reads the machine's clock, which no seed replays; a go statement
// starts a goroutine the world does not schedule. A chapter that uses any
// of them can pass without replicating, persisting or agreeing on anything,
// and teaches that two machines share memory. The harness's types keep what
// they can (a process gets its node, never the world); these rules keep the
// rest.
//
// # The rules
//
//   - imports: only the packages a chapter needs (StdAllowed, HarnessAllowed,
//     and what the chapter's registry entry adds), as the compiler sees them:
//     build constraints, cgo and blank imports count; a file the build
//     ignores does not.
//   - package-state: a package-level variable may only be a value that is
//     never written after the package initialises (an init function and the
//     initialisers may fill it), read in ways through which it cannot change
//     or be handed on: a constant table, a sentinel error. A function made by
//     a call, or an error of the chapter's own pointer type, may hide state
//     too, and is refused.
//   - foreign-state: no writing another package's variables or what they
//     point to, and no keeping a reference through which they could change
//     (m := unicode.Categories); passing them to their own package is fine.
//   - process-state: no process-wide settings of standard packages (the
//     standard logger's setters, log.Default, log.Writer (the process's
//     standard error), log.Fatal, reading stdin).
//   - wall-clock: no real clock and no real timers (time.Now, time.Sleep,
//     time.After, context.WithTimeout, ...).
//   - go-statement: no go statements, nor the functions that start a
//     goroutine for you (context.AfterFunc, sync.WaitGroup.Go).
//   - world: nothing beyond the node: no world (sim.New, a *sim.World, the
//     Proc's way to it), no copies of the insides of harness values.
//   - harness-answer: not the harness's own answer to the chapter
//     (course.Chapter.Forbidden).
//   - files: Go files only, no go:linkname, go:embed or cgo directives.
//   - unanalysable: a file the compiler would build but the analysis cannot
//     read is refused, never skipped.
//
// Each finding names its rule, the file and the line, and says what the
// code does there; Rule.Why says why the rule exists, in the world's terms.
//
// # Running them
//
// Check loads the packages as the go command would build them
// (golang.org/x/tools/go/packages), without their test files, and runs the
// analyzer New returns; the grader calls it while it builds, and runs no
// chapter that breaks a rule (grader/internal/engine), and `grader vet` prints what it finds. Analyzer, the same rules
// for the workbook's own chapters, found by folder, runs under go vet:
//
//	go build -o bin/grader ./grader
//	go vet -vettool=$PWD/bin/grader ./exercises/ex04-the-write-that-arrived-late
package rules
