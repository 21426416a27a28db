package engine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/verdict"
)

// verdicts is what the hidden suite told the grader on its private channel
// (package verdict): the only source of a check's pass or failure. Only a
// line signed with the run's key and numbered as the next one due counts.
// Whatever else arrived there is kept as evidence of tampering: a line the
// suite's package did not sign (forged), a signed line out of its place
// (broken: the suite writes its lines once each, in order, one begin first,
// one verdict per check, nothing after its end), or the package's word that
// code outside the hidden suites called it (intruder).
type verdicts struct {
	key      []byte
	next     int // the number of the next line due
	began    bool
	ended    bool
	passed   map[string]bool // check → its verdict, once given
	failures map[string][]suite.Failure
	forged   []string // what arrived on the channel that the suite did not write (a few, cut short)
	nForged  int
	broken   string // how the suite's own lines first broke the protocol: "line 3 came twice"
	intruder string // the first function outside the hidden suites that called package verdict
}

func newVerdicts(key []byte) *verdicts {
	return &verdicts{key: key, passed: map[string]bool{}, failures: map[string][]suite.Failure{}}
}

// maxVerdictLine bounds one line of the channel: a failure with its
// timeline is some tens of kilobytes.
const maxVerdictLine = 8 << 20

// read consumes the channel until it ends. A last line cut short (no
// newline: the process died in the middle of writing it) is dropped: it
// can only take away from what the suite said.
func (v *verdicts) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, cut, err := readLineCapped(br, maxVerdictLine)
		switch {
		case cut > 0:
			v.forge(fmt.Sprintf("a line of %d bytes, longer than any the suite writes", int64(len(line))+cut))
		case len(line) > 0 && err == nil:
			v.line(line)
		}
		if err != nil {
			return
		}
	}
}

func (v *verdicts) forge(what string) {
	v.nForged++
	if len(v.forged) < 3 {
		if len(what) > 200 {
			what = what[:200] + "…"
		}
		v.forged = append(v.forged, what)
	}
}

// breach notes the first way the suite's own lines broke the protocol.
func (v *verdicts) breach(what string) {
	if v.broken == "" {
		v.broken = what
	}
}

func (v *verdicts) line(line []byte) {
	l, err := verdict.Verify(v.key, line)
	if err != nil {
		v.forge(fmt.Sprintf("%q", line))
		return
	}
	switch {
	case l.Seq < v.next:
		v.breach(fmt.Sprintf("line %d came again after line %d", l.Seq, v.next-1))
		return
	case l.Seq > v.next:
		v.breach(fmt.Sprintf("line %d came where line %d was due", l.Seq, v.next))
		v.next = l.Seq + 1
		return
	}
	v.next++
	if l.Event == verdict.RefusedEvent {
		if v.intruder == "" {
			v.intruder = l.Caller
		}
		return
	}
	switch {
	case v.ended:
		v.breach(fmt.Sprintf("line %d (%s) came after the suite's end", l.Seq, l.Event))
		return
	case l.Event == verdict.BeginEvent && v.began:
		v.breach(fmt.Sprintf("line %d began the suite a second time", l.Seq))
		return
	case l.Event != verdict.BeginEvent && !v.began:
		v.breach(fmt.Sprintf("line %d (%s) came before the suite began", l.Seq, l.Event))
		return
	}
	switch l.Event {
	case verdict.BeginEvent:
		v.began = true
	case verdict.FailureEvent:
		var f suite.Failure
		if err := json.Unmarshal(l.Failure, &f); err != nil {
			v.breach(fmt.Sprintf("line %d carried a failure that is not one", l.Seq))
			return
		}
		if len(v.failures[l.Check]) < 16 {
			v.failures[l.Check] = append(v.failures[l.Check], f)
		}
	case verdict.VerdictEvent:
		if _, twice := v.passed[l.Check]; twice {
			v.breach(fmt.Sprintf("line %d gave check %q a second verdict", l.Seq, l.Check))
			v.passed[l.Check] = false
			return
		}
		v.passed[l.Check] = l.Passed
	case verdict.EndEvent:
		v.ended = true
	default:
		v.breach(fmt.Sprintf("line %d told of an event the suite does not write (%q)", l.Seq, l.Event))
	}
}

// readLineCapped reads one line without its newline, keeping at most max
// bytes of it and counting the rest: linear in the line's length, however
// long it is.
func readLineCapped(br *bufio.Reader, max int) ([]byte, int64, error) {
	var (
		line []byte
		cut  int64
	)
	for {
		chunk, err := br.ReadSlice('\n')
		if room := max - len(line); room > 0 {
			keep := chunk
			if len(keep) > room {
				keep = keep[:room]
			}
			line = append(line, keep...)
			cut += int64(len(chunk) - len(keep))
		} else {
			cut += int64(len(chunk))
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		} else if cut > 0 && len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			cut--
		}
		return line, cut, err
	}
}
