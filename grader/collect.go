package main

import (
	"errors"
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
// else: only exercises/exNN-*/*.go (not test files, no subfolders), and of
// those only regular files with one name, read through DIR and never past
// it (workbook.Collect). Whatever else the student's repository holds (a
// changed grader, an added file in internal/, a go.mod) is never read.
//
// A chapter whose folder DIR lacks gets the course's stub (put back if an
// earlier collect copied other files there), and is "not started". A
// chapter whose folder holds, or is, a symbolic link or another file
// collect refuses gets the stub too, and the refusal is remembered in
// .onehistory/collected.json: grading then reports the chapter as an error
// of kind forbidden, naming the file and the reason, with 0 points. A DIR
// that does not exist, or holds no exercises/exNN-* folder at all, is a
// mistake in the command: exit status 2 and one line, and nothing changes.
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
	if same(pos[0], wb.Root) {
		return fail(stderr, "grader collect copies from another checkout, not from this one")
	}
	sub, err := workbook.Collect(pos[0], allChapters())
	if errors.Is(err, workbook.ErrNoExercises) {
		return fail(stderr, "%v: is it a checkout of the workbook?", err)
	}
	if err != nil {
		return fail(stderr, "%v", err)
	}
	// Whose work it is, for the report: the checkout's git origin and
	// commit, when it is a git checkout.
	sub.Collected.Repository, sub.Collected.Commit = gitRepository(pos[0]), gitCommit(pos[0])
	refused := map[string][]workbook.Refusal{}
	for _, r := range sub.Refused {
		refused[r.Chapter] = append(refused[r.Chapter], r)
	}
	// The record first: if copying fails half way, the refusals are kept.
	if err := wb.SaveCollected(sub.Collected); err != nil {
		return fail(stderr, "%v", err)
	}
	for _, ch := range allChapters() {
		dst := wb.Path(ch.Dir())
		files := sub.Files[ch.ID]
		if len(files) == 0 {
			// The course's stub, even where an earlier collect copied
			// another student's files.
			stub := "the stub stays"
			if pristine := pristineOf(ch); len(pristine) > 0 && !workbook.Unchanged(dst, pristine) {
				if _, err := wb.Reset(ch, pristine); err != nil {
					return fail(stderr, "%v", err)
				}
				stub = "the course's stub is put back"
			}
			if rs := refused[ch.ID]; len(rs) > 0 {
				fmt.Fprintf(stdout, "%s: refused: %s; %s and the chapter scores 0\n", ch.ID, rs[0], stub)
			} else {
				fmt.Fprintf(stdout, "%s: nothing in %s; %s\n", ch.ID, ch.Dir(), stub)
			}
			continue
		}
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

// same reports whether path names the folder root, through any link.
func same(path, root string) bool {
	a, err1 := os.Stat(path)
	b, err2 := os.Stat(root)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}
