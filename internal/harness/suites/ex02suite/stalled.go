package ex02suite

import (
	"fmt"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/suite"
)

// An apiserver that is up owes every request an answer. A crash is an
// honest silence: the request is refused, or its caller times out knowing
// the node went away. But a request that times out while the apiserver was
// up from the moment it was sent to the moment its caller gave up heard
// neither yes nor no from a running cluster: its write path is stuck, most
// often behind a lock that a return left held. The links of every check
// deliver every message within a few milliseconds, far inside the callers'
// timeouts, so nothing else explains the silence.

// stalledRequest is the first request that timed out while the apiserver
// was up throughout, and how many more did in the same incarnation after
// it.
func (c *cluster) stalledRequest() (op check.Operation, more int, ok bool) {
	crashes := c.j.crashes()
	upThroughout := func(from, to time.Duration) bool {
		for _, x := range crashes {
			if x.at <= to && (x.restart == 0 || x.restart >= from) {
				return false
			}
		}
		return true
	}
	for _, o := range c.History.Operations() {
		if o.Result.Outcome != check.Indefinite || !upThroughout(o.Call, o.Return) {
			continue
		}
		if !ok {
			op, ok = o, true
			continue
		}
		if upThroughout(op.Call, o.Return) {
			more++
		}
	}
	return op, more, ok
}

// stalled: the apiserver, up all along, left no request without an answer
// until its caller gave up; the first it did is the story.
func stalled(c *cluster) *suite.Failure {
	op, more, found := c.stalledRequest()
	if !found {
		return nil
	}
	name, what := "unanswered-request", "request"
	if op.Input.Kind.Mutates() {
		name, what = "write-stalled", "write"
	}
	story := fmt.Sprintf("%s sent its %s (%s) to the apiserver at %s and gave up at %s without an answer, though the apiserver was up "+
		"and its links delivered within %s all along: a running cluster answered neither yes nor no",
		op.Client, what, op.Input, suite.FormatTime(op.Call), suite.FormatTime(op.Return), suite.FormatTime(linkMax))
	if last, ok := c.lastAnsweredWrite(op.Call); ok {
		story += fmt.Sprintf("; the last write it answered before it was %s's %s, answered %s at %s", last.Client, last.Input, last.Result.Outcome, suite.FormatTime(last.Return))
	}
	if more > 0 {
		story += fmt.Sprintf(", and %d more requests after it went unanswered too: the write path stayed shut (a lock a return left held?)", more)
	}
	return c.told(&suite.Failure{Name: name, At: op.Return, Story: story, Details: op.String() + "\n" + c.crashLines()})
}

// lastAnsweredWrite is the last write answered (ok, or a definite no such
// as not-found) before at: often the one whose return left the write path
// shut.
func (c *cluster) lastAnsweredWrite(at time.Duration) (check.Operation, bool) {
	var last check.Operation
	found := false
	for _, o := range c.History.Operations() {
		if o.Input.Kind.Mutates() && o.Completed() && o.Return <= at && (!found || o.Return >= last.Return) {
			last, found = o, true
		}
	}
	return last, found
}
