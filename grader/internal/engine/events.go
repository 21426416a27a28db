package engine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"onehistory/internal/harness/suite"
)

// event is one line of `go test -json` output (see `go doc test2json`), with
// the build events the go command adds.
type event struct {
	Action      string
	Test        string
	Output      string
	Elapsed     float64
	ImportPath  string
	FailedBuild string
}

// testState is what the stream said about one test or subtest.
type testState struct {
	started bool
	action  string    // the last of "pass", "fail", "skip"
	elapsed float64   // seconds, as go test reported them (to the hundredth) or, when longer, as the grader saw them pass
	began   time.Time // when the grader read the test's "run" event
	output  *capped
	printed *capped // the lines the code under test printed itself (see isPrinted)
	partial []byte  // output since the last newline, up to maxLine bytes of it
	partCut int64   // bytes of the partial line past maxLine, dropped
}

// record is everything read from one chapter's test stream: the raw facts the
// classifier turns into a result. It is filled by one goroutine, one line at
// a time.
type record struct {
	maxOutput int

	buildFailed bool
	buildOutput *capped
	started     bool // the test binary began to run
	pkgAction   string
	tests       map[string]*testState
	order       []string                   // test names in the order they started
	transcript  *capped                    // the human output: everything but the Marker lines
	failures    map[string][]suite.Failure // Marker lines in the output: kept out of the transcript, never scored (the verdict channel carries the failures)
	figures     map[string][]suite.FigureLine

	panicked    bool
	panicCheck  string // the check running when the panic was printed
	panicText   *capped
	timedOut    bool     // "panic: test timed out after ..."
	running     []string // the tests the timeout panic listed as running
	inRunning   bool
	panicLines  int
	other       *capped // lines that were not JSON events
	lastStarted string

	now func() time.Time // the grader's clock, for the checks' durations
}

func newRecord(maxOutput int) *record {
	return &record{
		maxOutput:   maxOutput,
		buildOutput: newCapped(64 << 10),
		tests:       map[string]*testState{},
		transcript:  newCapped(maxOutput),
		failures:    map[string][]suite.Failure{},
		figures:     map[string][]suite.FigureLine{},
		panicText:   newCapped(32 << 10),
		other:       newCapped(16 << 10),
		now:         time.Now,
	}
}

// maxLine bounds one line of the stream; the rest of a longer line is
// dropped. test2json splits long output lines into events of about 1 KB, so
// only stray non-JSON output can come near it.
const maxLine = 1 << 20

// read consumes the stream until it ends.
func (r *record) read(stream io.Reader) {
	br := bufio.NewReaderSize(stream, 64<<10)
	for {
		line, _, err := readLineCapped(br, maxLine)
		if len(line) > 0 {
			r.line(strings.TrimSuffix(string(line), "\r"))
		}
		if err != nil {
			break
		}
	}
	// Output that never ended in a newline still counts.
	for _, name := range append([]string{""}, r.order...) {
		if t := r.tests[name]; t != nil && (len(t.partial) > 0 || t.partCut > 0) {
			r.flushPartial(name, t)
		}
	}
}

func (r *record) line(line string) {
	var e event
	if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil {
		r.other.WriteString(line + "\n")
		return
	}
	switch e.Action {
	case "build-output":
		r.buildOutput.WriteString(e.Output)
	case "build-fail":
		r.buildFailed = true
	case "start":
		r.started = true
	case "run":
		t := r.test(e.Test)
		t.started = true
		t.began = r.now()
		r.order = append(r.order, e.Test)
		r.lastStarted = e.Test
	case "output":
		r.output(e.Test, e.Output)
	case "pass", "fail", "skip":
		if e.Test == "" {
			r.pkgAction = e.Action
			if e.FailedBuild != "" {
				r.buildFailed = true
			}
			return
		}
		t := r.test(e.Test)
		// A test reports once; should a second report arrive, a failure
		// wins over a pass, so that printed lines cannot turn a failure
		// into a pass after the fact.
		if t.action != "fail" {
			t.action = e.Action
		}
		// go test rounds a test's time to the hundredth of a second, and a
		// check of simulated worlds often takes less: the time between its
		// run and its verdict, as read from the stream, says what it cost.
		t.elapsed = e.Elapsed
		if !t.began.IsZero() {
			t.elapsed = max(t.elapsed, r.now().Sub(t.began).Seconds())
		}
	}
}

func (r *record) test(name string) *testState {
	t := r.tests[name]
	if t == nil {
		t = &testState{output: newCapped(64 << 10), printed: newCapped(16 << 10)}
		r.tests[name] = t
	}
	return t
}

// output assembles a test's output into lines: test2json may split one long
// line, such as a Marker line with a timeline, over several events. The
// work is linear in the output's length: each event's text is scanned once,
// and a line longer than maxLine keeps its first maxLine bytes.
func (r *record) output(test, text string) {
	t := r.test(test)
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			break
		}
		t.addPartial(text[:i])
		r.flushPartial(test, t)
		text = text[i+1:]
	}
	t.addPartial(text)
}

func (t *testState) addPartial(s string) {
	room := maxLine - len(t.partial)
	if room >= len(s) {
		t.partial = append(t.partial, s...)
		return
	}
	if room > 0 {
		t.partial = append(t.partial, s[:room]...)
	}
	t.partCut += int64(len(s) - max(room, 0))
}

func (r *record) flushPartial(test string, t *testState) {
	line := string(t.partial)
	if t.partCut > 0 {
		line += fmt.Sprintf(" [line cut: %d more bytes]", t.partCut)
	}
	t.partial, t.partCut = t.partial[:0], 0
	r.outputLine(test, line)
}

func (r *record) outputLine(test, line string) {
	if f, ok := suite.ParseFigure(line); ok {
		check := f.Check
		if check == "" {
			check = checkOf(test)
		}
		if len(r.figures[check]) < 64 {
			r.figures[check] = append(r.figures[check], f)
		}
		return
	}
	if f, ok := suite.ParseLine(line); ok {
		check := f.Check
		if check == "" {
			check = checkOf(test)
		}
		if len(r.failures[check]) < 16 {
			r.failures[check] = append(r.failures[check], f)
		}
		return
	}
	r.transcript.WriteString(line + "\n")
	if test != "" {
		r.tests[test].output.WriteString(line + "\n")
	}
	if !r.panicked && isPrinted(line) {
		r.tests[test].printed.WriteString(line + "\n")
	}
	r.watchForPanic(line)
}

// isPrinted tells the lines the code under test printed itself (fmt.Println
// while working on a chapter) from the testing package's: its framing
// ("=== RUN", "--- PASS", "PASS", "ok") and what a test logs, which it
// indents.
func isPrinted(line string) bool {
	if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "    ") {
		return false
	}
	for _, p := range []string{"=== ", "--- ", "PASS", "FAIL", "ok  ", "testing: warning: no tests to run", "panic: ", "fatal error: "} {
		if strings.HasPrefix(strings.TrimLeft(line, " "), p) {
			return false
		}
	}
	return true
}

// watchForPanic notices the runtime's panic and fatal error reports, which
// start at the beginning of a line, and keeps the lines that follow them.
func (r *record) watchForPanic(line string) {
	if r.panicked {
		if r.panicLines < 400 {
			r.panicText.WriteString(line + "\n")
			r.panicLines++
		}
		if r.timedOut {
			switch {
			case strings.TrimSpace(line) == "running tests:":
				r.inRunning = true
			case r.inRunning && strings.HasPrefix(line, "\t\t"):
				name := strings.TrimSpace(line)
				if i := strings.LastIndex(name, " ("); i > 0 {
					name = name[:i]
				}
				r.running = append(r.running, name)
			default:
				r.inRunning = false
			}
		}
		return
	}
	if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
		r.panicked = true
		r.panicCheck = r.lastStarted
		r.timedOut = strings.HasPrefix(line, "panic: test timed out after ")
		r.panicText.WriteString(line + "\n")
	}
}

// checkOf turns "TestEx01/story" into "story" and "TestEx01" into "".
func checkOf(test string) string {
	_, check, _ := strings.Cut(test, "/")
	if i := strings.IndexByte(check, '/'); i >= 0 {
		check = check[:i]
	}
	return check
}
