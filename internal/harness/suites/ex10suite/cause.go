package ex10suite

import (
	"errors"
	"fmt"
	"reflect"
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
// lacked, a follower the leader stopped telling the commit, an Append that
// left entries out, one Append at a time. Each reads the servers' disks or the
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
	key          string // the object it wrote
	err          error
	sent, at     time.Duration
	agreed       int64            // the agreed log's length then
	found        string           // what the agreed log held of the key then
	tail         *ex08suite.Entry // the first entry past the agreed log, on the leader's disk, that touches the key
	tailHeld     []string
	// unwritten: no entry past the agreed log on the leader's disk, synced
	// or not, touches the key, though the disk holds the agreed log.
	unwritten bool
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
	r := &refusal{client: string(c.p.Node()), what: what, key: key, err: err, sent: start, at: c.p.Now(), agreed: int64(len(agreed)), found: "no " + key}
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
	if r.tail == nil {
		written, _ := w.disks.WrittenLog(leader)
		r.unwritten = true
		for _, e := range written[min(len(agreed), len(written)):] {
			if e.Event.Object.Key() == key {
				r.unwritten = false
			}
		}
		r.unwritten = r.unwritten && len(written) >= len(agreed)
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
	why := fmt.Sprintf("the leader decided it %s, a tail that a crash of the leader could still take back. "+
		"A refusal, like a yes, is an answer about the log: it waits until the log it was decided against is agreed", against)
	if r.unwritten {
		why = fmt.Sprintf("the leader decided it against a history that is not its log's: its disk holds the agreed log, and past it no entry, synced or not, touches %s, "+
			"so the answer came from a history that lacks entries the log holds (after a restart, the ones it recovered) or has ones the log has not written yet. "+
			"A leader decides every write against its whole log, and a refusal waits until that log is agreed", r.key)
	}
	return &suite.Failure{Name: "refused-before-agreement", Clause: course.AgreementFirst, At: r.at,
		Story: fmt.Sprintf("the leader answered %s's %s (sent at %s) %s at %s, but the log a majority held on disk then (entries 1–%d) has %s, "+
			"where that answer is not true: %s",
			r.client, r.what, suite.FormatTime(r.sent), se.Reason, suite.FormatTime(r.at), r.agreed, r.found, why)}
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

// commitNotPassedOn is a follower that holds on its disk, at the audit,
// entries the one history holds, but has not applied them because the
// leader stopped telling it the commit: since the follower last came up, no
// message of the leader's that reached it said those entries were
// committed. The story names the leader's last message that did say so to
// that follower, what became of it, and what the leader sent it after.
func commitNotPassedOn(w *world) *suite.Failure {
	if !w.Audited {
		return nil
	}
	final := int64(len(w.Longest()))
	events := w.W.Trace().Events()
	for _, f := range w.Servers[1:] {
		h, audited := w.Histories[string(f)]
		applied, held := int64(len(h)), int64(len(w.disks.Log(f)))
		if !audited || applied >= final || held <= applied {
			continue
		}
		// What f was told since it last came up, and the leader's last
		// message to f that told it more than it applied.
		var up time.Duration = -1
		var told int64
		tell, later := -1, 0
		for i, e := range events {
			switch {
			case e.At > w.AuditedAt:
			case e.Kind == sim.EvRestart && e.Node == f:
				up, told = e.At, 0
			case e.Kind == sim.EvRecv && e.Node == f && e.Peer == leader:
				if a, ok := readAppend(e.Msg); ok {
					told = max(told, a.commit)
				}
			case e.Kind == sim.EvSend && e.Node == leader && e.Peer == f:
				if a, ok := readAppend(e.Msg); ok {
					later++
					if a.commit > applied {
						tell, later = i, 0
					}
				}
			}
		}
		if told > applied {
			continue // it was told, and did not apply: not the leader's silence
		}
		missing := fmt.Sprintf("entries %d–%d", applied+1, min(held, final))
		if applied+1 == min(held, final) {
			missing = fmt.Sprintf("entry %d", applied+1)
		}
		stopped := fmt.Sprintf("the leader never told %s that the log was committed past entry %d", f, applied)
		if tell >= 0 {
			e := events[tell]
			a, _ := readAppend(e.Msg)
			stopped = fmt.Sprintf("the leader last told %s the commit at %s (commit %d, in %s; %s)",
				f, suite.FormatTime(e.At), a.commit, describeAppend(a), w.fate(events, tell, up))
		}
		after := fmt.Sprintf("and sent it nothing from then to the audit at %s", suite.FormatTime(w.AuditedAt))
		if later > 0 {
			after = fmt.Sprintf("and from then to the audit at %s sent it %d messages, none saying the log was committed past entry %d",
				suite.FormatTime(w.AuditedAt), later, applied)
		}
		back := ""
		if up >= 0 {
			back = fmt.Sprintf(", up again since %s,", suite.FormatTime(up))
		}
		return &suite.Failure{Name: "commit-not-passed-on", Clause: course.DurableAgreement, At: w.AuditedAt,
			Story: fmt.Sprintf("%s, %s: %s%s holds %s on its disk but has applied %s, so it serves %d of the history's %d changes: "+
				"it never learned that %s %s committed. A follower applies only what it hears is committed, and any one message may be lost "+
				"or arrive while it is down: the leader tells every follower the commit again and again, heartbeat after heartbeat, not only when it moves",
				stopped, after, f, back, entriesUpTo(int(held)), appliedOnly(applied), applied, final, missing, isAre(applied+1 == min(held, final))),
			Details: "faults:\n" + w.Describe()}
	}
	return nil
}

// describeAppend says what an Append carried: "an Append with no entries",
// "an Append of entries 5–7".
func describeAppend(a appendMsg) string {
	if a.heartbeat() {
		return "an Append with no entries"
	}
	return "an Append of " + a.entries()
}

// appliedOnly names what a follower applied of its log: "nothing", "only
// entries 1–4".
func appliedOnly(n int64) string {
	if n == 0 {
		return "nothing"
	}
	return "only " + entriesUpTo(int(n))
}

func isAre(one bool) string {
	if one {
		return "was"
	}
	return "were"
}

// fate is what became of the message the leader sent at events[i] to its
// peer, which came up last at up (-1: never went down): lost or cut off on
// its way, arrived before the peer's crash and so forgotten, or arrived
// while it was down.
func (w *world) fate(events []sim.Event, i int, up time.Duration) string {
	sent := events[i]
	for _, e := range events[i+1:] {
		switch {
		case e.Kind == sim.EvDrop && e.Node == sent.Node && e.Peer == sent.Peer && e.At == sent.At && reflect.DeepEqual(e.Msg, sent.Msg):
			if e.Text == "lost" {
				return "lost on the link"
			}
			return fmt.Sprintf("dropped: %s was cut off", sent.Peer)
		case e.Kind == sim.EvDrop && e.Node == sent.Peer && e.Peer == sent.Node && reflect.DeepEqual(e.Msg, sent.Msg):
			return fmt.Sprintf("dropped on its way at %s: %s was cut off", suite.FormatTime(e.At), sent.Peer)
		case e.Kind == sim.EvRecv && e.Node == sent.Peer && e.Peer == sent.Node && reflect.DeepEqual(e.Msg, sent.Msg):
			if up > e.At {
				return fmt.Sprintf("it arrived at %s, before %s crashed and came back with nothing applied", suite.FormatTime(e.At), sent.Peer)
			}
			return fmt.Sprintf("it arrived at %s", suite.FormatTime(e.At))
		}
	}
	return fmt.Sprintf("%s was down when it arrived", sent.Peer)
}

// skipped is the first Append that left entries out: it carried entries
// past ones the leader had never sent that follower (since the leader last
// came up; a restarted leader may start wherever it likes, and learn what
// each follower holds from its answer). A follower takes entries only in
// order: past a gap it waits, then answers what it holds, and every write
// behind the gap waits a round trip more, or for good when nothing follows.
func skipped(w *world) *suite.Failure {
	events := w.W.Trace().Events()
	for _, f := range w.Servers[1:] {
		var sentTo int64 // the last entry sent to f since the leader came up; -1: none since a restart
		for i, e := range events {
			switch {
			case e.Kind == sim.EvRestart && e.Node == leader:
				sentTo = -1
			case e.Kind == sim.EvSend && e.Node == leader && e.Peer == f:
				a, ok := readAppend(e.Msg)
				if !ok || a.heartbeat() {
					continue
				}
				if sentTo >= 0 && a.from > sentTo+1 {
					return w.leftOut(events, i, f, a, sentTo)
				}
				sentTo = max(sentTo, a.to)
			}
		}
	}
	return nil
}

// leftOut tells the Append at events[i] to f, which left out the entries
// after sentTo.
func (w *world) leftOut(events []sim.Event, i int, f sim.NodeID, a appendMsg, sentTo int64) *suite.Failure {
	gap := appendMsg{from: sentTo + 1, to: a.from - 1}
	what := gap.entries()
	if e := w.disks.At(leader, gap.from); e != nil && gap.from == gap.to {
		what += fmt.Sprintf(" (%s %s)", e.Event.Type, e.Event.Object.Key())
	}
	later := fmt.Sprintf("and never sent %s %d at all", f, gap.from)
	for _, e := range events[i+1:] {
		if b, ok := readAppend(e.Msg); ok && e.Kind == sim.EvSend && e.Node == leader && e.Peer == f && !b.heartbeat() && b.from <= gap.from && gap.from <= b.to {
			later = fmt.Sprintf("and sent %s entry %d only at %s, %s later", f, gap.from, suite.FormatTime(e.At), suite.FormatTime(e.At-events[i].At))
			break
		}
	}
	return &suite.Failure{Name: "entries-left-out", Clause: course.AgreementFirst, At: events[i].At,
		Story: fmt.Sprintf("the leader sent %s an Append of %s at %s when the last entry it had sent %s was %d: it left out %s, %s. "+
			"A follower takes entries only in order: past a gap it waits, then answers what it holds, and every write behind the gap waits "+
			"a round trip more, or for good when nothing follows. Each Append carries everything from the first entry the follower has not been sent",
			f, a.entries(), suite.FormatTime(events[i].At), f, sentTo, what, later),
		Details: w.Describe()}
}
