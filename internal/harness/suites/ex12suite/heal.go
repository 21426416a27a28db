package ex12suite

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The heal world, stated once: two writers change different fields of web
// through GuaranteedUpdate within healSpread of each other, so that both
// read one version and one of them hears Conflict; a third changes api's
// replicas through a balancer that loses its first update on the way (no
// server ever sees it) and then works again. Nothing else writes, so once
// the lost request and the Conflict are behind them every writer can make
// its change.
const (
	healWrite     = 1000 * ms
	healSpread    = 30 // ms, the most the writers' starts differ by
	healReplicas  = hpaReplicas
	healAPI       = apiReplicas + hpaAdds
	healAudit     = 10 * time.Second
	lossyBalancer = sim.NodeID("lb")
)

// healRun is what the heal world's writers were asked to change and what
// GuaranteedUpdate reported.
type healRun struct {
	changes []*change
	lost    []lostRequest // the requests the balancer lost
}

// change is one writer's change: the field of key it sets, and what
// GuaranteedUpdate said of it.
type change struct {
	who   sim.NodeID
	key   string
	field string // "image", "replicas"
	to    string // "web:v2", "7"
	set   func(o *kube.Object)
	made  func(o kube.Object) bool // whether o holds the change
	err   error
	at    time.Duration // when GuaranteedUpdate returned
	done  bool
}

// what names a change as the stories do: "web's image".
func (c *change) what() string {
	_, name := kube.SplitKey(c.key)
	return name + "'s " + c.field
}

// lostRequest is an update the balancer lost before any server saw it.
type lostRequest struct {
	who sim.NodeID
	req kube.UpdateRequest
	at  time.Duration
}

func healWorld(seed int64, impl Impl) *world {
	w := newWorld(seed, impl, logLink)
	run := &healRun{}
	w.heal = run
	w.W.AddNode(lossyBalancer, func(p *sim.Proc) {
		behind := w.Servers[p.Rand().Intn(len(w.Servers))]
		lost := map[sim.NodeID]bool{}
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			if u, ok := req.(kube.UpdateRequest); ok && !lost[from] {
				lost[from] = true
				run.lost = append(run.lost, lostRequest{who: from, req: u, at: p.Now()})
				p.Logf("%s's %s is lost on the way to %s", from, u, behind)
				p.Sleep(2 * requestTimeout)
				return nil, kube.ErrTimeout
			}
			return p.Call(behind, req, requestTimeout)
		})
	})
	w.addSetup()
	writer := func(c *change, through ...sim.NodeID) {
		run.changes = append(run.changes, c)
		w.W.AddNode(c.who, func(p *sim.Proc) {
			p.Sleep(healWrite + time.Duration(p.Rand().Intn(healSpread))*ms)
			_, c.err = impl.Update(w.clientOn(p, through...), c.key, c.set)
			c.at, c.done = p.Now(), true
		})
	}
	writer(&change{who: "writer-a", key: web, field: "replicas", to: fmt.Sprint(healReplicas),
		set:  func(o *kube.Object) { o.Replicas = healReplicas },
		made: func(o kube.Object) bool { return o.Replicas == healReplicas }}, w.Servers...)
	writer(&change{who: "writer-b", key: web, field: "image", to: editImage,
		set:  func(o *kube.Object) { o.Image = editImage },
		made: func(o kube.Object) bool { return o.Image == editImage }}, w.Servers...)
	writer(&change{who: "writer-c", key: api, field: "replicas", to: fmt.Sprint(healAPI),
		set:  func(o *kube.Object) { o.Replicas = healAPI },
		made: func(o kube.Object) bool { return o.Replicas == healAPI }}, lossyBalancer)
	return w.play(healAudit)
}

// blindWrite: GuaranteedUpdate writes on condition that the object is
// still at the version it read. An update sent without a resourceVersion
// can never meet a Conflict, so whatever another writer changed since the
// read is overwritten with the value read; the heal world's two writers of
// web change it at once to show it. The first unconditional update any of
// its writers sent is the failure, whether or not it erased anything this
// time: the next race would.
func blindWrite(w *world) *suite.Failure {
	hist := w.longest()
	var first *check.Operation
	var who *change
	for _, c := range w.heal.changes {
		for _, op := range w.updates(c.who, c.key) {
			if op.Input.Kind != check.KindWrite {
				continue
			}
			if first == nil || op.Call < first.Call {
				first, who = &op, c
			}
		}
	}
	if first == nil {
		return nil
	}
	// A blind write that erased a change, when one did: the write that
	// made the object's last version, of a change that reached the
	// history and is no longer in it.
	var gone *change
	var final kube.Event
	for _, c := range w.heal.changes {
		ev, ok := lastChange(hist, c.key)
		if !ok || !reached(hist, c) || c.made(ev.Object) {
			continue
		}
		for _, e := range w.heal.changes {
			if e == c || e.key != c.key {
				continue
			}
			for _, op := range w.updates(e.who, e.key) {
				if op.Input.Kind == check.KindWrite && op.Result.Outcome == check.OK && op.Result.Version == ev.Object.ResourceVersion {
					first, who, gone, final = &op, e, c, ev
				}
			}
		}
	}
	read := "without reading it first"
	if r, ok := w.lastRead(who.who, who.key, first.Call); ok {
		read = fmt.Sprintf("though it had read %s at rv %d (answered at %s)", who.key, r.Result.Version, suite.FormatTime(r.Return))
	}
	name := "blind-write"
	story := fmt.Sprintf("at %s %s's GuaranteedUpdate sent its change of %s (%s %s) as an update of the whole object (%v) without a resourceVersion, %s: a write with no precondition is never refused with Conflict, so whatever another writer changed after that read is overwritten with the value %s read",
		suite.FormatTime(first.Call), who.who, who.what(), who.field, who.to, first.Input.Value, read, who.who)
	if timedOut, ok := timedOutBefore(w.updates(who.who, who.key), first.Call); ok {
		// The write with no precondition is a resend: the first, on
		// condition, had no answer.
		name = "timeout-resent-blind"
		story = fmt.Sprintf("at %s %s's GuaranteedUpdate sent its change of %s (%s %s) again without a resourceVersion, after its update conditional on rv %d (sent at %s) had no answer by %s: the writer could not tell whether that first update was made, and a resend with no precondition is never refused with Conflict, so it overwrites whatever another writer changed since (and would make a relative change twice); after a Timeout a write is sent again only on condition that the object is still at the version the first was conditional on",
			suite.FormatTime(first.Call), who.who, who.what(), who.field, who.to, timedOut.Input.IfVersion, suite.FormatTime(timedOut.Call), suite.FormatTime(timedOut.Return))
	}
	if gone != nil {
		story += fmt.Sprintf("; here it was accepted at rv %d, and %s's change of %s (%s %s), which had reached the history, is gone: %s ends as %s",
			final.Object.ResourceVersion, gone.who, gone.what(), gone.field, gone.to, who.key, final.Object.Value())
	}
	return &suite.Failure{Name: name, Clause: course.OneHistory, At: first.Call, Ops: []check.OpID{first.ID},
		Story: story, Details: updatesSent(who, w.updates(who.who, who.key))}
}

// timedOutBefore is the last of ups sent on condition before at whose
// answer never came, if any: the update a write without a precondition at
// at was sent again in place of.
func timedOutBefore(ups []check.Operation, at time.Duration) (check.Operation, bool) {
	var last check.Operation
	found := false
	for _, op := range ups {
		if op.Call < at && op.Input.Kind == check.KindCompareAndSet && op.Indefinite() {
			last, found = op, true
		}
	}
	return last, found
}

// staleAccepted: the heal world's two writers of web read one version and
// write on condition that it still holds, so the second to land must meet
// a Conflict. A server that accepted it anyway decided the precondition
// somewhere other than where the write lands: the write is told as
// stale-update, with the change it was decided against.
func staleAccepted(w *world) *suite.Failure {
	f := scene.Violated(check.StaleUpdate(w.History, changes(w.longest())))
	if f == nil {
		return nil
	}
	f.Story += ". The server did not decide the precondition where the write lands, when the entry is applied in the log's order: checked at a server's door, against what that server has applied, two updates made from one read both pass while neither is applied yet, and the second erases the first"
	return f
}

// lastRead is who's last read of key answered by before, if any.
func (w *world) lastRead(who sim.NodeID, key string, before time.Duration) (check.Operation, bool) {
	var last check.Operation
	found := false
	for _, op := range w.History.Operations() {
		if op.Client == string(who) && op.Input.Kind == check.KindRead && op.Input.Key == key &&
			op.Result.Outcome == check.OK && op.Return <= before && (!found || op.Return >= last.Return) {
			last, found = op, true
		}
	}
	return last, found
}

// changeGivenUp: once the lost request and the Conflicts are behind it,
// every writer's change reaches the history. A GuaranteedUpdate may say
// Timeout when a read cannot tell whether its change was made (someone
// else wrote the object after the write it could not learn the outcome
// of); any other give-up leaves a change the writer was asked to make
// undone, and nothing retries it.
func changeGivenUp(w *world) *suite.Failure {
	hist := w.longest()
	for _, c := range w.heal.changes {
		if reached(hist, c) {
			continue
		}
		if !c.done {
			return &suite.Failure{Name: "update-never-returned", Clause: course.AgreementFirst, At: w.W.Now(),
				Story: fmt.Sprintf("%s's GuaranteedUpdate of %s (%s %s) had not returned by %s, and the change is not in the history",
					c.who, c.what(), c.field, c.to, suite.FormatTime(w.W.Now()))}
		}
		ups := w.updates(c.who, c.key)
		if c.err == nil {
			return &suite.Failure{Name: "reported-made-not-made", Clause: course.AgreementFirst, At: c.at,
				Story: fmt.Sprintf("at %s %s's GuaranteedUpdate reported its change to %s (%s) made, but no version of %s in the history has %s %s",
					suite.FormatTime(c.at), c.who, c.what(), c.to, c.key, c.field, c.to),
				Details: updatesSent(c, ups)}
		}
		var last *check.Operation
		if len(ups) > 0 {
			last = &ups[len(ups)-1]
		}
		if last != nil && last.Indefinite() && movedAfter(hist, c.key, last.Input.IfVersion) {
			continue // a read could not tell: Timeout is its answer
		}
		return givenUp(w, c, ups, hist)
	}
	return nil
}

// givenUp tells how a writer's GuaranteedUpdate gave up a change it could
// still have made.
func givenUp(w *world, c *change, ups []check.Operation, hist []kube.Event) *suite.Failure {
	f := &suite.Failure{Name: "change-given-up", Clause: course.OneHistory, At: c.at, Details: updatesSent(c, ups)}
	never := "nothing retried it, so the change the writer was asked to make never reached the history"
	if len(ups) == 0 {
		f.Story = fmt.Sprintf("%s's GuaranteedUpdate returned %v at %s without sending an update of %s; %s",
			c.who, short(c.err), suite.FormatTime(c.at), c.key, never)
		return f
	}
	last := ups[len(ups)-1]
	f.At, f.Ops = last.Return, []check.OpID{last.ID}
	switch last.Result.Outcome {
	case check.Conflict:
		n, stale := 0, true
		for _, op := range ups {
			if op.Result.Outcome == check.Conflict {
				n++
			}
			stale = stale && op.Input.IfVersion == last.Input.IfVersion
		}
		if n > 1 && stale {
			f.Story = fmt.Sprintf("%s gave up its change to %s after %d Conflicts, the last at %s: every one of its updates was conditional on rv %d, though %s had moved on to rv %d, so it sent the same stale write again instead of reading %s again; %s",
				c.who, c.what(), n, suite.FormatTime(last.Return), last.Input.IfVersion, c.key, versionAfter(hist, c.key, last.Input.IfVersion), c.key, never)
			return f
		}
		f.Story = fmt.Sprintf("%s gave up its change to %s after %s at %s; %s",
			c.who, c.what(), conflicts(n), suite.FormatTime(last.Return), never)
	case check.Indefinite, check.Pending:
		f.Story = fmt.Sprintf("%s gave up its change to %s after a Timeout at %s (its update of %s, conditional on rv %d, had no answer); %s was never written after rv %d, so the same write sent again could take effect at most once; %s",
			c.who, c.what(), suite.FormatTime(last.Return), suite.FormatTime(last.Call), last.Input.IfVersion, c.key, last.Input.IfVersion, never)
	default:
		f.Story = fmt.Sprintf("%s's GuaranteedUpdate returned %v at %s after its update of %s ended %s; %s",
			c.who, short(c.err), suite.FormatTime(c.at), c.key, answered(last), never)
	}
	if ev, ok := lastChange(hist, c.key); ok {
		f.Details += fmt.Sprintf("\n%s's last change in the history: %s; a read, then an update conditional on rv %d, would have taken effect",
			c.key, ev.Object, ev.Object.ResourceVersion)
	}
	return f
}

// reached reports whether any version of c's key in the history holds c.
func reached(hist []kube.Event, c *change) bool {
	for _, ev := range hist {
		if ev.Object.Key() == c.key && ev.Type != kube.Deleted && c.made(ev.Object) {
			return true
		}
	}
	return false
}

// movedAfter reports whether key was written after version rv.
func movedAfter(hist []kube.Event, key string, rv int64) bool {
	for _, ev := range hist {
		if ev.Object.Key() == key && ev.Object.ResourceVersion > rv {
			return true
		}
	}
	return false
}

// versionAfter is the first version of key in the history after rv, 0 if
// none.
func versionAfter(hist []kube.Event, key string, rv int64) int64 {
	for _, ev := range hist {
		if ev.Object.Key() == key && ev.Object.ResourceVersion > rv {
			return ev.Object.ResourceVersion
		}
	}
	return 0
}

// lastChange is key's last change in the history.
func lastChange(hist []kube.Event, key string) (kube.Event, bool) {
	var last kube.Event
	found := false
	for _, ev := range hist {
		if ev.Object.Key() == key {
			last, found = ev, true
		}
	}
	return last, found && last.Type != kube.Deleted
}

// updates are the writes who sent of key, in the order sent.
func (w *world) updates(who sim.NodeID, key string) []check.Operation {
	var out []check.Operation
	for _, op := range w.History.Operations() {
		if op.Client == string(who) && op.Input.Key == key && (op.Input.Kind == check.KindCompareAndSet || op.Input.Kind == check.KindWrite) {
			out = append(out, op)
		}
	}
	return out
}

// updatesSent lists the updates a writer sent, one a line.
func updatesSent(c *change, ups []check.Operation) string {
	if len(ups) == 0 {
		return fmt.Sprintf("%s sent no update of %s", c.who, c.key)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s's updates of %s:", c.who, c.key)
	for _, op := range ups {
		cond := "unconditional"
		if op.Input.Kind == check.KindCompareAndSet {
			cond = fmt.Sprintf("if rv %d", op.Input.IfVersion)
		}
		fmt.Fprintf(&b, "\n  %-9s %s %s, %s → %s", suite.FormatTime(op.Call), c.field, c.to, cond, answered(op))
	}
	switch {
	case !c.done:
		b.WriteString("\nGuaranteedUpdate had not returned")
	case c.err == nil:
		fmt.Fprintf(&b, "\nGuaranteedUpdate reported the change made at %s", suite.FormatTime(c.at))
	default:
		fmt.Fprintf(&b, "\nGuaranteedUpdate returned %v at %s", short(c.err), suite.FormatTime(c.at))
	}
	return b.String()
}

// answered is what an update came to, as its writer heard it: "Conflict
// at 1996.2ms", "accepted at rv 4", "no answer".
func answered(op check.Operation) string {
	switch op.Result.Outcome {
	case check.OK:
		return fmt.Sprintf("accepted at rv %d, %s", op.Result.Version, suite.FormatTime(op.Return))
	case check.Conflict:
		return "Conflict at " + suite.FormatTime(op.Return)
	case check.Indefinite:
		return "no answer by " + suite.FormatTime(op.Return)
	case check.Pending:
		return "no answer yet"
	}
	return fmt.Sprintf("%s at %s", op.Result.Outcome, suite.FormatTime(op.Return))
}

// conflicts is "one Conflict", "3 Conflicts".
func conflicts(n int) string {
	if n == 1 {
		return "one Conflict"
	}
	return fmt.Sprintf("%d Conflicts", n)
}

// short is an error's reason alone ("Conflict", "Timeout"), for a story.
func short(err error) string {
	var se kube.StatusError
	if errors.As(err, &se) {
		return se.Reason
	}
	return err.Error()
}

// healCounts is what one heal world exercised: the writers' conditional
// updates, the Conflicts they met, and the requests the balancer lost.
func healCounts(w *world) scene.Counts {
	n := scene.Counts{"lost": len(w.heal.lost)}
	for _, c := range w.heal.changes {
		for _, op := range w.updates(c.who, c.key) {
			if op.Input.Kind == check.KindCompareAndSet {
				n["conditional"]++
			}
			if op.Result.Outcome == check.Conflict {
				n["conflicts"]++
			}
		}
	}
	return n
}

// healedEnough: across its worlds some writer met a Conflict and some
// request was lost, or the check decided nothing about retrying. Whose
// doing that was decides the name: a GuaranteedUpdate that sent no update
// (none conditional, none through the balancer) left nothing to judge;
// conditional updates that never raced are the test's own faults meeting
// nothing ("vacuous-run").
func healedEnough(sum scene.Counts, seeds []int64) *suite.Failure {
	var unsent []string
	if sum["conditional"] == 0 {
		unsent = append(unsent, "no writer's GuaranteedUpdate sent an update conditional on a version, so none could meet a Conflict")
	}
	if sum["lost"] == 0 {
		unsent = append(unsent, fmt.Sprintf("%s's GuaranteedUpdate sent no update through %s, so none was lost", "writer-c", lossyBalancer))
	}
	if len(unsent) > 0 {
		return &suite.Failure{Name: "no-update-sent", Clause: course.AgreementFirst,
			Story: fmt.Sprintf("in %d worlds %s: the suite could not decide whether GuaranteedUpdate carries a change through them", len(seeds), strings.Join(unsent, ", and "))}
	}
	if sum["conflicts"] == 0 {
		return &suite.Failure{Name: "vacuous-run", Clause: course.AgreementFirst,
			Story: fmt.Sprintf("in %d worlds the writers' conditional updates of web never raced, so none met a Conflict: the suite could not decide whether GuaranteedUpdate carries a change through one", len(seeds))}
	}
	return nil
}
