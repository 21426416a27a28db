package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"onehistory/grader/internal/workbook"
)

// pollEvery is how often watch looks at the exercise folders.
const pollEvery = 300 * time.Millisecond

// watchCmd is `grader watch [exNN]`: grade, then grade again whenever a file
// in the watched exercise folders changes, or when Enter is pressed; q and
// Enter, or Ctrl-C, quits. It polls the folders' contents instead of asking
// the system for file events: polling sees every way an editor saves
// (writing in place, or writing a new file and renaming it over the old
// one), on every system, including shared folders where events never come.
func watchCmd(wb workbook.Workbook, args []string, stdout, stderr io.Writer) int {
	run, err := setUp("watch", args)
	if err == nil {
		run.goCmd, err = goCommand()
	}
	if err != nil {
		return fail(stderr, "%v", err)
	}
	o, goCmd, chs, ids := run.opts, run.goCmd, run.chapters, run.ids
	if o.json || o.junit != "" {
		return fail(stderr, "watch writes for a person; use grader --json or --junit for reports")
	}
	var dirs []string
	for _, ch := range chs {
		dir := ch.Dir()
		if o.solutions {
			dir = ch.SolutionDir()
		}
		dirs = append(dirs, wb.Path(dir))
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			lines <- strings.TrimSpace(sc.Text())
		}
	}()

	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if terminal(stdout) {
			fmt.Fprint(stdout, "\x1b[H\x1b[2J") // a clean screen for each run
		}
		grade(ctx, wb, o, goCmd, chs, len(ids) > 0, stdout, stderr)
		if ctx.Err() != nil {
			return exitOK
		}
		what := "exercises/"
		if len(ids) > 0 {
			what = strings.Join(ids, " ")
		}
		fmt.Fprintf(stdout, "\nwatching %s · save to grade again · Enter grades now · q quits\n", what)
		seen := fingerprint(dirs)
	wait:
		for {
			select {
			case <-ctx.Done():
				return exitOK
			case line, ok := <-lines:
				if !ok {
					lines = nil // no more input: keep watching the files
					continue
				}
				if line == "q" || line == "quit" {
					return exitOK
				}
				break wait
			case <-tick.C:
				if fingerprint(dirs) != seen {
					time.Sleep(pollEvery / 2) // let an editor finish writing
					break wait
				}
			}
		}
	}
}

// fingerprint is a digest of the Go files in the folders, names and
// contents: it changes when a file is edited, added, removed or replaced,
// and not when one is merely touched.
func fingerprint(dirs []string) string {
	h := sha256.New()
	for _, dir := range dirs {
		entries, _ := os.ReadDir(dir)
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".go") {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, name := range names {
			data, _ := os.ReadFile(filepath.Join(dir, name))
			fmt.Fprintf(h, "%s\x00%d\x00", filepath.Join(dir, name), len(data))
			h.Write(data)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}
