package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"onehistory/grader/internal/render"
	"onehistory/grader/internal/result"
	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The suites' timelines fit the grader's terminal, or COLUMNS when it says
// how wide the terminal is, less the indent the report puts before them;
// --wide asks for lanes each as wide as its own longest line.
func TestTimelineEnv(t *testing.T) {
	base := []string{"HOME=/h"}
	if got := timelineEnv(base, false, 132); !slices.Equal(got, []string{"HOME=/h", "COLUMNS=130"}) {
		t.Errorf("a terminal 132 wide: %v", got)
	}
	if got := timelineEnv(base, false, 0); !slices.Equal(got, base) {
		t.Errorf("no terminal: %v", got)
	}
	if got := timelineEnv([]string{"COLUMNS=90", "HOME=/h"}, false, 132); !slices.Equal(got, []string{"HOME=/h", "COLUMNS=88"}) {
		t.Errorf("COLUMNS given: %v", got)
	}
	if got := timelineEnv(base, true, 132); !slices.Equal(got, []string{"HOME=/h", "ONEHISTORY_TIMELINE=wide"}) {
		t.Errorf("--wide: %v", got)
	}
}

// A learner at a terminal 80 or 160 columns wide reads a chapter's report
// whose timeline has four lanes (ex04's controller, two servers and the
// dashboard) and cells longer than a lane: no line of the timeline, as the
// report prints it, is wider than the terminal, so no closing │ wraps onto
// a line of its own.
func TestTimelinesFitTheTerminalTheReportPrintsTo(t *testing.T) {
	lanes := []sim.NodeID{"controller", "server-1", "server-2", "dashboard"}
	events := []sim.Event{
		{At: 0, Kind: sim.EvFault, Text: "slow link server-1 ↔ server-2 (400ms) from 0ms to 6000ms"},
		{At: 3 * time.Millisecond, Kind: sim.EvSend, Node: "server-1", Peer: "server-2", Msg: "Replicate web=3 at rv 1, and a good deal more to say about it"},
		{At: 6 * time.Millisecond, Kind: sim.EvNote, Node: "controller", Text: "CREATE deployments/web replicas=3 @server-1 → rv=1"},
		{At: 403 * time.Millisecond, Kind: sim.EvRecv, Node: "server-2", Peer: "server-1", Msg: "Replicate web=3 at rv 1"},
		{At: 2020 * time.Millisecond, Kind: sim.EvNote, Node: "dashboard", Text: "GET deployments/web @server-2 → replicas=3 rv=1"},
	}
	for _, width := range []int{80, 160} {
		env := timelineEnv([]string{"HOME=/h"}, false, width)
		columns := ""
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "COLUMNS="); ok {
				columns = v
			}
		}
		t.Setenv("COLUMNS", columns)
		t.Setenv("ONEHISTORY_TIMELINE", "")
		f := suite.Failure{Chapter: "ex04", Check: "story", Name: "stale-read", Story: "server-2 answered from its own copy",
			Seed: 1, Replay: "make ex04 SEED=1", Timeline: sim.Timeline(events, sim.TimelineOptions{Columns: lanes})}
		ch := result.Chapter{ID: "ex04", Title: "The write that arrived late", Status: result.Fail, Max: 3,
			Checks: []result.Check{{Name: "story", Title: "web is scaled to 5", Status: result.Fail, Max: 3, Failure: &f}}, Failure: &f}
		var out bytes.Buffer
		render.Verbose(&out, ch, render.NewPalette(false))
		rows := 0
		for _, line := range strings.Split(out.String(), "\n") {
			if !strings.Contains(line, "│") && !strings.Contains(line, "┼") {
				continue
			}
			rows++
			if n := utf8.RuneCountInString(line); n > width {
				t.Errorf("at %d columns a timeline line is %d wide:\n%s", width, n, line)
			}
		}
		if rows < 5 {
			t.Fatalf("at %d columns the report shows no timeline:\n%s", width, out.String())
		}
	}
}

// Under a chapter that does not pass, the files to edit and the page to
// read fit a terminal 80 columns wide, whatever the chapter: ex08's three
// files under its long folder name go on over a second line.
func TestWhereToWorkFitsEightyColumns(t *testing.T) {
	wb, err := workbook.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range course.All() {
		res := result.Chapter{ID: ch.ID, Status: result.Fail}
		where := whereToWork(wb, res, result.Exercises, 80)
		if where == "" {
			continue
		}
		for _, line := range strings.Split(where, "\n") {
			if n := utf8.RuneCountInString(line); n > 80 {
				t.Errorf("%s: a line %d wide:\n%s", ch.ID, n, line)
			}
		}
		if !strings.Contains(where, "read "+ch.BookPage()) {
			t.Errorf("%s: the page to read is not named:\n%s", ch.ID, where)
		}
	}
}

// A file the harness gives whole is not named among the files to edit:
// ex14's footer names detector.go, never controller.go, which its page
// says is given.
func TestWhereToWorkLeavesOutGivenFiles(t *testing.T) {
	wb, err := workbook.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	where := whereToWork(wb, result.Chapter{ID: "ex14", Status: result.Fail}, result.Exercises, 0)
	if !strings.Contains(where, "edit exercises/ex14-slow-is-not-dead/detector.go ·") {
		t.Errorf("ex14's footer does not name detector.go alone:\n%s", where)
	}
	for _, ch := range course.All() {
		for _, g := range ch.Given {
			if _, err := os.Stat(wb.Path(ch.Dir() + "/" + g)); err != nil {
				t.Errorf("%s gives %s, which is not in its folder: %v", ch.ID, g, err)
			}
		}
	}
}
