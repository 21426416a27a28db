package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis/unitchecker"

	"onehistory/grader/internal/render"
	"onehistory/grader/internal/rules"
	"onehistory/grader/internal/workbook"
)

// vetCmd is `grader vet [exNN...]`: the world's rules (package rules) on
// the chapters' code, without building or running anything: each place a
// rule is broken, and why the rule exists. The grader runs the same rules
// while it builds a chapter, and refuses one that breaks them: it never
// runs it.
func vetCmd(wb workbook.Workbook, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("vet", flag.ContinueOnError)
	solutions := fs.Bool("solutions", false, "check solutions/ instead of exercises/")
	ids, err := parse(fs, args)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	chs, err := chapters(ids)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	goCmd, err := goCommand()
	if err != nil {
		return fail(stderr, "%v", err)
	}
	opts := rules.Options{Root: wb.Root, Go: goCmd, Dirs: map[string]rules.Config{}}
	dirOf := func(i int) string {
		if *solutions {
			return chs[i].SolutionDir()
		}
		return chs[i].Dir()
	}
	for i, ch := range chs {
		if _, err := os.Stat(wb.Path(dirOf(i))); err == nil {
			opts.Dirs[dirOf(i)] = rules.ForChapter(ch)
		}
	}
	res, err := rules.Check(context.Background(), opts)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	status := exitOK
	for i, ch := range chs {
		r, ok := res[dirOf(i)]
		switch {
		case !ok:
			fmt.Fprintf(stdout, "%s  %s is missing\n", ch.ID, dirOf(i))
			status = exitFailed
		case r.OK():
			fmt.Fprintf(stdout, "%s  %s keeps the world's rules\n", ch.ID, dirOf(i))
		case len(r.Findings) > 0:
			fmt.Fprintf(stdout, "%s  %s breaks the world's rules:\n%s\n", ch.ID, dirOf(i), indent(render.WrapLines(rules.Explain(r.Findings), render.RefusalWidth-2)))
			status = exitFailed
		default:
			fmt.Fprintf(stdout, "%s  %s could not be analysed (go build %s says why, if it does not compile):\n%s\n", ch.ID, dirOf(i), "./"+dirOf(i), indent(r.Unanalysable))
			status = exitFailed
		}
	}
	return status
}

func indent(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "    " + l
		}
	}
	return strings.Join(lines, "\n")
}

// vetTool reports whether the grader was started by go vet as its analysis
// tool (go vet -vettool=bin/grader): go vet asks for its version (-V=full)
// and its flags (-flags), then hands it one package's configuration file.
func vetTool(args []string) bool {
	if len(args) == 1 && (args[0] == "-V=full" || args[0] == "-flags") {
		return true
	}
	return len(args) > 0 && strings.HasSuffix(args[len(args)-1], ".cfg")
}

// vetToolMain runs the world's rules the way go vet expects of a tool; it
// does not return.
func vetToolMain() { unitchecker.Main(rules.Analyzer) }
