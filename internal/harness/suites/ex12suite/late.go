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

// The late-landing world, stated once: a load balancer in front of server-1
// holds each client's first update on the way, past the client's timeout,
// until the client sends its next update (or lateHold has passed); then it
// delivers the held update, and only once the server has answered it does
// it deliver the next. A helper that sends its write again, on condition
// that the object is still at the version it read, meets a Conflict caused
// by its own first write, which landed just before.
const (
	lateBalancer sim.NodeID = "lb"
	lateHold                = 6 * time.Second
	lateAudit               = 16 * time.Second
)

// lateRun is what the balancer held and what each writer's
// GuaranteedUpdate reported.
type lateRun struct {
	held map[sim.NodeID]*heldUpdate // by client: its first update
	edit edit                       // the engineer's GuaranteedUpdate of web's image
	// next is broadcast when a client sends its next update; landed, when
	// a held update has been answered by the server.
	next, landed sim.Cond
}

// heldUpdate is a client's first update, held on the way.
type heldUpdate struct {
	req     kube.UpdateRequest
	sent    time.Duration // when it reached the balancer
	resent  time.Duration // when the client's next update reached the balancer; 0 if none did
	landed  time.Duration // when the server answered it; 0 if it has not
	got     kube.Object   // the server's answer, which the client never heard
	err     error
	settled bool // the server answered it
}

// what is the held update as a story gives it: "replicas=5 image=web:v2,
// if rv 1".
func (h *heldUpdate) what() string {
	if h.req.Object.ResourceVersion == 0 {
		return valueText(h.req.Object.Value()) + ", unconditional"
	}
	return fmt.Sprintf("%s, if rv %d", valueText(h.req.Object.Value()), h.req.Object.ResourceVersion)
}

// valueText is a deployment's recorded value as the stories give it:
// "replicas=5" for one with no image, "replicas=5 image=web:v2" else.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprintf("replicas=%v", v)
}

func lateWorld(seed int64, impl Impl) *world {
	w := newWorld(seed, impl, logLink)
	run := &lateRun{held: map[sim.NodeID]*heldUpdate{}, next: sim.Cond{Name: "next update"}, landed: sim.Cond{Name: "held update landed"}}
	w.late = run
	w.counter, w.initial = api, apiReplicas
	w.W.AddNode(lateBalancer, func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			u, ok := req.(kube.UpdateRequest)
			if !ok {
				return p.Call(storyServer, req, requestTimeout)
			}
			h := run.held[from]
			if h == nil {
				h = &heldUpdate{req: u, sent: p.Now()}
				run.held[from] = h
				p.Logf("%s's %s is held on the way", from, u)
				waitFor(p, &run.next, lateHold, func() bool { return h.resent != 0 })
				p.Logf("%s's held %s goes on to %s", from, u, storyServer)
				reply, err := p.Call(storyServer, req, requestTimeout)
				h.got, _ = reply.(kube.Object)
				h.err, h.landed, h.settled = err, p.Now(), true
				run.landed.Broadcast()
				return reply, err
			}
			if h.resent == 0 {
				h.resent = p.Now()
				run.next.Broadcast()
				waitFor(p, &run.landed, requestTimeout, func() bool { return h.settled })
			}
			return p.Call(storyServer, req, requestTimeout)
		})
	})
	w.addSetup()
	w.addEditAndIncrement(impl, lateBalancer, &run.edit)
	return w.play(lateAudit)
}

// lateLanded: each writer's first update was held past its timeout and
// landed later; the helper must neither make the change twice (counted
// judges the autoscaler's increment) nor report the engineer's image
// change failed once its own late write has made it, nor give it up while
// sending it again was safe. A world in which the scene did not happen
// (no update sent, or a conditional resend that met no Conflict) could not
// decide, and fails.
func lateLanded(w *world) *suite.Failure {
	r := w.late
	if r == nil {
		return nil
	}
	if f := noUpdateSent(w, lateBalancer, func(who sim.NodeID) bool { return r.held[who] != nil }, "its own late write meets its resend"); f != nil {
		return f
	}
	if f := w.lateIncrementTwice(); f != nil {
		return f
	}
	h := r.held[engineer]
	var made []kube.Event
	for _, ev := range w.longest() {
		if ev.Object.Key() == web && ev.Type == kube.Modified {
			made = append(made, ev)
		}
	}
	first := fmt.Sprintf("%s's first update of %s (%s), sent at %s, had no answer in time: it was held on the way and landed only at %s",
		engineer, web, h.what(), suite.FormatTime(h.sent), suite.FormatTime(h.landed))
	if h.landed == 0 {
		first = fmt.Sprintf("%s's first update of %s (%s), sent at %s, had no answer in time: it was held on the way and had not landed by %s",
			engineer, web, h.what(), suite.FormatTime(h.sent), suite.FormatTime(w.W.Now()))
	}
	if len(made) > 1 {
		return &suite.Failure{Name: "double-apply", Clause: course.OneHistory, At: h.landed,
			Story: fmt.Sprintf("%s, at rv %d; GuaranteedUpdate made the change again: the history holds %d changes of %s (rv %d and rv %d), where the engineer asked for one",
				first, made[0].Object.ResourceVersion, len(made), web, made[0].Object.ResourceVersion, made[1].Object.ResourceVersion),
			Details: w.lateUpdates(engineer, web)}
	}
	if !r.edit.done {
		return &suite.Failure{Name: "update-never-returned", Clause: course.AgreementFirst, At: w.W.Now(),
			Story: fmt.Sprintf("%s's GuaranteedUpdate of %s had not returned by %s", engineer, web, suite.FormatTime(w.W.Now()))}
	}
	if f := w.lateBlind(); f != nil {
		return f
	}
	landedFirst := h.settled && h.err == nil && h.landed <= r.edit.at && h.got.ResourceVersion != 0
	if r.edit.err != nil && landedFirst {
		return &suite.Failure{Name: "made-reported-failed", Clause: course.AgreementFirst, At: r.edit.at,
			Story: fmt.Sprintf("%s, at rv %d (image %s)%s; at %s GuaranteedUpdate returned %v, though a read at any time since %s shows image %s: its own write moved %s, and the change it was asked for was made",
				first, h.got.ResourceVersion, editImage, w.ownConflict(engineer, web, h), suite.FormatTime(r.edit.at), short(r.edit.err), suite.FormatTime(h.landed), editImage, web),
			Details: w.lateUpdates(engineer, web)}
	}
	if r.edit.err != nil && h.resent == 0 && h.landed > r.edit.at {
		return &suite.Failure{Name: "change-given-up", Clause: course.OneHistory, At: r.edit.at,
			Story: fmt.Sprintf("at %s %s's GuaranteedUpdate returned %v after its update of %s (%s, sent at %s) had no answer, without sending it again; %s was still at the version that update was conditional on, so the same write sent again could take effect at most once",
				suite.FormatTime(r.edit.at), engineer, short(r.edit.err), web, h.what(), suite.FormatTime(h.sent), web),
			Details: w.lateUpdates(engineer, web)}
	}
	// The scene happened: some writer sent its update again on condition
	// and met the Conflict its own first write caused. Else the suite
	// decided nothing about that Conflict.
	met := false
	for _, who := range []sim.NodeID{engineer, hpa} {
		h := r.held[who]
		for _, op := range w.History.Operations() {
			if op.Client == string(who) && op.Input.Kind == check.KindCompareAndSet && op.Call > h.sent &&
				op.Result.Outcome == check.Conflict {
				met = true
			}
		}
	}
	if !met {
		conditional := false
		for _, op := range w.History.Operations() {
			if (op.Client == string(engineer) || op.Client == string(hpa)) && op.Input.Kind == check.KindCompareAndSet {
				conditional = true
			}
		}
		if conditional {
			return &suite.Failure{Name: "vacuous-run", Clause: course.AgreementFirst, At: w.W.Now(),
				Story: fmt.Sprintf("no writer's update sent again after a Timeout met the Conflict its own late first write caused, by %s: the suite could not decide what GuaranteedUpdate does then", suite.FormatTime(w.W.Now()))}
		}
	}
	return nil
}

// lateBlind: each writer's first update was held past its timeout, so it
// may land at any time. A write sent without a resourceVersion, first or
// again after the Timeout, can meet no Conflict: it overwrites whatever was
// written since, and the one sent again makes a relative change twice. The
// first such write of either writer is the failure, whether or not it
// changed anything this time, told with the held update.
func (w *world) lateBlind() *suite.Failure {
	for _, who := range []sim.NodeID{engineer, hpa} {
		key := web
		if who == hpa {
			key = api
		}
		h := w.late.held[who]
		ups := w.updates(who, key)
		for i, op := range ups {
			if op.Input.Kind != check.KindWrite {
				continue
			}
			end := "; a write with no precondition is never refused with Conflict, so whatever another writer changed after the read is overwritten with the value read"
			if op.Result.Outcome == check.OK {
				end = fmt.Sprintf("; it was accepted at rv %d%s", op.Result.Version, end)
			}
			if i == 0 {
				return &suite.Failure{Name: "blind-write", Clause: course.OneHistory, At: op.Call, Ops: []check.OpID{op.ID},
					Story: fmt.Sprintf("at %s %s's GuaranteedUpdate sent its update of %s (%s) without a resourceVersion%s; it was held on the way past its timeout, and whether it was sent again or not, nothing could stop it from landing over a later write",
						suite.FormatTime(op.Call), who, key, valueText(op.Input.Value), end),
					Details: w.lateUpdates(who, key)}
			}
			first := fmt.Sprintf("its first update (%s, sent at %s) had no answer in time: it was held on the way", h.what(), suite.FormatTime(ups[0].Call))
			switch {
			case !h.settled:
				first += fmt.Sprintf(" and had not landed by %s", suite.FormatTime(w.W.Now()))
			case h.err == nil && h.got.ResourceVersion != 0:
				first += fmt.Sprintf(" and landed at %s, at rv %d", suite.FormatTime(h.landed), h.got.ResourceVersion)
			default:
				first += fmt.Sprintf(" and landed at %s, answered %s", suite.FormatTime(h.landed), short(h.err))
			}
			if op.Result.Outcome == check.OK && h.settled && h.err == nil && op.Result.Version == h.got.ResourceVersion {
				end = fmt.Sprintf("; it changed nothing this time only because the first had landed with the same value and no one wrote %s in between: any write in between would have been overwritten, and a relative change made twice", key)
			} else if op.Result.Outcome == check.OK {
				end = fmt.Sprintf("; it was accepted at rv %d", op.Result.Version)
			} else {
				end = ""
			}
			return &suite.Failure{Name: "timeout-resent-blind", Clause: course.OneHistory, At: op.Call, Ops: []check.OpID{op.ID},
				Story: fmt.Sprintf("at %s %s's GuaranteedUpdate sent its update of %s (%s) again without a resourceVersion: %s, so the first was maybe made, and no Conflict could stop the second%s; after a Timeout a write is sent again only on condition that the object is still at the version the first was conditional on",
					suite.FormatTime(op.Call), who, key, valueText(op.Input.Value), first, end),
				Details: w.lateUpdates(who, key)}
		}
	}
	return nil
}

// lateIncrementTwice: the autoscaler's increment of api, made by its own
// late first write, made again after the Conflict that write caused. Only
// the autoscaler writes api in this world, so a second change of api is
// its increment made twice.
func (w *world) lateIncrementTwice() *suite.Failure {
	h := w.late.held[hpa]
	var made []kube.Event
	for _, ev := range w.longest() {
		if ev.Object.Key() == api && ev.Type == kube.Modified {
			made = append(made, ev)
		}
	}
	if len(made) < 2 || !h.settled || h.err != nil {
		return nil
	}
	conflict := w.ownConflict(hpa, api, h)
	return &suite.Failure{Name: "double-apply", Clause: course.OneHistory, At: h.landed,
		Story: fmt.Sprintf("%s's first update of %s (%s), sent at %s, had no answer in time: it was held on the way and landed at %s, at rv %d%s; GuaranteedUpdate then added %d again, at rv %d (%s=%v): one increment made twice. After a Conflict that follows a Timeout, the write that moved the object may be one's own, and no read can tell whether an increment is in it",
			hpa, api, h.what(), suite.FormatTime(h.sent), suite.FormatTime(h.landed), h.got.ResourceVersion, conflict, hpaAdds, made[1].Object.ResourceVersion, "replicas", made[1].Object.Replicas),
		Details: w.lateUpdates(hpa, api)}
}

// ownConflict tells the Conflict who's update sent again met because its
// own held first write h had landed: "; its update sent again at 4323.3ms
// (replicas=5, if rv 2) met a Conflict at 5314.2ms, caused by its own
// first write", or "" when none did.
func (w *world) ownConflict(who sim.NodeID, key string, h *heldUpdate) string {
	for _, op := range w.updates(who, key) {
		if op.Call > h.sent && op.Result.Outcome == check.Conflict && h.settled && h.err == nil && op.Return >= h.landed {
			return fmt.Sprintf("; its update sent again at %s (%s, if rv %d) met a Conflict at %s, caused by its own first write",
				suite.FormatTime(op.Call), valueText(op.Input.Value), op.Input.IfVersion, suite.FormatTime(op.Return))
		}
	}
	return ""
}

// lateUpdates lists who's updates of key, one a line, with the held one
// marked.
func (w *world) lateUpdates(who sim.NodeID, key string) string {
	ups := w.updates(who, key)
	if len(ups) == 0 {
		return fmt.Sprintf("%s sent no update of %s", who, key)
	}
	h := w.late.held[who]
	s := fmt.Sprintf("%s's updates of %s:", who, key)
	for i, op := range ups {
		cond := "unconditional"
		if op.Input.Kind == check.KindCompareAndSet {
			cond = fmt.Sprintf("if rv %d", op.Input.IfVersion)
		}
		s += fmt.Sprintf("\n  %-9s %s, %s → %s", suite.FormatTime(op.Call), valueText(op.Input.Value), cond, answered(op))
		if i == 0 && h != nil && h.settled {
			s += fmt.Sprintf(" (held on the way; it landed at %s", suite.FormatTime(h.landed))
			if h.err == nil {
				s += fmt.Sprintf(", at rv %d)", h.got.ResourceVersion)
			} else {
				s += fmt.Sprintf(", %s)", short(h.err))
			}
		}
	}
	return s
}
