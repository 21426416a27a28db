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
// (package verdict): the only source of a check's pass or failure. Whatever
// else arrived there is kept as forged: the suite writes only well-formed
// lines carrying the run's nonce.
type verdicts struct {
	nonce    string
	began    bool
	ended    bool
	passed   map[string]bool // check → its verdict, once given
	failures map[string][]suite.Failure
	forged   []string // what arrived on the channel that the suite did not write (a few, cut short)
	nForged  int
}

func newVerdicts(nonce string) *verdicts {
	return &verdicts{nonce: nonce, passed: map[string]bool{}, failures: map[string][]suite.Failure{}}
}

// maxVerdictLine bounds one line of the channel: a failure with its
// timeline is some tens of kilobytes.
const maxVerdictLine = 8 << 20

// read consumes the channel until it ends.
func (v *verdicts) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, cut, err := readLineCapped(br, maxVerdictLine)
		if len(line) > 0 || cut > 0 {
			if cut > 0 {
				v.forge(fmt.Sprintf("a line of %d bytes, longer than any the suite writes", int64(len(line))+cut))
			} else {
				v.line(line)
			}
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

func (v *verdicts) line(line []byte) {
	var l verdict.Line
	if err := json.Unmarshal(line, &l); err != nil || l.Nonce != v.nonce {
		v.forge(fmt.Sprintf("%q", line))
		return
	}
	switch l.Event {
	case verdict.BeginEvent:
		v.began = true
	case verdict.FailureEvent:
		var f suite.Failure
		if err := json.Unmarshal(l.Failure, &f); err != nil {
			v.forge(fmt.Sprintf("%q", line))
			return
		}
		if len(v.failures[l.Check]) < 16 {
			v.failures[l.Check] = append(v.failures[l.Check], f)
		}
	case verdict.VerdictEvent:
		if _, twice := v.passed[l.Check]; twice {
			v.forge(fmt.Sprintf("a second verdict on check %q", l.Check))
			v.passed[l.Check] = false
			return
		}
		v.passed[l.Check] = l.Passed
	case verdict.EndEvent:
		v.ended = true
	default:
		v.forge(fmt.Sprintf("%q", line))
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
