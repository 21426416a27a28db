package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"onehistory/grader/internal/workbook"
)

// hintCmd is `grader hint exNN`: each call shows the next of the chapter's
// three hints, remembered in .onehistory/hints.json; after the last it shows
// the last again. `--all` shows every hint seen so far without advancing.
func hintCmd(wb workbook.Workbook, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hint", flag.ContinueOnError)
	all := fs.Bool("all", false, "")
	ids, err := parse(fs, args)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if len(ids) != 1 {
		return fail(stderr, "say which chapter: grader hint ex01")
	}
	chs, err := chapters(ids)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	ch := chs[0]
	levels := len(ch.Hints)
	if *all {
		shown := wb.HintsShown(ch.ID)
		if shown == 0 {
			fmt.Fprintf(stdout, "No hint seen yet for %s: grader hint %s shows the first.\n", ch.ID, ch.ID)
			return exitOK
		}
		for level := 1; level <= shown; level++ {
			printHint(stdout, ch.ID, ch.Title, level, levels, ch.Hints[level-1])
		}
		return exitOK
	}
	before := wb.HintsShown(ch.ID)
	level, err := wb.NextHint(ch.ID, levels)
	if err != nil {
		return fail(stderr, "cannot remember the hint level: %v", err)
	}
	printHint(stdout, ch.ID, ch.Title, level, levels, ch.Hints[level-1])
	switch {
	case level < levels:
		fmt.Fprintf(stdout, "\nStill stuck? go run ./grader hint %s again shows hint %d.\n", ch.ID, level+1)
	case before == levels:
		fmt.Fprintf(stdout, "\nThat is the last hint. The book page says more: %s\n", ch.BookPage())
	}
	return exitOK
}

func printHint(w io.Writer, id, title string, level, levels int, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		text = "(this hint is not written yet)"
	}
	fmt.Fprintf(w, "%s · %s · hint %d of %d\n\n  %s\n", id, title, level, levels, strings.ReplaceAll(text, "\n", "\n  "))
}
