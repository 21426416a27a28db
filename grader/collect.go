package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"onehistory/grader/internal/workbook"
)

// collectCmd is `grader collect DIR`: for a clean checkout of the course
// (this workbook), it replaces each chapter's exercise files with the ones
// in the same folder of the student's checkout DIR, and copies nothing
// else: only exercises/exNN-*/*.go (not test files, not symbolic links, no
// subfolders). Whatever else the student's repository holds (a changed
// grader, an added file in internal/, a go.mod) is never read. A chapter
// whose folder DIR lacks keeps the course's stub, and is "not started".
// This is how CI grades a student's work against the course's own grader
// and hidden suites.
func collectCmd(wb workbook.Workbook, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("collect", flag.ContinueOnError)
	pos, err := parse(fs, args)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if len(pos) != 1 {
		return fail(stderr, "say where the student's checkout is: grader collect DIR")
	}
	from, err := filepath.Abs(pos[0])
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if from == wb.Root {
		return fail(stderr, "grader collect copies from another checkout, not from this one")
	}
	for _, ch := range allChapters() {
		src := filepath.Join(from, filepath.FromSlash(ch.Dir()))
		files, err := workbook.StubFiles(src)
		if err != nil || len(files) == 0 {
			fmt.Fprintf(stdout, "%s: nothing in %s; the stub stays\n", ch.ID, ch.Dir())
			continue
		}
		dst := wb.Path(ch.Dir())
		old, err := workbook.StubFiles(dst)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		for name := range old {
			if err := os.Remove(filepath.Join(dst, name)); err != nil {
				return fail(stderr, "%v", err)
			}
		}
		names := make([]string, 0, len(files))
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dst, name), []byte(text), 0o644); err != nil {
				return fail(stderr, "%v", err)
			}
			names = append(names, name)
		}
		sort.Strings(names)
		fmt.Fprintf(stdout, "%s: %s %v\n", ch.ID, ch.Dir(), names)
	}
	return exitOK
}
