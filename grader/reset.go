package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"onehistory/grader/internal/workbook"
)

// resetCmd is `grader reset exNN`: it shows what changed, asks y/N (or not,
// with --yes), backs the learner's files up under .onehistory/backup/, and
// puts the pristine stub and the thin test file back.
func resetCmd(wb workbook.Workbook, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("reset", flag.ContinueOnError)
	yes := fs.Bool("yes", false, "")
	fs.BoolVar(yes, "y", false, "")
	ids, err := parse(fs, args)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if len(ids) != 1 {
		return fail(stderr, "say which chapter: grader reset ex01")
	}
	chs, err := chapters(ids)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	ch := chs[0]
	pristine := pristineOf(ch)
	if len(pristine) == 0 {
		return fail(stderr, "no pristine stub is stored for %s", ch.ID)
	}
	changes := wb.Changes(ch, pristine)
	testFile, _ := os.ReadFile(filepath.Join(wb.Path(ch.Dir()), ch.TestFileName()))
	if string(testFile) != ch.TestFile() {
		changes = append(changes, ch.TestFileName()+" (test wiring)")
	}
	if len(changes) == 0 {
		fmt.Fprintf(stdout, "%s already holds the pristine stub; nothing to do.\n", ch.Dir())
		return exitOK
	}
	fmt.Fprintf(stdout, "Restore %s to the stub as shipped? Changed: %s.\n", ch.Dir(), strings.Join(changes, ", "))
	if !*yes {
		fmt.Fprint(stdout, "Your files are copied to .onehistory/backup/ first. [y/N] ")
		answer, _ := bufio.NewReader(stdin).ReadString('\n')
		answer = strings.ToLower(strings.TrimSpace(answer))
		if !terminal(stdout) {
			fmt.Fprintln(stdout) // a terminal echoed the Enter; a pipe did not
		}
		if answer != "y" && answer != "yes" {
			fmt.Fprintln(stdout, "Nothing changed.")
			return exitFailed
		}
	}
	backup, err := wb.Reset(ch, pristine)
	if err != nil {
		return fail(stderr, "reset %s: %v", ch.ID, err)
	}
	fmt.Fprintf(stdout, "Restored %s.", ch.Dir())
	if backup != "" {
		rel, _ := filepath.Rel(wb.Root, backup)
		fmt.Fprintf(stdout, " Your previous files are in %s.", filepath.ToSlash(rel))
	}
	fmt.Fprintln(stdout)
	return exitOK
}
