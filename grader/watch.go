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
// in the watched exercise folders changes, or when Enter is pressed; q, or
// Ctrl-C, quits. At a terminal each run starts on a clean screen under a
// one-line banner (what is watched, when it was graded, how to quit), and
// keys act as they are pressed; the terminal is put back as it was however
// watch ends. Input that is not a terminal is read a line at a time. It
// polls the folders' contents instead of asking the system for file events:
// polling sees every way an editor saves (writing in place, or writing a
// new file and renaming it over the old one), on every system, including
// shared folders where events never come.
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
	what := "exercises/"
	if len(ids) > 0 {
		what = strings.Join(ids, " ")
	}

	// The terminal is put back on every way out: a return, q, Ctrl-C, a
	// kill (SIGTERM) or the terminal closing (SIGHUP) all end in the
	// deferred restore.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	byKey := false
	if f, ok := stdin.(*os.File); ok && terminal(f) {
		var restore func()
		if restore, byKey = keysByKey(f); byKey {
			defer restore()
		}
	}
	keys := make(chan watchKey)
	go readKeys(stdin, byKey, keys)

	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		line := watchBanner(what, time.Now(), byKey)
		if terminal(stdout) {
			fmt.Fprint(stdout, "\x1b[H\x1b[2J") // a clean screen for each run
			fmt.Fprintf(stdout, "%s\n\n", line)
		}
		grade(ctx, wb, o, goCmd, chs, len(ids) > 0, stdout, stderr)
		if ctx.Err() != nil {
			return exitOK
		}
		fmt.Fprintf(stdout, "\n%s\n", line)
		seen := fingerprint(dirs)
	wait:
		for {
			select {
			case <-ctx.Done():
				return exitOK
			case key, ok := <-keys:
				if !ok {
					keys = nil // no more input: keep watching the files
					continue
				}
				if key == keyQuit {
					return exitOK
				}
				if key == keyGrade {
					break wait
				}
			case <-tick.C:
				if fingerprint(dirs) != seen {
					time.Sleep(pollEvery / 2) // let an editor finish writing
					break wait
				}
			}
		}
	}
}

// watchKey is what a key pressed during watch asks for.
type watchKey int

const (
	keyOther watchKey = iota // nothing
	keyGrade                 // Enter: grade now
	keyQuit                  // q: stop watching
)

// readKeys sends what each key (byKey) or each line of in asks for, and
// closes keys when in ends.
func readKeys(in io.Reader, byKey bool, keys chan<- watchKey) {
	defer close(keys)
	if byKey {
		var b [1]byte
		for {
			if n, err := in.Read(b[:]); n == 0 || err != nil {
				return
			}
			switch b[0] {
			case 'q', 'Q':
				keys <- keyQuit
			case '\r', '\n':
				keys <- keyGrade
			default:
				keys <- keyOther
			}
		}
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		switch strings.TrimSpace(sc.Text()) {
		case "q", "quit":
			keys <- keyQuit
		default:
			keys <- keyGrade
		}
	}
}

// watchBanner is watch's one line: what it watches, when it last graded (by
// this machine's clock) and the keys it listens to.
func watchBanner(what string, at time.Time, byKey bool) string {
	quit := "q quits"
	if !byKey {
		quit = "q and Enter quits"
	}
	return fmt.Sprintf("watching %s · graded %s · %s · Enter or saving grades again", what, at.Format("15:04:05"), quit)
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
