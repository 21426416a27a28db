package ex06suite

import (
	"errors"
	"fmt"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// refusalHidden judges the first refusal by the API's rules (NotFound,
// AlreadyExists, Conflict: a definite no, as the one history stood) that a
// server heard from another server and that no client heard from it
// (refusal-hidden): the server's client, whose write was in flight while
// the refusal came, was told something else, Unavailable or a timeout, as
// if the write might still happen or should be sent again. A refusal
// passed on reaches the client of the write it refused, whose request
// spans the moment it came; a refusal no definite answer of that server
// spans went nowhere.
func refusalHidden(w *world) *suite.Failure {
	ops := w.History.Operations()
	for e := range w.W.Trace().All() {
		if e.Kind != sim.EvRecvReply || !w.IsServer(e.Node) || !w.IsServer(e.Peer) || !definite(e.Err) {
			continue
		}
		var hidden *check.Operation
		passedOn := false
		for i := range ops {
			op := &ops[i]
			if op.Server != string(e.Node) || !op.Input.Kind.Mutates() || op.Call > e.At || (op.Return < e.At && !op.Indefinite()) {
				continue
			}
			switch op.Result.Outcome {
			case check.Conflict, check.NotFound, check.AlreadyExists:
				passedOn = true
			case check.OK:
			default:
				if hidden == nil && !heldUp(w.Scene, *op) {
					hidden = op
				}
			}
		}
		if passedOn || hidden == nil {
			continue
		}
		story := fmt.Sprintf("%s asked %s to write (%s) at %s; at %s %s heard %s refuse a write: %q, and no client of %s was told so: %s was answered at %s with an answer that leaves its write open (%v). "+
			"A refusal by the API's rules is a definite no about the one history as it stood, the answer to pass on as it is, so that the client re-reads; "+
			"told as anything else, the client takes a write the history ruled out for one that may still happen",
			hidden.Client, hidden.Server, hidden.Input, suite.FormatTime(hidden.Call), suite.FormatTime(e.At), e.Node, e.Peer, e.Err.Error(), e.Node,
			hidden.Client, suite.FormatTime(hidden.Return), hidden.Result.Outcome)
		return &suite.Failure{Name: "refusal-hidden", Clause: course.OneHistory, At: e.At, Story: story,
			Details: "faults:\n" + w.Describe(), Timeline: w.Timeline(hidden.Return)}
	}
	return nil
}

// definite reports whether err is a refusal by the API's rules.
func definite(err error) bool {
	return errors.Is(err, kube.ErrNotFound) || errors.Is(err, kube.ErrAlreadyExists) || errors.Is(err, kube.ErrConflict)
}
