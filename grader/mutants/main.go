package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"

	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: it grades the mutants of the chapters named in args
// (every registered chapter when none is named), prints a line per mutant and a summary per chapter, and
// returns the exit code: 0 when every chapter meets its bars.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	fs.SetOutput(stderr)
	parallel := fs.Int("j", runtime.GOMAXPROCS(0), "mutants graded at once")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./grader/mutants [-j N] [exNN ...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	wb, err := workbook.Find(".")
	if err != nil {
		fmt.Fprintln(stderr, "mutants:", err)
		return 2
	}
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	if p, err := exec.LookPath(goCmd); err == nil {
		goCmd = p
	}
	ids := fs.Args()
	if len(ids) == 0 {
		for _, ch := range course.All() {
			ids = append(ids, ch.ID)
		}
	}
	code := 0
	var all []Mutant
	for _, id := range ids {
		ch, ok := course.Lookup(id)
		if !ok {
			fmt.Fprintf(stderr, "mutants: no chapter %s\n", id)
			return 2
		}
		ms, err := Load(wb.Root, ch.ID)
		if err != nil {
			fmt.Fprintln(stderr, "mutants:", err)
			code = 1
			continue
		}
		if len(ms) == 0 {
			fmt.Fprintf(stdout, "%s: no mutants in mutants/%s/  BELOW THE BAR\n", ch.ID, ch.ID)
			code = 1
			continue
		}
		all = append(all, ms...)
	}
	g := Grader{Root: wb.Root, Go: goCmd, Parallel: *parallel}
	// Lines are printed in the mutants' order, each as soon as it and every
	// mutant before it are graded.
	index := map[string]int{}
	for i, m := range all {
		index[m.File] = i
	}
	known, next := make([]*Outcome, len(all)), 0
	outcomes := g.GradeAll(context.Background(), all, func(o Outcome) {
		known[index[o.Mutant.File]] = &o
		for ; next < len(known) && known[next] != nil; next++ {
			fmt.Fprintln(stdout, known[next].Line())
		}
	})
	fmt.Fprintln(stdout)
	for _, s := range Summarize(outcomes) {
		fmt.Fprintln(stdout, s.Line())
		if len(s.Shortfalls()) > 0 {
			code = 1
		}
	}
	return code
}
