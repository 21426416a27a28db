package ex12suite

import (
	"fmt"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The lost-answer world, stated once: a load balancer in front of server-1
// that loses the answer to each client's first update, after the server
// made it. Once the autoscaler's first update is made (its answer lost), a
// scaler adds scalerAdds to api's replicas straight through server-1, and
// the balancer holds the autoscaler's next requests until the scaler is
// answered (at most scalerHold): whatever the autoscaler's helper does
// after its Timeout, api has moved on from the version it wrote.
const (
	balancer     sim.NodeID = "lb"
	scaler       sim.NodeID = "scaler"
	apiReplicas             = 3
	hpaAdds                 = 2
	scalerAdds              = 1
	scalerHold              = 3 * time.Second
	lostAnswerAt            = 12 * time.Second
)

// lostAnswerRun is what the balancer lost and what each writer's
// GuaranteedUpdate reported.
type lostAnswerRun struct {
	lost map[string]lost // by client: the update whose answer the balancer lost
	edit edit            // the engineer's GuaranteedUpdate of web's image
	// lostCond is broadcast when the balancer loses an answer; scaled,
	// when the scaler's increment has returned.
	lostCond, scaledCond sim.Cond
	scaled               bool
}

// lost is an update whose answer the balancer lost.
type lost struct {
	req kube.UpdateRequest
	at  time.Duration // when the server's answer reached the balancer
	err error         // the answer the client never heard
}

func lostAnswerWorld(seed int64, impl Impl) *world {
	w := newWorld(seed, impl, logLink)
	run := &lostAnswerRun{lost: map[string]lost{}, lostCond: sim.Cond{Name: "an answer lost"}, scaledCond: sim.Cond{Name: "scaler answered"}}
	w.lostAnswer = run
	w.counter, w.initial = api, apiReplicas
	w.W.AddNode(balancer, func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			if _, held := run.lost[string(from)]; held && from == hpa && !run.scaled {
				p.Logf("%s's %s is held until %s is answered", from, req, scaler)
				waitFor(p, &run.scaledCond, scalerHold, func() bool { return run.scaled })
			}
			reply, err := p.Call(storyServer, req, requestTimeout)
			if u, ok := req.(kube.UpdateRequest); ok {
				if _, done := run.lost[string(from)]; !done {
					run.lost[string(from)] = lost{req: u, at: p.Now(), err: err}
					run.lostCond.Broadcast()
					p.Logf("the answer to %s's %s is lost", from, u)
					p.Sleep(2 * requestTimeout)
				}
			}
			return reply, err
		})
	})
	w.addSetup()
	w.addEditAndIncrement(impl, balancer, &run.edit)
	w.W.AddNode(scaler, func(p *sim.Proc) {
		if waitFor(p, &run.lostCond, lostAnswerAt-p.Now(), func() bool { _, ok := run.lost[string(hpa)]; return ok }) {
			w.increment(impl, p, w.clientOn(p, storyServer), scalerAdds)
		}
		run.scaled = true
		run.scaledCond.Broadcast()
	})
	return w.play(lostAnswerAt)
}

// answerNotLost: the world is about a lost answer, so each writer must
// have sent an update whose answer the balancer lost. Could not decide is
// a failure.
func answerNotLost(w *world) *suite.Failure {
	r := w.lostAnswer
	if r == nil {
		return nil
	}
	return noUpdateSent(w, balancer, func(who sim.NodeID) bool { _, ok := r.lost[string(who)]; return ok }, "an update's answer is lost")
}

// resentBlind: a write whose answer was lost may have been made. The
// autoscaler's was, and then the scaler added to api; a GuaranteedUpdate
// that sends its write again without a precondition writes over the
// scaler's change (and would make a relative change twice). The first
// update the autoscaler sent without a resourceVersion after its Timeout
// is the failure, told with what it erased.
func resentBlind(w *world) *suite.Failure {
	if w.lostAnswer == nil {
		return nil
	}
	l, ok := w.lostAnswer.lost[string(hpa)]
	if !ok {
		return nil
	}
	ups := w.updates(hpa, api)
	var timedOut *check.Operation
	for i, op := range ups {
		if timedOut == nil {
			if op.Indefinite() {
				timedOut = &ups[i]
			}
			continue
		}
		if op.Input.Kind != check.KindWrite {
			continue
		}
		was := "the server had made it at " + suite.FormatTime(l.at)
		if l.err != nil {
			was = fmt.Sprintf("the server answered %s at %s", short(l.err), suite.FormatTime(l.at))
		}
		story := fmt.Sprintf("at %s %s's GuaranteedUpdate sent its update of %s (replicas %v) again without a resourceVersion, after the first (sent at %s) had no answer by %s: %s and the answer was lost, so the first was maybe made, and no Conflict could stop the second",
			suite.FormatTime(op.Call), hpa, api, op.Input.Value, suite.FormatTime(timedOut.Call), suite.FormatTime(timedOut.Return), was)
		if op.Result.Outcome == check.OK {
			story += fmt.Sprintf(": it was accepted at rv %d", op.Result.Version)
			if prev, ok := changeBefore(w.longest(), api, op.Result.Version); ok {
				story += fmt.Sprintf(", over rv %d (replicas %v%s)", prev.Object.ResourceVersion, prev.Object.Value(), w.madeByOther(prev, hpa))
			}
		}
		story += "; after a Timeout a write is sent again only on condition that the object is still at the version the first was conditional on"
		return &suite.Failure{Name: "timeout-resent-blind", Clause: course.OneHistory, At: op.Call, Ops: []check.OpID{timedOut.ID, op.ID},
			Story: story, Details: updatesSent(w.hpaReturned(), ups)}
	}
	return nil
}

// changeBefore is the change of key just before version rv in hist.
func changeBefore(hist []kube.Event, key string, rv int64) (kube.Event, bool) {
	var prev kube.Event
	found := false
	for _, ev := range hist {
		if ev.Object.ResourceVersion >= rv {
			break
		}
		if ev.Object.Key() == key {
			prev, found = ev, true
		}
	}
	return prev, found
}

// madeByOther tells whose acknowledged write made ev, when it was not
// who's: ", scaler's increment, told done at 2960ms".
func (w *world) madeByOther(ev kube.Event, who sim.NodeID) string {
	for _, op := range w.History.Operations() {
		if op.Input.Key == ev.Object.Key() && op.Result.Outcome == check.OK && op.Result.Version == ev.Object.ResourceVersion &&
			op.Input.Kind.Mutates() && op.Client != string(who) {
			return fmt.Sprintf(", %s's write, told done at %s, which the resend erased", op.Client, suite.FormatTime(op.Return))
		}
	}
	return ""
}

// hpaReturned is what the autoscaler's GuaranteedUpdate returned and
// when, from its recorded increment, as a change for updatesSent.
func (w *world) hpaReturned() *change {
	c := &change{who: hpa, key: api, field: "replicas", to: fmt.Sprintf("+%d", hpaAdds)}
	for _, inc := range w.incs {
		if inc.Client != string(hpa) || inc.Outcome == check.Pending {
			continue
		}
		c.done, c.at = true, inc.Return
		switch inc.Outcome {
		case check.OK:
		case check.Conflict:
			c.err = kube.ErrConflict
		case check.NotFound:
			c.err = kube.ErrNotFound
		default:
			c.err = kube.ErrTimeout
		}
	}
	return c
}

// reportedFailed: the engineer's change is one a read can tell (web's
// image is web:v2 or it is not): GuaranteedUpdate must report it made when
// it was made, and must make it once.
func reportedFailed(w *world) *suite.Failure {
	r := w.lostAnswer
	if r == nil {
		return nil
	}
	l := r.lost[string(engineer)]
	var made []kube.Event
	for _, ev := range w.longest() {
		if ev.Object.Key() == web && ev.Type == kube.Modified {
			made = append(made, ev)
		}
	}
	if len(made) > 1 {
		return &suite.Failure{Name: "double-apply", Clause: course.OneHistory, At: l.at,
			Story: fmt.Sprintf("%s's %s was made (its answer lost at %s), and GuaranteedUpdate made it again: the history holds %d changes of %s (rv %d and rv %d), where the engineer asked for one",
				engineer, l.req, suite.FormatTime(l.at), len(made), web, made[0].Object.ResourceVersion, made[1].Object.ResourceVersion)}
	}
	if !r.edit.done {
		return &suite.Failure{Name: "update-never-returned", Clause: course.AgreementFirst, At: w.W.Now(),
			Story: fmt.Sprintf("%s's GuaranteedUpdate of %s had not returned by %s", engineer, web, suite.FormatTime(w.W.Now()))}
	}
	if r.edit.err != nil && len(made) == 1 && made[0].Object.Image == editImage {
		return &suite.Failure{Name: "made-reported-failed", Clause: course.AgreementFirst, At: r.edit.at,
			Story: fmt.Sprintf("at %s %s's GuaranteedUpdate of %s (image %s) returned %v, but the change was made at rv %d (its answer lost at %s), and a read at any time since shows image %s: a write that took effect, reported as not known or failed",
				suite.FormatTime(r.edit.at), engineer, web, editImage, r.edit.err, made[0].Object.ResourceVersion, suite.FormatTime(l.at), editImage)}
	}
	return nil
}
