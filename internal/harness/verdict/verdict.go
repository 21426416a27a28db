// Package verdict is the hidden suites' private line to the grader: the one
// place a check's pass or failure is told in a way the code under test
// cannot imitate.
//
// A test binary's output is shared with the code it tests: anything the
// suite can print, the learner's code can print too, on any stream, with
// any framing, before or after exiting. So the grader does not take a
// chapter's results from the output. It starts the test binary with two
// extra open files and names them, and only names them, in the environment
// variable Env: the channel (a pipe) to write lines to, and a second pipe
// that holds a key fresh for the run (KeySize random bytes) and nothing
// else. This package's init reads the key to its end, closes that pipe,
// marks the channel close-on-exec and removes the variable. It runs before
// any code of the package under test: that package's test file imports the
// hidden suite, which imports this one, and Go initializes a package only
// after everything it imports. So the key never sits in the environment
// (where /proc/self/environ would keep it for the life of the process), and
// by the time the chapter's code runs it is nowhere but in this package's
// unexported state.
//
// # Lines
//
// The suite tells the grader, one line each (see Sign): that it began
// (Begin), every failure it reports (Failure), each check's verdict once the
// check has ended (Checked) and that it ran to its end (End). Every line
// carries its number (Seq, from 0, one more each line) and is signed with
// the key (HMAC-SHA256). The key never travels on the channel, so code that
// reads the channel (a pipe can be reopened through /proc/self/fd) learns
// nothing it could sign a line with. The grader counts a line only when its
// signature holds and its number is the next one due; the first line must
// be the one begin, each check gets at most one verdict, and nothing comes
// after the end. A line missing, repeated or out of order, or a second
// begin, is tampering: only something other than the suite makes it.
//
// # Callers
//
// Only the hidden suites may give verdicts: a call of Begin, Failure,
// Checked or End whose caller is not in package suite or below suites/ is
// not carried out, and the grader is told of it instead (RefusedEvent,
// naming the caller). A chapter's code may not import this package at all
// (the grader checks the imports before building); this is the second wall.
//
// Without Env (a plain go test), every function here does nothing.
package verdict

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Env is the environment variable that names the channel. On Unix it is
// "OUT KEY": two open file descriptors, OUT the channel (a pipe to write
// lines to) and KEY a pipe to read the run's key from, to its end. Where
// open descriptors cannot be passed on it is "@DIR": a folder holding the
// file KeyFile, read once and removed, and the file LinesFile, appended to.
// It never holds the key itself.
const Env = "ONEHISTORY_VERDICTS"

// KeySize is the length in bytes of a run's key.
const KeySize = 32

// The files of the channel's folder, where open descriptors cannot be
// passed on (Env "@DIR").
const (
	KeyFile   = "key"   // the run's key, removed once read
	LinesFile = "lines" // the channel: lines appended one write each
)

// The Events of a Line.
const (
	BeginEvent   = "begin"   // the suite started: Chapter
	FailureEvent = "failure" // a check reported a failure: Check, Failure
	VerdictEvent = "verdict" // a check ended: Check, Passed
	EndEvent     = "end"     // the suite ran every check to its end
	RefusedEvent = "refused" // code outside the hidden suites called this package: Caller
)

// Line is one line on the channel: Sign encodes it, Verify decodes it.
type Line struct {
	Seq     int             `json:"seq"` // 0 for the first line of a run, then one more each line
	Event   string          `json:"event"`
	Chapter string          `json:"chapter,omitempty"`
	Check   string          `json:"check,omitempty"`
	Passed  bool            `json:"passed,omitempty"`
	Caller  string          `json:"caller,omitempty"`
	Failure json.RawMessage `json:"failure,omitempty"`
}

// Sign encodes l as one line of the channel, without its newline: the
// HMAC-SHA256 of l's JSON under key, in hex, a space, and the JSON.
func Sign(key []byte, l Line) ([]byte, error) {
	body, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	out := make([]byte, 0, 2*sha256.Size+1+len(body)+1)
	out = hex.AppendEncode(out, mac.Sum(nil))
	out = append(out, ' ')
	return append(out, body...), nil
}

// ErrUnsigned is returned by Verify for a line whose signature does not
// hold under the key: this package did not write it.
var ErrUnsigned = errors.New("not signed with the run's key")

// Verify decodes one line of the channel (without its newline) that Sign
// made with key. It returns ErrUnsigned when the signature does not hold,
// whatever the line says.
func Verify(key []byte, line []byte) (Line, error) {
	sig, body, ok := bytes.Cut(line, []byte{' '})
	if !ok || len(sig) != 2*sha256.Size {
		return Line{}, ErrUnsigned
	}
	want := make([]byte, sha256.Size)
	if _, err := hex.Decode(want, sig); err != nil {
		return Line{}, ErrUnsigned
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	if !hmac.Equal(mac.Sum(nil), want) {
		return Line{}, ErrUnsigned
	}
	var l Line
	if err := json.Unmarshal(body, &l); err != nil {
		return Line{}, err
	}
	return l, nil
}

var (
	mu  sync.Mutex
	out *os.File
	key []byte
	seq int
)

func init() {
	v, ok := os.LookupEnv(Env)
	if !ok {
		return
	}
	os.Unsetenv(Env)
	out, key = connect(v)
}

// connect opens the channel Env's value v names and reads the run's key:
// the channel and the key, or nil and nil.
func connect(v string) (*os.File, []byte) {
	if dir, ok := strings.CutPrefix(v, "@"); ok {
		keyFile := filepath.Join(dir, KeyFile)
		k, err := os.ReadFile(keyFile)
		os.Remove(keyFile)
		if err != nil || len(k) != KeySize {
			return nil, nil
		}
		f, err := os.OpenFile(filepath.Join(dir, LinesFile), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, nil
		}
		return f, k
	}
	o, kf, ok := strings.Cut(v, " ")
	outFD, err1 := strconv.Atoi(o)
	keyFD, err2 := strconv.Atoi(kf)
	if !ok || err1 != nil || err2 != nil || outFD <= 2 || keyFD <= 2 || outFD == keyFD {
		return nil, nil
	}
	keyPipe := os.NewFile(uintptr(keyFD), "verdict key")
	k := make([]byte, KeySize)
	_, err := io.ReadFull(keyPipe, k)
	keyPipe.Close()
	keepFromChildren(outFD)
	f := os.NewFile(uintptr(outFD), "verdicts")
	if err != nil {
		f.Close()
		return nil, nil
	}
	return f, k
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

// trusted are the prefixes of the functions that may call this package:
// package suite and the hidden suites.
var trusted = []string{"onehistory/internal/harness/suite.", "onehistory/internal/harness/suites/"}

// self prefixes the functions of this package.
const self = "onehistory/internal/harness/verdict."

// caller is the first function on the stack outside this package: the one
// that called Begin, Failure, Checked or End ("onehistory/internal/harness/suite.Run").
func caller() string {
	pcs := make([]uintptr, 8)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, self) || !more {
			return f.Function
		}
	}
}

func send(l Line) {
	if out == nil {
		return
	}
	who := caller()
	ok := false
	for _, p := range trusted {
		ok = ok || strings.HasPrefix(who, p)
	}
	if !ok {
		if who == "" {
			who = "an unknown caller"
		}
		l = Line{Event: RefusedEvent, Caller: who}
	}
	mu.Lock()
	defer mu.Unlock()
	l.Seq = seq
	seq++
	data, err := Sign(key, l)
	if err != nil {
		return
	}
	// One write per line: the grader reads whole lines, and a failed write
	// (the grader is gone) leaves nothing to do.
	_, _ = out.Write(append(data, '\n'))
}
