package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/suite"
)

// stream writes test2json events, one per line, as `go test -json` would.
func stream(events ...event) string {
	var b strings.Builder
	for _, e := range events {
		data, _ := json.Marshal(e)
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

func out(test, text string) event { return event{Action: "output", Test: test, Output: text} }

// test2json cuts long output lines into events of about 1 KB. A Marker line
// with a timeline is longer than that; the record puts it back together.
func TestAMarkerLineSplitAcrossEventsIsReassembled(t *testing.T) {
	f := suite.Failure{Chapter: "ex04", Check: "randomized", Name: "stale-read", Seed: 17,
		Timeline: strings.Repeat("│ server-1 │ server-2 │\n", 100)}
	line := "    suite.go:95: " + f.Line() + "\n"
	var events []event
	for len(line) > 0 {
		n := min(1024, len(line))
		events = append(events, out("TestEx04/randomized", line[:n]))
		line = line[n:]
	}
	rec := newRecord(1 << 20)
	rec.read(strings.NewReader(stream(events...)))
	require.Len(t, rec.failures["randomized"], 1)
	assert.Equal(t, f.Timeline, rec.failures["randomized"][0].Timeline)
	assert.NotContains(t, rec.transcript.String(), suite.Marker)
}

// A figure's marker line is kept apart from the transcript, under the check
// that logged it, whether or not the check passes.
func TestAFigureIsKeptUnderItsCheck(t *testing.T) {
	line := "    story.go:12: " + suite.FigureMarker + `{"chapter":"ex05","check":"story","name":"pods","text":"8 pods"}` + "\n"
	rec := newRecord(1 << 20)
	rec.read(strings.NewReader(stream(out("TestEx05/story", line), event{Action: "pass", Test: "TestEx05/story"})))
	require.Len(t, rec.figures["story"], 1)
	assert.Equal(t, "8 pods", rec.figures["story"][0].Text)
	assert.NotContains(t, rec.transcript.String(), suite.FigureMarker)
}

// When go test's own -timeout fires, the panic lists the tests still
// running; the innermost is the check that hung.
func TestTheTimeoutPanicNamesTheRunningTests(t *testing.T) {
	rec := newRecord(1 << 20)
	rec.read(strings.NewReader(stream(
		event{Action: "start"},
		event{Action: "run", Test: "TestEx04"},
		event{Action: "run", Test: "TestEx04/story"},
		event{Action: "pass", Test: "TestEx04/story"},
		event{Action: "run", Test: "TestEx04/randomized"},
		out("TestEx04/randomized", "panic: test timed out after 1m0s\n"),
		out("TestEx04/randomized", "\trunning tests:\n"),
		out("TestEx04/randomized", "\t\tTestEx04 (1m0s)\n"),
		out("TestEx04/randomized", "\t\tTestEx04/randomized (59s)\n"),
		out("TestEx04/randomized", "\n"),
		out("TestEx04/randomized", "goroutine 7 [running]:\n"),
		event{Action: "fail"},
	)))
	assert.True(t, rec.timedOut)
	assert.Equal(t, []string{"TestEx04", "TestEx04/randomized"}, rec.running)
}

// A check reports once. Should lines printed by the code under test add a
// second report, a failure is never turned into a pass.
func TestAFailureIsNeverOverwrittenByAPass(t *testing.T) {
	rec := newRecord(1 << 20)
	rec.read(strings.NewReader(stream(
		event{Action: "run", Test: "TestEx04/story"},
		event{Action: "fail", Test: "TestEx04/story"},
		event{Action: "pass", Test: "TestEx04/story"},
	)))
	assert.Equal(t, "fail", rec.tests["TestEx04/story"].action)
}

// Lines that are not JSON (a go command complaint, a stray print) are kept
// apart, and a line longer than the reader's limit does not stop it.
func TestStrayLinesAreKeptApart(t *testing.T) {
	rec := newRecord(1 << 20)
	long := strings.Repeat("x", maxLine+10)
	rec.read(strings.NewReader("not json\n" + long + "\n" + stream(event{Action: "pass"})))
	assert.Contains(t, rec.other.String(), "not json")
	assert.Equal(t, "pass", rec.pkgAction)
}

func TestCheckOf(t *testing.T) {
	assert.Equal(t, "story", checkOf("TestEx04/story"))
	assert.Equal(t, "randomized", checkOf("TestEx04/randomized/seed-17"))
	assert.Equal(t, "", checkOf("TestEx04"))
}

// The cap keeps the first bytes and counts the rest.
func TestCapped(t *testing.T) {
	c := newCapped(10)
	c.WriteString("0123456")
	c.WriteString("789abc")
	assert.Equal(t, int64(3), c.Lost())
	assert.Equal(t, "0123456789\n[output cut: 3 more bytes not shown]\n", c.String())
}

// go test reports a check's time to the hundredth of a second, so a check
// of simulated worlds that takes 4 ms says 0.00; the record keeps what the
// grader saw between the check's start and its verdict instead, and keeps
// go test's own figure when that is the longer.
func TestACheckTakesTheTimeTheGraderSawItRun(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec := newRecord(1 << 20)
	rec.now = func() time.Time { return clock }
	rec.line(strings.TrimSpace(stream(event{Action: "run", Test: "TestEx01/story"})))
	rec.line(strings.TrimSpace(stream(event{Action: "run", Test: "TestEx01/slow"})))
	clock = clock.Add(4 * time.Millisecond)
	rec.line(strings.TrimSpace(stream(event{Action: "pass", Test: "TestEx01/story", Elapsed: 0})))
	rec.line(strings.TrimSpace(stream(event{Action: "fail", Test: "TestEx01/slow", Elapsed: 2.5})))
	assert.Equal(t, 0.004, rec.tests["TestEx01/story"].elapsed)
	assert.Equal(t, 2.5, rec.tests["TestEx01/slow"].elapsed)
}
