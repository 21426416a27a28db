package ex10suite

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// stalled tells a burst whose writes were not all acknowledged, with every
// server up and connected, by what the leader did with the first entry of
// its log that no client heard yes for: it never synced it nor sent it to a
// follower, nothing set its syncer and senders going
// (entry-left-in-the-log); it synced it and never sent it
// (entry-never-sent); or every Append that carried it was given up before a
// round trip could bring its answer (append-given-up-too-soon). Ahead of missing, which sees only
// that writes went unanswered; nil when the leader did none of those.
func stalled(w *world) *suite.Failure {
	if len(w.missing) == 0 && w.done == w.clients {
		return nil
	}
	acked := map[int64]bool{}
	for _, a := range w.acks {
		acked[a.index] = true
	}
	var n int64
	var entry *kube.Event
	written, _ := w.disks.WrittenLog(leader)
	for _, e := range written {
		if !acked[e.Index] {
			n, entry = e.Index, &e.Event
			break
		}
	}
	if entry == nil {
		return nil // the leader never appended an unacknowledged write: missing tells it
	}
	change := fmt.Sprintf("entry %d (scale %s to %d)", n, entry.Object.Key(), entry.Object.Replicas)
	switch entry.Type {
	case kube.Added:
		change = fmt.Sprintf("entry %d (create %s=%d)", n, entry.Object.Key(), entry.Object.Replicas)
	case kube.Deleted:
		change = fmt.Sprintf("entry %d (delete %s)", n, entry.Object.Key())
	}
	unanswered := fmt.Sprintf("only %d of %d writes were acknowledged, with every server up and connected", len(w.acks), w.clients*w.writes)
	if len(w.missing) > 0 {
		unanswered += fmt.Sprintf(" (the first not: %s)", w.missing[0])
	}
	synced := w.disks.At(leader, n) != nil
	var carried []appendSent // the Appends that carried entry n, to any follower
	var to []sim.NodeID      // the follower each went to
	for _, f := range w.Servers[1:] {
		sends, _ := w.appendsTo(f)
		for _, s := range sends {
			if s.msg.from <= n && n <= s.msg.to {
				carried = append(carried, s)
				to = append(to, f)
			}
		}
	}
	var name, story string
	switch {
	case !synced && len(carried) == 0:
		name = "entry-left-in-the-log"
		story = fmt.Sprintf("the leader appended %s to its log and, to the end of the run at %s, neither synced it to its own disk nor sent it to a follower: "+
			"%s. Appending an entry must set going whatever syncs the log and sends it on; a write that appends and waits for a commit nothing will bring waits for good",
			change, suite.FormatTime(w.W.Now()), unanswered)
	case len(carried) == 0:
		name = "entry-never-sent"
		story = fmt.Sprintf("the leader appended %s to its log and synced it to its own disk, and to the end of the run at %s never sent it to a follower: "+
			"%s. An entry synced on the leader must be sent on; a write waits for a majority that never hears of it",
			change, suite.FormatTime(w.W.Now()), unanswered)
	default:
		timedOut := 0
		for _, s := range carried {
			switch {
			case s.answered:
				return nil
			case s.lost == "no answer within its timeout":
				timedOut++
			case s.lost != "": // lost or refused: not the leader's timeout
				return nil
			}
		}
		if timedOut == 0 {
			return nil
		}
		first := carried[0]
		name = "append-given-up-too-soon"
		gaveUp, answer := w.gaveUp(to[0], first)
		late := ""
		if answer > 0 {
			late = fmt.Sprintf("; %s sent its answer at %s, %s after the Append left, to a leader that had stopped waiting for it", to[0], suite.FormatTime(answer), suite.FormatTime(answer-first.at))
		}
		story = fmt.Sprintf("the leader sent %s to %s in an Append of %s at %s and gave up waiting for the answer at %s, %s later, "+
			"while a round trip between servers takes up to %s%s. Of the %d Appends that carried entry %d, to %s, none was answered in time: %d were given up so, the rest still out when the run ended: "+
			"%s. An Append's timeout must outlast a round trip, or no answer ever counts and no write is agreed",
			change, to[0], first.msg.entries(), suite.FormatTime(first.at), suite.FormatTime(gaveUp), suite.FormatTime(gaveUp-first.at),
			suite.FormatTime(2*w.link.Max), late, len(carried), n, names(slices.Compact(slices.Sorted(slices.Values(to)))), timedOut, unanswered)
	}
	return &suite.Failure{Name: name, Clause: course.AgreementFirst, At: w.W.Now(), Story: story,
		Details: strings.Join(w.missing, "\n")}
}

// gaveUp is when the leader gave up on Append s to f (its call timed out)
// and when f's first answer after the Append arrived there left f (0: none
// did), read off the trace.
func (w *world) gaveUp(f sim.NodeID, s appendSent) (gaveUp, answer time.Duration) {
	arrived := false
	for _, e := range w.W.Trace().Events() {
		if e.At < s.at {
			continue
		}
		a, isAppend := readAppend(e.Msg)
		switch {
		case e.Kind == sim.EvTimeout && e.Node == leader && e.Peer == f && isAppend && a == s.msg && gaveUp == 0:
			gaveUp = e.At
		case e.Kind == sim.EvRecv && e.Node == f && e.Peer == leader && isAppend && a == s.msg:
			arrived = true
		case e.Kind == sim.EvReply && e.Node == f && e.Peer == leader && arrived && answer == 0:
			answer = e.At
		}
		if gaveUp > 0 && answer > 0 {
			break
		}
	}
	return gaveUp, answer
}

// names joins servers' names: "server-2 and server-3".
func names(ids []sim.NodeID) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return strings.Join(out, " and ")
}
