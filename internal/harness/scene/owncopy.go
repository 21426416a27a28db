package scene

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// OwnCopyRead judges the Latest reads for one answered from a server's own
// copy: a read that showed an older state of its key than an operation that
// had returned before the read was sent (its witness: an acknowledged write,
// or a read that showed the newer change), answered by a server that heard
// nothing back from any other server after the read reached it. It tells
// the cause, before porcupine tells the contradiction: which server
// answered which read, when, what it asked the others (a call that gave
// up, one refused because the other server was down, or none), under which
// faults, and which change its copy lacked; a server that answered while
// the other was down is told that it could not know its copy was the
// latest. It
// returns the failure "stale-read" of clause 1, or nil; a stale read whose
// server did hear from another (an answer it misused) is left to
// Linearizable.
//
// It reads the versions the answers carry, so it holds only where the
// servers number one history (a chapter judges that first), and the trace
// of the world: a read is known by its request's arrival at its server and
// the reply to its client.
func OwnCopyRead(s *Scene) *suite.Failure {
	ops := s.History.Operations()
	var events []sim.Event // read once, for the first stale read
	for i := range ops {
		r := &ops[i]
		if r.Input.Kind != check.KindRead || !slices.Contains(s.Servers, sim.NodeID(r.Server)) ||
			r.Result.Outcome != check.OK && r.Result.Outcome != check.NotFound {
			continue
		}
		w := newerThan(ops, r)
		if w == nil {
			continue
		}
		if events == nil {
			events = s.W.Trace().Events()
		}
		served, ok := servedAlone(events, s.Servers, r)
		if !ok {
			continue
		}
		return ownCopyFailure(s, ops, r, w, served)
	}
	return nil
}

// newerThan is the witness that read r showed an older state of its key:
// an operation that returned before r was sent and set or saw a later
// version (or, when r found nothing, the key present, no deletion of it
// having been sent in between), the earliest such version, an
// acknowledged write before a read; nil if none.
func newerThan(ops []check.Operation, r *check.Operation) *check.Operation {
	var best *check.Operation
	var bestVersion int64
	for i := range ops {
		w := &ops[i]
		if w.ID == r.ID || w.Input.Key != r.Input.Key || w.Result.Outcome != check.OK || w.Return >= r.Call {
			continue
		}
		write := w.Input.Kind.Mutates()
		v := w.Result.Version
		if v == 0 {
			continue
		}
		switch {
		case r.Result.Outcome == check.OK && r.Result.Version > 0 && v > r.Result.Version:
		case r.Result.Outcome == check.NotFound && w.Input.Kind != check.KindDelete && !deletedBetween(ops, r, w):
		default:
			continue
		}
		better := best == nil || v < bestVersion ||
			v == bestVersion && write && !best.Input.Kind.Mutates() ||
			v == bestVersion && write == best.Input.Kind.Mutates() && w.Return < best.Return
		if better {
			best, bestVersion = w, v
		}
	}
	return best
}

// deletedBetween reports whether a deletion of r's key that may have taken
// effect was sent before r was answered and answered after w was sent: a
// reason r may find nothing where w saw the key present.
func deletedBetween(ops []check.Operation, r, w *check.Operation) bool {
	return slices.ContainsFunc(ops, func(d check.Operation) bool {
		return d.Input.Key == r.Input.Key && d.Input.Kind == check.KindDelete &&
			(d.Acknowledged() || !d.Completed() || d.Indefinite()) && d.Call < r.Return && answered(d) > w.Call
	})
}

// served is how a server answered one read: when the request reached it,
// when it answered, and the calls it made to the other servers meanwhile
// (none, or each given up).
type served struct {
	arrived, answered time.Duration
	calls             []peerCall
}

// peerCall is a call a server made to another while a read waited on it.
type peerCall struct {
	to      sim.NodeID
	what    string
	sent    time.Duration
	gaveUp  time.Duration // when the call timed out, or was refused; 0: it was answered
	refused bool          // the other server was down (or served nothing): the call came back an error at once
}

// servedAlone finds in the trace how r's server answered it, and reports
// whether it did so without a word back from any other server after r
// reached it: its handler's calls to them all gave up or were refused (the
// other was down), or it made none, and no other server answered a call
// its node sent meanwhile.
func servedAlone(events []sim.Event, servers []sim.NodeID, r *check.Operation) (served, bool) {
	at, client := sim.NodeID(r.Server), sim.NodeID(r.Client)
	var sv served
	start := -1
	for i, e := range events {
		if e.At >= r.Call && e.Kind == sim.EvRecv && e.Node == at && e.Peer == client && asks(e.Msg, r.Input) {
			start, sv.arrived = i, e.At
			break
		}
	}
	if start < 0 {
		return sv, false
	}
	end, handler := -1, ""
	for i := start; i < len(events) && events[i].At <= r.Return; i++ {
		if e := events[i]; e.Kind == sim.EvReply && e.Node == at && e.Peer == client {
			end, handler, sv.answered = i, e.Proc, e.At
			break
		}
	}
	if end < 0 {
		return sv, false
	}
	sent := map[sim.NodeID]bool{} // the other servers the node sent a request to since r arrived
	for _, e := range events[start:end] {
		isPeer := e.Peer != at && slices.Contains(servers, e.Peer)
		switch {
		case e.Node != at || !isPeer:
		case e.Kind == sim.EvSend:
			sent[e.Peer] = true
			if e.Proc == handler {
				sv.calls = append(sv.calls, peerCall{to: e.Peer, what: sim.TypeName(e.Msg), sent: e.At})
			}
		case e.Kind == sim.EvTimeout && e.Proc == handler && len(sv.calls) > 0:
			sv.calls[len(sv.calls)-1].gaveUp = e.At
		case e.Kind == sim.EvRecvReply && sent[e.Peer] && e.Err == nil:
			return sv, false
		case e.Kind == sim.EvRecvReply && sent[e.Peer]:
			// Refused: the other server was down. The reply names no
			// process; it answers the handler's last open call to it.
			for i := len(sv.calls) - 1; i >= 0; i-- {
				if c := &sv.calls[i]; c.to == e.Peer && c.gaveUp == 0 {
					c.gaveUp, c.refused = e.At, true
					break
				}
			}
		}
	}
	for _, c := range sv.calls {
		if c.gaveUp == 0 {
			return sv, false // answered, though the reply was not seen: not alone
		}
	}
	return sv, true
}

// asks reports whether msg is the request behind read in: a get of its key,
// or a list of its kind.
func asks(msg any, in check.Input) bool {
	switch m := msg.(type) {
	case kube.GetRequest:
		return in.List == "" && m.Key == in.Key
	case kube.ListRequest:
		return in.List != "" && m.Kind == in.List
	}
	return false
}

// ownCopyFailure tells read r, answered alone as sv, against its witness w.
func ownCopyFailure(s *Scene, ops []check.Operation, r, w *check.Operation, sv served) *suite.Failure {
	server := r.Server
	var others []string
	for _, id := range s.Servers {
		if string(id) != server {
			others = append(others, string(id))
		}
	}
	other := strings.Join(others, " and ")

	read := fmt.Sprintf("%s's Latest get of %s", r.Client, r.Input.Key)
	shown := fmt.Sprintf("%s=%v (rv %d)", r.Input.Key, r.Result.Value, r.Result.Version)
	if r.Result.Outcome == check.NotFound {
		shown = "no " + r.Input.Key
	}
	if r.Input.List != "" {
		read = fmt.Sprintf("%s's Latest list of %s", r.Client, r.Input.List)
		shown = fmt.Sprintf("a list that held %s", shown)
	}
	asked := fmt.Sprintf("with no answer from %s to anything it asked", other)
	if len(sv.calls) == 0 {
		asked = fmt.Sprintf("without asking %s anything", other)
	}
	story := fmt.Sprintf("%s answered %s at %s from its own copy, %s, %s after the %s reached it at %s",
		server, read, fmtTime(sv.answered), shown, asked, r.Input.Verb(), fmtTime(sv.arrived))
	switch n := len(sv.calls); {
	case n == 0: // nothing asked: the sentence says so
	case n == 1 && sv.calls[0].refused:
		c := sv.calls[0]
		story += fmt.Sprintf(" (it asked %s %s at %s and was refused at %s: %s was down)", c.to, c.what, fmtTime(c.sent), fmtTime(c.gaveUp), c.to)
	case n == 1:
		c := sv.calls[0]
		story += fmt.Sprintf(" (it asked %s %s at %s and gave up waiting at %s)", c.to, c.what, fmtTime(c.sent), fmtTime(c.gaveUp))
	case sv.calls[n-1].refused:
		c := sv.calls[n-1]
		story += fmt.Sprintf(" (%d calls to %s came to nothing, the last sent at %s and refused at %s: %s was down)", n, other, fmtTime(c.sent), fmtTime(c.gaveUp), c.to)
	default:
		c := sv.calls[n-1]
		story += fmt.Sprintf(" (%d calls to %s gave up, the last sent at %s, given up at %s)", n, other, fmtTime(c.sent), fmtTime(c.gaveUp))
	}
	lesson := "A Latest read must learn how far the other server's history goes after the read began, and wait until its own copy has got there, however slow the other is: " +
		"a copy that has not heard from it may lack a change others have already seen"
	if n := len(sv.calls); n > 0 && sv.calls[n-1].refused {
		down := sv.calls[n-1].to
		lesson = fmt.Sprintf("With %s down, %s could not know its copy was the latest: %s may have shown its readers a change before it crashed that never reached %s. "+
			"A Latest read waits until the other server answers how far its history goes (or refuses, Unavailable); a server that is down has not agreed that nothing is missing",
			down, server, down, server)
	}
	story += s.During(r) + ". " + lacked(ops, r, w) + ". " + lesson
	details := []string{"the read, and what it contradicts:", "  " + r.String(), "  " + w.String()}
	if c := writeOf(ops, w); c != nil && c.ID != w.ID {
		details = append(details, "  "+c.String())
	}
	return &suite.Failure{Name: "stale-read", Clause: course.OneHistory, At: sv.answered, Story: story, Ops: []check.OpID{r.ID, w.ID},
		Details: strings.Join(details, "\n") + "\nfaults:\n" + s.Describe()}
}

// lacked says which change the read's server lacked, and who had seen it
// before the read was sent: the witness w itself, an acknowledged write,
// or the write whose change w read.
func lacked(ops []check.Operation, r, w *check.Operation) string {
	sent := fmt.Sprintf("before %s sent its %s at %s", r.Client, r.Input.Verb(), fmtTime(r.Call))
	if w.Input.Kind.Mutates() {
		return fmt.Sprintf("Its copy lacked %s, %s", TellWrite(w), sent)
	}
	saw := fmt.Sprintf("%s's read from %s had shown %s=%v (rv %d) at %s", w.Client, w.Server, w.Input.Key, w.Result.Value, w.Result.Version, fmtTime(w.Return))
	if w.Input.List != "" {
		saw = fmt.Sprintf("%s's list of %s from %s had shown %s=%v (rv %d) at %s", w.Client, w.Input.List, w.Server, w.Input.Key, w.Result.Value, w.Result.Version, fmtTime(w.Return))
	}
	if c := writeOf(ops, w); c != nil {
		return fmt.Sprintf("Its copy lacked %s: %s, %s", TellWrite(c), saw, sent)
	}
	return fmt.Sprintf("Its copy lacked rv %d of %s: %s, %s", w.Result.Version, w.Input.Key, saw, sent)
}

// writeOf is the client's write whose change read w saw (the scenes write
// unique values), or w itself if it is a write; nil if none is found.
func writeOf(ops []check.Operation, w *check.Operation) *check.Operation {
	if w.Input.Kind.Mutates() {
		return w
	}
	for i := range ops {
		op := &ops[i]
		if op.Input.Key == w.Input.Key && op.Input.Kind.Mutates() && op.Input.Kind != check.KindDelete &&
			fmt.Sprint(op.Input.Value) == fmt.Sprint(w.Result.Value) {
			return op
		}
	}
	return nil
}
