package ex10suite

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/suites/ex08suite"
)

// The judges here tell a failure by what the leader did: a refusal decided
// against a tail no majority held, entries never sent again after an Append
// was lost, a restarted leader that never sent its followers what they
// lacked, one Append at a time. Each reads the servers' disks or the
// world's trace of messages, and comes ahead of the generic verdict that
// would see only the symptom.

// agreed is the log a majority of the servers' disks hold at this instant,
// entry for entry: the longest prefix of the longest log whose every entry
// a majority holds at its position.
func (w *world) agreed() []ex08suite.Entry {
	var logs [][]ex08suite.Entry
	var longest []ex08suite.Entry
	for _, id := range w.Servers {
		l := w.disks.Log(id)
		logs = append(logs, l)
		if len(l) > len(longest) {
			longest = l
		}
	}
	for i, e := range longest {
		held := 0
		for _, l := range logs {
			if i < len(l) && l[i].Index == e.Index && l[i].Event.Type == e.Event.Type && l[i].Event.Object == e.Event.Object {
				held++
			}
		}
		if held < len(w.Servers)/2+1 {
			return longest[:i]
		}
	}
	return longest
}

// refusal is a definite no a client heard that the agreed log does not
// bear out.
type refusal struct {
	client, what string
	err          error
	sent, at     time.Duration
	agreed       int64            // the agreed log's length then
	found        string           // what the agreed log held of the key then
	tail         *ex08suite.Entry // the first entry past the agreed log, on the leader's disk, that touches the key
	tailHeld     []string
}

// refused judges a definite no, the instant the client hears it: it must be
// true of the log a majority holds. A create refused AlreadyExists needs
// the key there; an update or delete refused NotFound needs it absent; a
// precondition refused Conflict needs the key at another version.
func (c writer) refused(start time.Duration, what, key string, create bool, rv int64, err error) {
	w := c.w
	if err == nil || w.refusal != nil {
		return
	}
	// The log held at least every entry acknowledged before the call: a key
	// whose last agreed change is one of those stood as it is all the while.
	// A Conflict on a key acknowledged changed past the version named is
	// true without a look at the disks.
	var before, past int64
	for _, a := range w.acks {
		if a.at <= start {
			before = max(before, a.index)
		}
		if a.key == key {
			past = max(past, a.index)
		}
	}
	if errors.Is(err, kube.ErrConflict) && past > rv {
		return
	}
	agreed := w.agreed()
	var obj *kube.Object
	var last int64 // the key's last change in the agreed log
	for _, e := range agreed {
		if e.Event.Object.Key() == key {
			o := e.Event.Object
			obj, last = &o, e.Index
			if e.Event.Type == kube.Deleted {
				obj = nil
			}
		}
	}
	var untrue bool
	switch {
	case errors.Is(err, kube.ErrAlreadyExists):
		untrue = create && obj == nil && last <= before
	case errors.Is(err, kube.ErrNotFound):
		untrue = obj != nil && last <= before
	case errors.Is(err, kube.ErrConflict):
		untrue = obj != nil && rv != 0 && obj.ResourceVersion == rv // versions only grow: it was at rv all the while
	}
	if !untrue {
		return
	}
	r := &refusal{client: string(c.p.Node()), what: what, err: err, sent: start, at: c.p.Now(), agreed: int64(len(agreed)), found: "no " + key}
	if obj != nil {
		r.found = fmt.Sprintf("%s at rv=%d", key, obj.ResourceVersion)
	}
	for _, e := range w.disks.Log(leader)[len(agreed):] {
		if e.Event.Object.Key() == key {
			r.tail = &e
			r.tailHeld = w.disks.Holders(e.Index, key, e.Event.Type == kube.Deleted, e.Event.Object.Replicas)
			break
		}
	}
	w.refusal = r
}

// refusedEarly is the first definite no that the agreed log did not bear
// out: the leader decided it against entries no majority held yet.
func refusedEarly(w *world) *suite.Failure {
	r := w.refusal
	if r == nil {
		return nil
	}
	var se kube.StatusError
	errors.As(r.err, &se)
	against := "against entries no majority held yet (not even on the leader's disk)"
	if r.tail != nil {
		against = fmt.Sprintf("against log entry %d (%s %s), which only %s held on disk", r.tail.Index, r.tail.Event.Type, r.tail.Event.Object.Key(), strings.Join(r.tailHeld, " and "))
	}
	return &suite.Failure{Name: "refused-before-agreement", Clause: course.AgreementFirst, At: r.at,
		Story: fmt.Sprintf("the leader answered %s's %s (sent at %s) %s at %s, but the log a majority held on disk then (entries 1–%d) has %s, "+
			"where that answer is not true: the leader decided it %s, a tail that a crash of the leader could still take back. "+
			"A refusal, like a yes, is an answer about the log: it waits until the log it was decided against is agreed",
			r.client, r.what, suite.FormatTime(r.sent), se.Reason, suite.FormatTime(r.at), r.agreed, r.found, against)}
}

// appendSent is one of the leader's Appends with entries to a follower, as
// the trace tells it: when it was sent, the Append itself, and whether an
// answer came back.
type appendSent struct {
	at       time.Duration
	msg      appendMsg
	answered bool
	lost     string // "lost", "partitioned", "timed out": why no answer came
}

// appendsTo lists the leader's Appends with entries to f, in order, and the
// most it had on their way to f at once.
func (w *world) appendsTo(f sim.NodeID) (out []appendSent, most int) {
	var open []int // indexes into out of the Appends not yet answered, in order
	for _, e := range w.W.Trace().Events() {
		switch {
		case e.Kind == sim.EvCrash && e.Node == leader:
			for _, i := range open {
				out[i].lost = "the leader crashed"
			}
			open = nil
		case e.Kind == sim.EvSend && e.Node == leader && e.Peer == f:
			if a, ok := readAppend(e.Msg); ok && !a.heartbeat() {
				out = append(out, appendSent{at: e.At, msg: a})
				open = append(open, len(out)-1)
				most = max(most, len(open))
			}
		case e.Kind == sim.EvRecvReply && e.Node == leader && e.Peer == f && len(open) > 0:
			out[open[0]].answered = e.Err == nil
			if e.Err != nil {
				out[open[0]].lost = e.Err.Error()
			}
			open = open[1:]
		case e.Kind == sim.EvTimeout && e.Node == leader && e.Peer == f:
			if a, ok := readAppend(e.Msg); ok && !a.heartbeat() && len(open) > 0 {
				out[open[0]].lost = "no answer within its timeout"
				open = open[1:]
			}
		}
	}
	return out, most
}

// neverResent is a follower whose disk lacks, at the audit, an entry the
// one history holds, when the leader sent it that entry, got no answer, and
// never sent it again.
func neverResent(w *world) *suite.Failure {
	if !w.Audited {
		return nil
	}
	final := w.Longest()
	for _, f := range w.Servers[1:] {
		held := int64(len(w.disks.Log(f)))
		if held >= int64(len(final)) {
			continue
		}
		missing := held + 1
		sends, _ := w.appendsTo(f)
		var last *appendSent
		for i := range sends {
			if s := sends[i].msg; s.from <= missing && missing <= s.to {
				last = &sends[i]
			}
		}
		if last == nil || last.answered {
			continue
		}
		why := last.lost
		if why == "" {
			why = "no answer"
		}
		c := final[missing-1]
		return &suite.Failure{Name: "append-never-resent", Clause: course.DurableAgreement, At: w.AuditedAt,
			Story: fmt.Sprintf("the leader sent %s entry %d (%s=%v) at %s, in an Append of %s, which came to nothing (%s), and never sent it again: "+
				"at the audit, %s after, %s's disk holds entries 1–%d of the history's %d. An Append that gets no answer may have been lost: "+
				"the leader sends again from what the follower surely holds, or the follower never catches up",
				f, missing, c.Key, describeChange(c.Value, c.Deleted), suite.FormatTime(last.at), last.msg.entries(), why,
				suite.FormatTime(w.AuditedAt-last.at), f, held, len(final)),
			Details: "faults:\n" + w.Describe()}
	}
	return nil
}

// entriesUpTo names the first n entries of a log: "nothing", "entry 1",
// "entries 1–7".
func entriesUpTo(n int) string {
	switch n {
	case 0:
		return "nothing"
	case 1:
		return "entry 1"
	}
	return fmt.Sprintf("entries 1–%d", n)
}

func describeChange(v any, deleted bool) string {
	if deleted {
		return "deleted"
	}
	return fmt.Sprint(v)
}

// notResentAfterRestart is an acknowledged write that a majority of the
// disks still hold at the audit, and that the one history lacks, after the
// leader restarted and sent no follower the entries it lacked: held, yet
// never committed again.
func notResentAfterRestart(w *world) *suite.Failure {
	if !w.Audited {
		return nil
	}
	var restart time.Duration = -1
	for _, f := range w.Faults {
		if f.Kind == sim.FaultCrash && f.Touches(leader) {
			restart = f.End
		}
	}
	if restart < 0 {
		return nil
	}
	final := w.Longest()
	for _, a := range w.acks {
		if a.index <= int64(len(final)) || a.at > restart {
			continue
		}
		e := w.disks.At(leader, a.index)
		if e == nil {
			continue
		}
		holders := w.disks.Holders(a.index, e.Event.Object.Key(), e.Event.Type == kube.Deleted, e.Event.Object.Replicas)
		if len(holders) < len(w.Servers)/2+1 {
			continue // not held by a majority: lost, durable's to tell
		}
		var sent []string
		for _, f := range w.Servers[1:] {
			sends, _ := w.appendsTo(f)
			first := "nothing"
			for _, s := range sends {
				if s.at >= restart {
					first = fmt.Sprintf("entries from %d on", s.msg.from)
					break
				}
			}
			sent = append(sent, fmt.Sprintf("%s (holding %s) %s", f, entriesUpTo(len(w.disks.Log(f))), first))
		}
		return &suite.Failure{Name: "not-resent-after-restart", Clause: course.DurableAgreement, At: w.AuditedAt,
			Story: fmt.Sprintf("%s heard yes for %s (log entry %d) at %s; the leader crashed and came back at %s with it on disk, and %s hold it on disk still, "+
				"yet the one history the servers serve at the audit holds %s and not it. Since it came back, the leader sent %s: "+
				"never the entries its followers lacked or held, so it never learned that a majority holds entry %d, and never committed it again. "+
				"A restarted leader knows nothing of what its followers hold: it sends from what each holds, and learns it from their answers",
				a.client, a.what, a.index, suite.FormatTime(a.at), suite.FormatTime(restart), strings.Join(holders, " and "),
				entriesUpTo(len(final)), strings.Join(sent, "; "), a.index),
			Details: w.disks.Around(a.index) + "\nfaults:\n" + w.Describe()}
	}
	return nil
}
