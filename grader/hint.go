package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"onehistory/grader/internal/workbook"
)

// hintCmd is `grader hint exNN [N]`: each call without N shows the next of
// the chapter's three hints, remembered in .onehistory/hints.json, and
// lists the hints there are; after the last it shows the last again. With
// N it shows hint N, again or for the first time. `--all` shows every hint
// seen so far without advancing.
func hintCmd(wb workbook.Workbook, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hint", flag.ContinueOnError)
	all := fs.Bool("all", false, "")
	args, err := parse(fs, args)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	number := 0
	if len(args) == 2 {
		if number, err = strconv.Atoi(args[1]); err != nil || number < 1 {
			return fail(stderr, "hint %s %s: say which hint by its number, 1 for the first: grader hint %s 2", args[0], args[1], args[0])
		}
		args = args[:1]
	}
	if len(args) != 1 {
		return fail(stderr, "say which chapter: grader hint ex01")
	}
	chs, err := chapters(args)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	ch := chs[0]
	levels := len(ch.Hints)
	switch {
	case number > levels:
		return fail(stderr, "%s has %d hints: grader hint %s 1 to %d shows one", ch.ID, levels, ch.ID, levels)
	case number > 0:
		if err := wb.SawHint(ch.ID, number); err != nil {
			return fail(stderr, "cannot remember the hint level: %v", err)
		}
		printHint(stdout, ch.ID, ch.Title, number, levels, ch.Hints[number-1])
		return exitOK
	case *all:
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
	fmt.Fprintln(stdout)
	switch {
	case level < levels:
		fmt.Fprintf(stdout, "Still stuck? go run ./grader hint %s again shows hint %d.\n", ch.ID, level+1)
	case before == levels:
		fmt.Fprintf(stdout, "That is the last hint. The book page says more: %s\n", ch.BookPage())
	}
	fmt.Fprintf(stdout, "%s has hints 1 to %d; go run ./grader hint %s N shows hint N again.\n", ch.ID, levels, ch.ID)
	return exitOK
}

func printHint(w io.Writer, id, title string, level, levels int, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		text = "(this hint is not written yet)"
	}
	fmt.Fprintf(w, "%s · %s · hint %d of %d\n\n  %s\n", id, title, level, levels, strings.ReplaceAll(text, "\n", "\n  "))
}
