package ex10suite

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// outOfOrder is what the given log (log.go) panics with when it is asked to
// append an entry that does not follow on from its last.
const outOfOrder = "log: entry out of order"

// ran is the first judge of every check: a world that could not run to its
// end (scene.Ran). A world that stopped because the given log's own guard
// panicked on a follower is told as the breach that guard exists to catch,
// by its cause (pastAGap, appendedTwice): the panic is its evidence, not a
// run error.
func ran(w *world) *suite.Failure {
	if f := pastAGap(w); f != nil {
		return f
	}
	if f := appendedTwice(w); f != nil {
		return f
	}
	return scene.Ran(w.Scene)
}

// pastAGap is a follower that took an Append whose entries did not follow
// on from its log: it lacked the entries before them, and went ahead
// anyway, so the given log refused the first (it panics: an entry out of
// order). The story says which follower, which Append (sent when, arrived
// when), what its log held and so lacked, and what became of the Append
// that carried the missing entry; nil if the world did not stop so.
func pastAGap(w *world) *suite.Failure {
	var pe *sim.PanicError
	if !errors.As(w.Err, &pe) || !strings.Contains(fmt.Sprint(pe.Value), outOfOrder) {
		return nil
	}
	node, _, _ := strings.Cut(pe.Proc, "/")
	f := sim.NodeID(node)
	if f == leader || !w.IsServer(f) {
		return nil
	}
	written, _ := w.disks.WrittenLog(f)
	held := int64(len(written)) // the entries f's log holds, synced or not
	events := w.W.Trace().Events()
	// the Append f took last before the panic that skipped past its log
	took, a, sent := lastAppendTaken(events, pe.At, leader, f, func(a appendMsg) bool { return a.from > held+1 })
	if took < 0 {
		return nil
	}
	lacked := appendMsg{from: held + 1, to: a.from - 1}
	carried := fmt.Sprintf("the leader had not sent %s %s before", f, lacked.entries())
	for i := took - 1; i >= 0; i-- {
		e := events[i]
		if b, ok := readAppend(e.Msg); ok && e.Kind == sim.EvSend && e.Node == leader && e.Peer == f && !b.heartbeat() && b.from <= held+1 && held+1 <= b.to {
			carried = fmt.Sprintf("entry %d went in the leader's Append of %s at %s: %s", held+1, b.entries(), suite.FormatTime(e.At), w.fate(events, i, -1))
			break
		}
	}
	return &suite.Failure{Name: "appended-past-a-gap", Clause: course.DurableAgreement, At: pe.At,
		Story: fmt.Sprintf("%s took an Append of %s that arrived at %s%s, while its log held %s: it lacked %s, and went ahead, so the log it was given "+
			"refused entry %d at %s (log.go panicked: %s). %s. A follower takes entries only in order: past a gap its log would hold entry %d "+
			"right after entry %d, and no longer be a prefix of the leader's; it waits a moment for the gap to fill, then takes nothing and answers what it holds, "+
			"and the leader sends again from there",
			f, a.entries(), suite.FormatTime(events[took].At), sent, entriesUpTo(int(held)), lacked.entries(), a.from, suite.FormatTime(pe.At), outOfOrder,
			suite.UpperFirst(carried), a.from, held),
		Details: "faults:\n" + w.Describe() + "\n\nthe panic that stopped the world:\n" + pe.Stack}
}

// guardPanic is the given log's own guard panicking on a follower, which
// stopped the world: the panic, and the follower; nil if the world did not
// stop so.
func guardPanic(w *world) (*sim.PanicError, sim.NodeID) {
	var pe *sim.PanicError
	if !errors.As(w.Err, &pe) || !strings.Contains(fmt.Sprint(pe.Value), outOfOrder) {
		return nil, ""
	}
	node, _, _ := strings.Cut(pe.Proc, "/")
	f := sim.NodeID(node)
	if f == leader || !w.IsServer(f) {
		return nil, ""
	}
	return pe, f
}

// appendedTwice is a follower that took an Append carrying entries its log
// already held, and appended one of them again, so the given log refused
// it (it panics: an entry out of order). An Append sent again, after a
// lost answer or a timeout, carries entries the follower may hold already:
// it takes only those that follow on from its log. The story says which
// follower, which Append (sent when, arrived when), and what its log held;
// nil if the world did not stop so.
func appendedTwice(w *world) *suite.Failure {
	pe, f := guardPanic(w)
	if pe == nil {
		return nil
	}
	written, _ := w.disks.WrittenLog(f)
	held, durable := int64(len(written)), len(w.disks.Log(f))
	events := w.W.Trace().Events()
	// the Append f took last before the panic that carried entries its log held
	took, a, sent := lastAppendTaken(events, pe.At, leader, f, func(a appendMsg) bool { return a.from <= held })
	if took < 0 {
		return nil
	}
	twice := appendMsg{from: a.from, to: min(a.to, held)}
	return &suite.Failure{Name: "appended-twice", Clause: course.DurableAgreement, At: pe.At,
		Story: fmt.Sprintf("%s took an Append of %s that arrived at %s%s, while its log held %s (%d of them synced): it appended again %s, which its log already held, "+
			"so the log it was given refused it at %s (log.go panicked: %s). An Append sent again, after a lost answer or a timeout, carries entries a follower may hold already: "+
			"it takes only those that follow on from its log, and answers what it holds",
			f, a.entries(), suite.FormatTime(events[took].At), sent, entriesUpTo(int(held)), durable, twice.entries(), suite.FormatTime(pe.At), outOfOrder),
		Details: "faults:\n" + w.Describe() + "\n\nthe panic that stopped the world:\n" + pe.Stack}
}

// lastAppendTaken finds the last Append, not a heartbeat, that follower f
// received from leader by the instant until and that matches: its index in
// events (-1 if none), the Append, and " (sent at 80ms)" when the leader's
// send of it is in the trace.
func lastAppendTaken(events []sim.Event, until time.Duration, leader, f sim.NodeID, match func(appendMsg) bool) (int, appendMsg, string) {
	took := -1
	for i, e := range events {
		if e.At > until {
			break
		}
		if a, ok := readAppend(e.Msg); ok && e.Kind == sim.EvRecv && e.Node == f && e.Peer == leader && !a.heartbeat() && match(a) {
			took = i
		}
	}
	if took < 0 {
		return -1, appendMsg{}, ""
	}
	a, _ := readAppend(events[took].Msg)
	for i := took - 1; i >= 0; i-- {
		if e := events[i]; e.Kind == sim.EvSend && e.Node == leader && e.Peer == f && reflect.DeepEqual(e.Msg, events[took].Msg) {
			return took, a, fmt.Sprintf(" (sent at %s)", suite.FormatTime(e.At))
		}
	}
	return took, a, ""
}
