// Package verdict is the hidden suites' private line to the grader: the one
// place a check's pass or failure is told in a way the code under test
// cannot imitate.
//
// A test binary's output is shared with the code it tests: anything the
// suite can print, the learner's code can print too, on any stream, with
// any framing, before or after exiting. So the grader does not take a
// chapter's results from the output. It starts the test binary with an
// extra open file (a pipe on Unix) and names it, with a nonce fresh for the
// run, in the environment variable Env. This package's init runs before any
// code of the package under test (that package imports the hidden suite,
// which imports this one, and Go initializes a package only after
// everything it imports), takes the file, and removes the variable from the
// environment. From then on, only this package holds the file, and the
// chapter's code, which may import neither this package nor os, syscall or
// unsafe (the grader checks the imports before building), has no way to
// reach it.
//
// The suite tells the grader, one JSON line each (a Line): that it began
// (Begin), every failure it reports (Failure), each check's verdict once the
// check has ended (Checked) and that it ran to its end (End). The grader
// counts a check as passed only on its pass verdict, and a chapter as
// passed only when every verdict arrived, the suite ended, and the test
// process exited well.
//
// Without Env (a plain go test), every function here does nothing.
package verdict

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Env is the environment variable that names the channel: "NONCE FD" (an
// open file descriptor) or "NONCE @PATH" (a file to append to, where open
// descriptors cannot be passed on).
const Env = "ONEHISTORY_VERDICTS"

// The Events of a Line.
const (
	BeginEvent   = "begin"   // the suite started: Chapter
	FailureEvent = "failure" // a check reported a failure: Check, Failure
	VerdictEvent = "verdict" // a check ended: Check, Passed
	EndEvent     = "end"     // the suite ran every check to its end
)

// Line is one line on the channel, JSON-encoded.
type Line struct {
	Nonce   string          `json:"nonce"`
	Event   string          `json:"event"`
	Chapter string          `json:"chapter,omitempty"`
	Check   string          `json:"check,omitempty"`
	Passed  bool            `json:"passed,omitempty"`
	Failure json.RawMessage `json:"failure,omitempty"`
}

var (
	mu    sync.Mutex
	out   *os.File
	nonce string
)

func init() {
	v, ok := os.LookupEnv(Env)
	if !ok {
		return
	}
	os.Unsetenv(Env)
	n, where, ok := strings.Cut(v, " ")
	if !ok || n == "" {
		return
	}
	var f *os.File
	if path, isFile := strings.CutPrefix(where, "@"); isFile {
		f, _ = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	} else if fd, err := strconv.Atoi(where); err == nil && fd > 2 {
		keepFromChildren(fd)
		f = os.NewFile(uintptr(fd), "verdicts")
	}
	if f != nil {
		out, nonce = f, n
	}
}

// Active reports whether a grader is listening.
func Active() bool { return out != nil }

// Begin says the suite of chapter id started.
func Begin(id string) { send(Line{Event: BeginEvent, Chapter: id}) }

// Failure tells the grader of a failure a check reported; failure is
// encoded as JSON (a suite.Failure).
func Failure(check string, failure any) {
	if out == nil {
		return
	}
	data, err := json.Marshal(failure)
	if err != nil {
		return
	}
	send(Line{Event: FailureEvent, Check: check, Failure: data})
}

// Checked gives a check's verdict once it has ended.
func Checked(check string, passed bool) {
	send(Line{Event: VerdictEvent, Check: check, Passed: passed})
}

// End says the suite ran every check to its end.
func End() { send(Line{Event: EndEvent}) }

func send(l Line) {
	mu.Lock()
	defer mu.Unlock()
	if out == nil {
		return
	}
	l.Nonce = nonce
	data, err := json.Marshal(l)
	if err != nil {
		return
	}
	// One write per line: the grader reads whole lines, and a failed write
	// (the grader is gone) leaves nothing to do.
	_, _ = out.Write(append(data, '\n'))
}
