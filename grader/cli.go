package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/mattn/go-isatty"

	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
)

// Exit statuses.
const (
	exitOK     = 0 // everything asked for passes (or the score reached --min-score)
	exitFailed = 1 // something graded did not pass
	exitUsage  = 2 // the command could not do what was asked: bad flag, unknown chapter, no workbook, no go
)

// stdin is where reset asks for confirmation and watch listens for Enter.
var stdin io.Reader = os.Stdin

// The chapters the grader knows and their stubs as shipped: the course
// registry's. The grader's own tests, before the workbook has chapters,
// point these at a chapter of their own.
var (
	allChapters = course.All
	pristineOf  = course.Chapter.Pristine
)

// lookup finds a registered chapter by ID or folder name.
func lookup(id string) (course.Chapter, bool) {
	for _, ch := range allChapters() {
		if ch.ID == id || ch.ID+"-"+ch.Slug == id {
			return ch, true
		}
	}
	return course.Chapter{}, false
}

// usage is the text of `grader help`.
const usage = `The One History grader: your progress through the workbook.

Usage:
  grader [flags]              grade every chapter: status, points, clauses, score
  grader [flags] exNN...      grade chapters in full: story, timeline, replay command
  grader hint exNN [N]        the next hint for a chapter (one more level each time), or hint N again
  grader list                 the chapters, their clauses and points
  grader watch [exNN]         grade again whenever you save (Enter grades by hand, q quits)
  grader reset exNN [--yes]   put the chapter's stub back as shipped (your files are backed up)
  grader vet [exNN...]        the world's rules on your code, without running it
                              (also: go vet -vettool=bin/grader ./exercises/ex04-...)
  grader lab-etcd [-drill solution]  your drill against a real etcd (labs/etcd; outside the score)
  grader collect DIR          (instructors, in a clean checkout of the course) copy only the
                              exercise Go files of the student's checkout DIR into this one
                              (regular files only: a symbolic link is refused, and its
                              chapter is reported as refused with 0 points)
  grader class PATH... [--csv FILE] [--html FILE] [--reports DIR] [--chapters ex01,ex02]
                              (instructors) one table of a class, in Markdown: PATH is a
                              folder of grade.json reports, a report, or a student's checkout
                              (graded here in turn through collect, in a clean course checkout)

Flags:
  --seed N         replay one world: pass SEED=N to the suites (make ex03 SEED=N)
  --runs N         widen the randomized checks to N seeds (make ex03 RUNS=N)
  --json           write the report as JSON (schema onehistory.grader/v1) to stdout
  --junit FILE     also write the report as JUnit XML to FILE
  --min-score N    succeed when the score reaches N points (or N%) instead of when all pass
  --solutions      grade solutions/ instead of exercises/
  --stubs          grade the pristine stubs; succeed when each shows its chapter's named failure
  --timeout D      time limit for one chapter's suite (default 60s)
  --parallel N     chapters graded at once (default: the number of CPUs)
  --color WHEN     auto, always or never (NO_COLOR in the environment always wins)
  --no-cache       run every suite, even where the same code's result is cached (CI uses it)
  --wide           timelines with each lane as wide as its own longest line (make ex01 WIDE=1);
                   otherwise they fit the terminal (COLUMNS), wrapping what does not fit,
                   leaving out idle lanes, or as a list, one event a line, when lanes cannot fit

The go command is $GO if set, else go on PATH.
`

// run is the whole grader: it parses args, runs the command, and returns the
// exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "-help", "--help":
			fmt.Fprint(stdout, usage)
			return exitOK
		case "hint":
			return withWorkbook(stderr, func(wb workbook.Workbook) int { return hintCmd(wb, args[1:], stdout, stderr) })
		case "list":
			return withWorkbook(stderr, func(wb workbook.Workbook) int { return listCmd(wb, args[1:], stdout, stderr) })
		case "reset":
			return withWorkbook(stderr, func(wb workbook.Workbook) int { return resetCmd(wb, args[1:], stdout, stderr) })
		case "collect":
			return withWorkbook(stderr, func(wb workbook.Workbook) int { return collectCmd(wb, args[1:], stdout, stderr) })
		case "watch":
			return withWorkbook(stderr, func(wb workbook.Workbook) int { return watchCmd(wb, args[1:], stdout, stderr) })
		case "vet":
			return withWorkbook(stderr, func(wb workbook.Workbook) int { return vetCmd(wb, args[1:], stdout, stderr) })
		case "class":
			return classCmd(args[1:], stdout, stderr)
		case "lab-etcd":
			return labEtcdCmd(args[1:], stdout, stderr)
		}
	}
	return withWorkbook(stderr, func(wb workbook.Workbook) int { return gradeCmd(wb, args, stdout, stderr) })
}

// withWorkbook finds the workbook above the working directory and runs f in
// it, or says in one line why it cannot.
func withWorkbook(stderr io.Writer, f func(workbook.Workbook) int) int {
	wd, err := os.Getwd()
	if err == nil {
		var wb workbook.Workbook
		if wb, err = workbook.Find(wd); err == nil {
			return f(wb)
		}
	}
	return fail(stderr, "%v; run the grader inside your clone of the workbook", err)
}

// fail prints one line to stderr and returns exitUsage.
func fail(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "grader: "+format+"\n", args...)
	return exitUsage
}

// parse parses flags that may come before, between or after positional
// arguments ("grader ex03 --seed 42" as well as "grader --seed 42 ex03"),
// and returns the positional ones. A bad flag is an error in one line.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errors.New("see grader help for the flags")
			}
			return nil, fmt.Errorf("%v (grader help lists the flags)", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// chapters resolves chapter IDs (or folder names), in the order given, or
// every chapter when none is given.
func chapters(ids []string) ([]course.Chapter, error) {
	if len(ids) == 0 {
		return allChapters(), nil
	}
	var out []course.Chapter
	for _, id := range ids {
		name := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(id, "./"), "exercises/"), "/")
		ch, ok := lookup(name)
		if !ok {
			return nil, fmt.Errorf("no chapter %q (grader list shows the chapters)", id)
		}
		out = append(out, ch)
	}
	return out, nil
}

// goCommand is $GO, or go on PATH.
func goCommand() (string, error) {
	name := os.Getenv("GO")
	if name == "" {
		name = "go"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("cannot find the go command %q: install Go (https://go.dev/dl/) or set GO to its path", name)
	}
	return path, nil
}

// terminal reports whether w is a terminal.
func terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
