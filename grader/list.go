package main

import (
	"flag"
	"fmt"
	"io"

	"onehistory/grader/internal/render"
	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
)

// listCmd is `grader list`: every chapter with its clauses, points and
// folder, and whether its stub has been touched; a bonus chapter says it is
// scored apart from the core. It runs nothing.
func listCmd(wb workbook.Workbook, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	ids, err := parse(fs, args)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if len(ids) > 0 {
		return fail(stderr, "grader list takes no chapter; grader exNN grades one")
	}
	all := allChapters()
	if len(all) == 0 {
		fmt.Fprintln(stdout, "No chapters are registered yet.")
		return exitOK
	}
	width, folder := 0, 0
	for _, ch := range all {
		width = max(width, len(ch.Title))
		folder = max(folder, len(ch.Dir()))
	}
	fmt.Fprintf(stdout, "%-4s  %-*s  %-7s  %6s  %-*s  %s\n", "id", width, "title", "clauses", "points", folder, "folder", "state")
	for _, ch := range all {
		state := "edited"
		if files, err := workbook.StubFiles(wb.Path(ch.Dir())); err != nil {
			state = "missing (grader reset " + ch.ID + ")"
		} else if workbook.Same(files, pristineOf(ch)) {
			state = "untouched"
		}
		if ch.Bonus {
			state += " · bonus, scored apart"
		}
		fmt.Fprintf(stdout, "%-4s  %-*s  %-7s  %6d  %-*s  %s\n", ch.ID, width, ch.Title, render.ClauseList(ch.Clauses), ch.Points(), folder, ch.Dir(), state)
	}
	fmt.Fprintln(stdout)
	for _, k := range course.Clauses {
		fmt.Fprintf(stdout, "clause %d, %s: %s\n", int(k), k.Title(), k.Meaning())
	}
	return exitOK
}
