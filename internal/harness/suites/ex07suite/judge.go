package ex07suite

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The judges of a world: each returns the failure it finds, or nil.

// splitBrain: the servers' histories are prefixes of one sequence. When two
// differ, the story starts from the server that said yes on its own, cut
// off from a majority, if one did, and says who wrote each of the two
// changes at the first position where they differ.
func splitBrain(r *run) *suite.Failure {
	v := check.OneHistory(r.Histories)
	if v == nil {
		return nil
	}
	a, b, pos := v.Servers[0], v.Servers[1], 0 // the first two servers apart, and where
	for r.Histories[a][pos].Equal(r.Histories[b][pos]) {
		pos++
	}
	ca, cb := r.Histories[a][pos], r.Histories[b][pos]
	if r.alone(cb) && !r.alone(ca) {
		a, b, ca, cb = b, a, cb, ca
	}
	var story string
	at := max(ca.At, cb.At)
	if op, ok := r.writer(ca); ok && r.alone(ca) {
		story = fmt.Sprintf("%s said yes on its own while it was %s: rv %d there is %s, while %s holds %s at rv %d. "+
			"After the heal the two histories stay apart, and nothing in the cluster will ever merge them",
			op.Server, r.pl.cutOff(op.Return, sim.NodeID(op.Server)), pos+1, r.describeChange(ca), b, r.describeChange(cb), pos+1)
		at = op.Return
	} else {
		story = fmt.Sprintf("%s and %s hold different changes at rv %d: %s holds %s, %s holds %s. Two servers applied different changes at the same position, and nothing in the cluster will ever merge the two histories",
			a, b, pos+1, a, r.describeChange(ca), b, r.describeChange(cb))
	}
	return &suite.Failure{Name: "split-brain", Clause: course.DurableAgreement, Story: story, At: at, Details: v.Details}
}

// appliedTwice: the one history holds no client's write twice, as it does
// when a write is sent to the sequencer a second time after the first try
// timed out, and both are ordered.
func appliedTwice(r *run) *suite.Failure {
	return scene.Violated(scene.AppliedTwice(r.History, r.Longest()))
}

// alone reports whether c's write was acknowledged by a server that could
// not have had a majority when it said yes.
func (r *run) alone(c check.Change) bool {
	op, ok := r.writer(c)
	return ok && op.Acknowledged() && !r.pl.majorityDuring(op.Call, op.Return, sim.NodeID(op.Server))
}

// describeChange says what a change is and who asked for it: "web=2
// (controller-b through server-3, acknowledged at 1712ms)".
func (r *run) describeChange(c check.Change) string {
	what := fmt.Sprintf("%s=%v", short(c.Key), c.Value)
	if c.Deleted {
		what = "the deletion of " + short(c.Key)
	}
	op, ok := r.writer(c)
	if !ok {
		return what + " (no client asked for it)"
	}
	s := fmt.Sprintf("%s (%s through %s, ", what, op.Client, op.Server)
	if !op.Acknowledged() {
		return s + "never acknowledged)"
	}
	return s + "acknowledged at " + suite.FormatTime(op.Return) + ")"
}

// writer finds the operation that wrote c: values are unique per key in
// every world of the chapter.
func (r *run) writer(c check.Change) (check.Operation, bool) {
	for _, op := range r.History.Operations() {
		if !op.Input.Kind.Mutates() || op.Input.Key != c.Key {
			continue
		}
		if c.Deleted && op.Input.Kind == check.KindDelete || !c.Deleted && fmt.Sprint(op.Input.Value) == fmt.Sprint(c.Value) {
			return op, true
		}
	}
	return check.Operation{}, false
}

// ackedAlone: no write is acknowledged by a server that could not have had
// a majority at any moment while it was asked.
func ackedAlone(r *run) *suite.Failure {
	return r.answeredAlone("acknowledged-without-majority", "writes acknowledged without a majority", check.Operation.Acknowledged,
		func(op check.Operation) string {
			return fmt.Sprintf("%s told %s yes for %s at %s", op.Server, op.Client, op.Input, suite.FormatTime(op.Return))
		}, fmt.Sprintf("no majority of the %d servers could have held the write, so the yes was one side's opinion, not the cluster's agreement", len(r.pl.servers)))
}

// readAlone: no Latest read is answered by a server that could not have
// had a majority at any moment while it was asked.
func readAlone(r *run) *suite.Failure {
	return r.answeredAlone("read-without-majority", "Latest reads answered without a majority",
		func(op check.Operation) bool { return op.Input.Kind == check.KindRead && op.Completed() },
		func(op check.Operation) string {
			return fmt.Sprintf("%s answered %s's Latest read of %s at %s with %s", op.Server, op.Client, op.Input.Key, suite.FormatTime(op.Return), result(op))
		}, "a server that cannot reach a majority cannot know whether it is the one cut off, and a Latest read claims it knows")
}

// refusedAlone: no write is refused with a definite no (NotFound,
// AlreadyExists, Conflict), a claim about the latest state as much as a
// read is, by a server that could not have had a majority at any moment
// while it was asked (the sequencer included: the page promises
// Unavailable from every server without a majority).
func refusedAlone(r *run) *suite.Failure {
	return r.answeredAlone("read-without-majority", "writes refused with a definite no without a majority",
		func(op check.Operation) bool { return op.Input.Kind.Mutates() && op.Completed() && !op.Acknowledged() },
		func(op check.Operation) string {
			return fmt.Sprintf("%s refused %s's %s at %s with %s", op.Server, op.Client, op.Input, suite.FormatTime(op.Return), result(op))
		}, "a definite no says what the cluster holds now, as a Latest read does, and a server that cannot reach a majority cannot know it; it must say Unavailable")
}

// answeredAlone finds the operations that match and were answered by a
// server that could not have had a majority at any moment while it was
// asked, and tells the first: what its server did, that it had no
// majority, and why that breaks the promise.
func (r *run) answeredAlone(name, details string, match func(check.Operation) bool, did func(check.Operation) string, why string) *suite.Failure {
	var bad []check.Operation
	for _, op := range r.History.Operations() {
		if match(op) && !r.pl.majorityDuring(op.Call, op.Return, sim.NodeID(op.Server)) {
			bad = append(bad, op)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	lines := make([]string, len(bad))
	for i, op := range bad {
		lines[i] = "  " + op.String()
	}
	op := bad[0]
	return &suite.Failure{Name: name, Clause: course.AgreementFirst, At: op.Return,
		Story: fmt.Sprintf("%s, although from the request (%s) to the answer it was %s: %s",
			did(op), suite.FormatTime(op.Call), r.pl.cutOff(op.Call, sim.NodeID(op.Server)), why),
		Details: details + ":\n" + strings.Join(slices.Compact(lines), "\n")}
}

// listedAlone: no Latest list is answered by a server that could not have
// had a majority at any moment while it was asked. The history holds a list
// only as a read of each item it returned, so an empty list answered alone
// is found here or nowhere.
func listedAlone(r *run) *suite.Failure {
	for _, l := range r.latestLists() {
		if l.Err != nil || r.pl.majorityDuring(l.Call, l.Return, l.Server) {
			continue
		}
		story := fmt.Sprintf("%s answered %s's Latest list of %s at %s with %s, although from the request (%s) to the answer it was %s: "+
			"a server that cannot reach a majority cannot know whether it is the one cut off, and a Latest list claims it knows",
			l.Server, l.Client, kindOf(l), suite.FormatTime(l.Return), listResult(l), suite.FormatTime(l.Call), r.pl.cutOff(l.Call, l.Server))
		return &suite.Failure{Name: "read-without-majority", Clause: course.AgreementFirst, Story: story, At: l.Return}
	}
	return nil
}

// listedUnconfirmed: no Latest list is answered with the history before
// its first change (no items, rv 0) once a write was acknowledged before
// it was asked. No copy a majority confirmed is that empty: the server
// answered a list it could not confirm, where Unavailable belonged (an
// error dropped on its way to the client). It is told ahead of the stale
// read such a list also is, by what the server did: how long it took, and
// the write it answered as though never made.
func listedUnconfirmed(r *run) *suite.Failure {
	for _, l := range r.latestLists() {
		if list, ok := l.Reply.(kube.List); l.Err != nil || !ok || list.ResourceVersion != 0 || len(list.Items) != 0 {
			continue
		}
		for _, w := range r.History.Operations() {
			if !w.Acknowledged() || !w.Input.Kind.Mutates() || w.Return >= l.Call {
				continue
			}
			story := fmt.Sprintf("%s answered %s's Latest list of %s, asked at %s, at %s (%s later) with an empty list at rv 0, the history before its first change, "+
				"though %s's %s through %s had been acknowledged at rv %d at %s: no majority confirmed that list, or it would reach rv %d. "+
				"%s answered a Latest list it could not confirm; a server that cannot confirm a Latest read in time says Unavailable",
				l.Server, l.Client, kindOf(l), suite.FormatTime(l.Call), suite.FormatTime(l.Return), suite.FormatTime(l.Return-l.Call),
				w.Client, w.Input, w.Server, w.Result.Version, suite.FormatTime(w.Return), w.Result.Version, l.Server)
			return &suite.Failure{Name: "read-without-majority", Clause: course.AgreementFirst, Story: story, At: l.Return,
				Details: "the write the list answered as though never made:\n  " + w.String()}
		}
	}
	return nil
}

// claimedUnheld: no server tells the sequencer it holds more of the
// history than it does. Its answer to an Append (an int64, the changes it
// holds) is counted toward the majority that commits a change, and the
// sequencer sends it only what comes after: a server that answers with
// what it was sent rather than what it took counts toward majorities it is
// not part of, and is never sent what it lacks. A history only grows
// between restarts, so an answer above what the server holds at the audit,
// with no crash between, claimed changes it never held.
func claimedUnheld(r *run) *suite.Failure {
	for _, e := range r.W.Trace().Events() {
		if e.Kind != sim.EvReply || e.Peer != sequencer || e.Node == sequencer || !r.IsServer(e.Node) {
			continue
		}
		said, ok := e.Msg.(int64)
		h, audited := r.Histories[string(e.Node)]
		if !ok || !audited || said <= int64(len(h)) || r.pl.crashedDuring(e.At, r.AuditedAt, e.Node) {
			continue
		}
		return &suite.Failure{Name: "claimed-changes-it-lacks", Clause: course.AgreementFirst, At: e.At,
			Story: fmt.Sprintf("%s told the sequencer at %s, answering its Append, that it held %d changes of the history, but it never held more than %d: "+
				"at the audit (%s), with no restart since, its history ends at rv %d. The sequencer counts that answer toward the majority that commits a change, "+
				"and sends %s only what comes after what it says it holds: a server answers with what it holds, not with what it was sent",
				e.Node, suite.FormatTime(e.At), said, len(h), suite.FormatTime(r.AuditedAt), len(h), e.Node)}
	}
	return nil
}

// slowAnswer: every write and Latest read is answered within the bound,
// unless the server crashed while it was asked: a crashed server answers
// nothing.
func slowAnswer(r *run) *suite.Failure {
	for _, op := range r.History.Operations() {
		took := op.Return - op.Call
		if op.Result.Outcome != check.Pending && took > bound && !r.pl.crashedDuring(op.Call, op.Call+bound, sim.NodeID(op.Server)) {
			f := late(op.Client, op.Server, op.Input.String(), op.Call, waited(result(op), op.Result.Outcome == check.Indefinite && took >= clientTimeout, took), r.pl.slowTo(op.Call, sim.NodeID(op.Server)))
			f.Details = "the request:\n  " + op.String()
			return f
		}
	}
	for _, l := range r.latestLists() {
		if took := l.Return - l.Call; took > bound && !r.pl.crashedDuring(l.Call, l.Call+bound, l.Server) {
			return late(l.Client, string(l.Server), "list "+kindOf(l), l.Call, waited(listResult(l), took >= clientTimeout, took), r.pl.slowTo(l.Call, l.Server))
		}
	}
	return nil
}

// late tells of a request answered after the bound, or not at all. slow is
// the slow link between its server and the sequencer at the request, if
// one was: then the server had its majority all along, and what broke the
// promise is a budget that did not run from the request's arrival.
func late(client, server, what string, call time.Duration, how string, slow *scene.SlowLink) *suite.Failure {
	story := fmt.Sprintf("%s asked %s (%s) at %s and %s: a server that cannot get a majority must say Unavailable within %s, never keep its client waiting",
		client, server, what, suite.FormatTime(call), how, bound)
	if slow != nil {
		story = fmt.Sprintf("%s asked %s (%s) at %s and %s, while every message between %s and the sequencer took %s (%s). "+
			"A server's budget runs from the moment a request arrives, whatever it then waits for (the sequencer's confirmation, the Appends that catch it up): "+
			"once it is spent the answer is Unavailable, within %s, never a client kept waiting",
			client, server, what, suite.FormatTime(call), how, server, describeLink(slow.Link), slow, bound)
	}
	return &suite.Failure{Name: "no-answer-in-time", Clause: course.AgreementFirst, At: call + bound, Story: story}
}

// waited says how a late answer came, as a wait and not an instant:
// "heard nothing for 2000ms, when it gave up", "heard Unavailable only
// 1200ms later".
func waited(heard string, gaveUp bool, took time.Duration) string {
	if gaveUp {
		return fmt.Sprintf("heard nothing for %s, when it gave up", suite.FormatTime(took))
	}
	return fmt.Sprintf("heard %s only %s later", heard, suite.FormatTime(took))
}

// anyReadRefused: every Any read is answered (found or not found) within
// the bound, unless the server crashed while it was asked.
func anyReadRefused(r *run) *suite.Failure {
	for _, a := range r.Requests.All() {
		read, isAny := anyRead(a)
		if !isAny || r.pl.crashedDuring(a.Call, a.Call+bound, a.Server) {
			continue
		}
		if took := a.Return - a.Call; took > bound || refused(a.Err) {
			how := fmt.Sprintf("got %v after %s", a.Err, suite.FormatTime(took))
			if a.Err == nil {
				how = "waited " + suite.FormatTime(took)
			}
			story := fmt.Sprintf("%s %s from %s with resourceVersion \"0\" at %s and %s: an Any read asks for whatever the server holds, and a server cut off from the others still holds something",
				a.Client, read, a.Server, suite.FormatTime(a.Call), how)
			return &suite.Failure{Name: "stale-read-refused", Clause: course.AgreementFirst, Story: story, At: a.Return}
		}
	}
	return nil
}

// unclearRefusal: a write or a Latest read refused in time is refused with
// kube.Unavailable (the client's own timeout is slowAnswer's to judge).
func unclearRefusal(r *run) *suite.Failure {
	for _, u := range r.Requests.All() {
		if _, isAny := anyRead(u); isAny || !refused(u.Err) || errors.Is(u.Err, kube.ErrUnavailable) ||
			errors.Is(u.Err, kube.ErrTimeout) && u.Return-u.Call >= clientTimeout {
			continue
		}
		story := fmt.Sprintf("%s asked %s (%s) at %s and got %q at %s: a server that cannot get a majority says so with kube.Unavailable (500), so that a client knows to wait and retry rather than guess what went wrong",
			u.Client, u.Server, what(u.Ask), suite.FormatTime(u.Call), u.Err.Error(), suite.FormatTime(u.Return))
		return &suite.Failure{Name: "unclear-refusal", Clause: course.AgreementFirst, Story: story, At: u.Return}
	}
	return nil
}

// listResult is what a Latest list came to: "3 items (rv 7)", "Unavailable".
func listResult(q kube.Request) string {
	if q.Err != nil {
		return reason(q.Err)
	}
	l, _ := q.Reply.(kube.List)
	return fmt.Sprintf("%d items (rv %d)", len(l.Items), l.ResourceVersion)
}

// latestLists are the Latest lists the controllers made. The history holds
// a list only as a read of each item it returned, so a list that came back
// empty, late or refused is found here or nowhere.
func (r *run) latestLists() []kube.Request {
	return slices.DeleteFunc(kube.Of[kube.ListRequest](r.Requests), func(q kube.Request) bool { return !q.Latest() })
}

// kindOf is the kind a list asked for.
func kindOf(q kube.Request) string { return q.Ask.(kube.ListRequest).Kind }

// anyRead says what an Any read ("0") read, "read deployments/web" or
// "listed deployments", and whether q is one: it promises no freshness,
// but the chapter promises an answer.
func anyRead(q kube.Request) (string, bool) {
	switch a := q.Ask.(type) {
	case kube.GetRequest:
		return "read " + a.Key, !q.Latest()
	case kube.ListRequest:
		return "listed " + a.Kind, !q.Latest()
	}
	return "", false
}

// result is what an operation came to, in a word or a value: "replicas=5
// (rv 2)", "ok (rv 3)", "not-found", "indefinite".
func result(op check.Operation) string {
	r := op.Result
	switch {
	case r.Outcome == check.OK && op.Input.Kind == check.KindRead:
		return fmt.Sprintf("replicas=%v (rv %d)", r.Value, r.Version)
	case r.Outcome == check.OK:
		return fmt.Sprintf("yes (rv %d)", r.Version)
	case r.Outcome == check.Indefinite:
		return "Unavailable or no answer"
	}
	return r.Outcome.String()
}

// converged: once every fault has healed, every server that is up holds
// the same objects. A world whose sequencer is gone promises nothing here.
func converged(r *run) *suite.Failure {
	if !r.pl.up(r.AuditedAt, sequencer) {
		return nil
	}
	v := check.Converged(r.States, r.AuditedAt)
	if v == nil {
		return nil
	}
	// The most specific cause: a server that never caught up.
	if id, story := r.behind(); id != "" {
		v.Story = story + " " + strings.ToUpper(v.Story[:1]) + v.Story[1:]
	}
	return scene.Violated(v)
}

// caughtUp: once every fault has healed, every server that is up holds the
// one history whole, as the page asks of a server that was cut off or
// restarted with its memory gone. Objects alone can hide a server that
// never caught up: once every object is deleted, an empty server holds the
// same none. It is judged last, when nothing that server did had shown.
func caughtUp(r *run) *suite.Failure {
	if !r.pl.up(r.AuditedAt, sequencer) {
		return nil
	}
	id, story := r.behind()
	if id == "" {
		return nil
	}
	return &suite.Failure{Name: "no-convergence", Clause: course.DurableAgreement, At: r.AuditedAt,
		Story: story + " Its objects happen to agree with the others' (what it misses ends with the objects as it holds them), yet it does not hold the one history, and a server that was cut off or restarted must catch up to it"}
}

// restartedBehind: a server that restarted with its memory gone, and came
// back while the sequencer was up, holds the one history whole by the
// audit. It is told ahead of what such a server does next (Latest reads
// refused while the cluster is calm, objects that differ): the cause is
// that the sequencer never sent it what it lost. The story names the
// restart, how long the server has been back, how much it holds, and what
// it told the sequencer since: a sequencer that sends a server the history
// from where it was before the crash, or from its own count of what it
// sent, rather than from where the server says it is, leaves it behind
// for good.
func restartedBehind(r *run) *suite.Failure {
	if !r.pl.up(r.AuditedAt, sequencer) {
		return nil
	}
	longest := len(r.Longest())
	for _, id := range r.Servers {
		h, ok := r.Histories[string(id)]
		crash, restarted := r.pl.lastRestart(id, r.AuditedAt)
		if !ok || !restarted || len(h) >= longest || id == sequencer {
			continue
		}
		back := crash.At + crash.For
		told := ""
		var answers int
		var last sim.Event
		for _, e := range r.W.Trace().Events() {
			if e.Kind == sim.EvReply && e.Node == id && e.Peer == sequencer && e.At >= back && e.At <= r.AuditedAt {
				if _, isPos := e.Msg.(int64); isPos {
					answers++
					last = e
				}
			}
		}
		if answers > 0 {
			told = fmt.Sprintf(" Since it came back it answered the sequencer %d times, the last at %s, that it held %d changes; the sequencer never sent it the changes from there. ",
				answers, suite.FormatTime(last.At), last.Msg.(int64))
		} else {
			told = " "
		}
		since := suite.FormatTime(r.AuditedAt-back) + " after it came back"
		if healed := r.pl.healed(); healed > back {
			since += " and " + suite.FormatTime(r.AuditedAt-healed) + " after the last fault ended"
		}
		return &suite.Failure{Name: "left-behind", Clause: course.DurableAgreement, At: r.AuditedAt,
			Story: fmt.Sprintf("%s restarted at %s with its memory gone (%s) and never caught up: at the audit (%s), %s, it holds %d of the %d changes of the one history.%s"+
				"A server that restarted empty must be sent the history from where it says it is, not from where it was before the crash nor from a count of what was sent it, or it stays behind for good, and refuses every Latest read through it",
				id, suite.FormatTime(back), crash, suite.FormatTime(r.AuditedAt), since, len(h), longest, told)}
	}
	return nil
}

// behind finds the first server whose history at the audit is shorter than
// the one history, and says so: "server-3 never caught up: ...".
func (r *run) behind() (sim.NodeID, string) {
	longest := len(r.Longest())
	for _, id := range r.Servers {
		if h, ok := r.Histories[string(id)]; ok && len(h) < longest {
			return id, fmt.Sprintf("%s never caught up: at %s it holds %d of the %d changes of the one history, although the last fault ended at %s.",
				id, suite.FormatTime(r.AuditedAt), len(h), longest, suite.FormatTime(r.pl.healed()))
		}
	}
	return "", ""
}

// refusedWhileCalm: every write and Latest read asked at a calm moment (no
// fault from settle before to bound after) is answered yes, or with a
// definite no (NotFound, AlreadyExists, Conflict). The story says when the
// refusal came, and, for a read, how far the one history had been
// acknowledged before it was asked: all the server had to hold to answer.
func refusedWhileCalm(r *run) *suite.Failure {
	for _, op := range r.History.Operations() {
		if r.pl.calm(op.Call) && !op.Completed() {
			owed := ""
			if op.Input.Kind == check.KindRead {
				owed = r.owed(op.Call, op.Return, op.Server)
			}
			f := refusedCalm(op.Client, op.Server, op.Input.String(), result(op), op.Call, op.Return, r.silence(sim.NodeID(op.Server), op.Call, op.Return)+owed)
			f.Details = "the request:\n  " + op.String()
			return f
		}
	}
	for _, l := range r.latestLists() {
		if r.pl.calm(l.Call) && refused(l.Err) {
			return refusedCalm(l.Client, string(l.Server), "list "+kindOf(l), listResult(l), l.Call, l.Return, r.silence(l.Server, l.Call, l.Return)+r.owed(l.Call, l.Return, string(l.Server)))
		}
	}
	return nil
}

// silence says what the sequencer did with what server asked of it while
// server answered a client's request, from call to ret: a call it left
// unanswered ("server-3 asked the sequencer server-1 (ex07.Confirm) at
// 312ms and heard nothing back: it gave up at 562ms. "), or an answer that
// refused ("The sequencer server-1 answered server-2 at 340ms with
// "Unavailable ..."). "), or, when it answered, that it had sent server
// nothing for longer than settle before the answer (the changes server
// waited for never came). It is "" when server is the sequencer, or heard
// a yes to everything it asked and was sent the history meanwhile.
func (r *run) silence(server sim.NodeID, call, ret time.Duration) string {
	if server == sequencer {
		return r.heard(call, ret)
	}
	events := r.W.Trace().Events()
	for i, e := range events {
		if e.At < call || e.At > ret || e.Node != server || e.Peer != sequencer {
			continue
		}
		switch {
		case e.Kind == sim.EvTimeout:
			sent := call
			for j := i - 1; j >= 0 && events[j].At >= call; j-- {
				if s := events[j]; s.Kind == sim.EvSend && s.Node == server && s.Peer == sequencer && reflect.DeepEqual(s.Msg, e.Msg) {
					sent = s.At
					break
				}
			}
			return fmt.Sprintf("%s asked the sequencer %s (%s) at %s and heard nothing back: it gave up at %s. ",
				server, sequencer, sim.TypeName(e.Msg), suite.FormatTime(sent), suite.FormatTime(e.At))
		case e.Kind == sim.EvRecvReply && e.Err != nil:
			return fmt.Sprintf("The sequencer %s answered %s at %s with %q. ", sequencer, server, suite.FormatTime(e.At), e.Err.Error())
		}
	}
	// The sequencer answered; did it send server anything meanwhile? A
	// silence that began before the request and ended only about when
	// server gave up (or never) is what server waited on.
	var last *sim.Event
	next := ret
	for i, e := range events {
		if e.Kind != sim.EvSend || e.Node != sequencer || e.Peer != server {
			continue
		}
		if e.At <= call {
			last = &events[i]
		} else {
			next = e.At
			break
		}
	}
	if last != nil && next-last.At > settle && next > ret-50*time.Millisecond {
		until := "until after the answer"
		if next < ret {
			until = "until " + suite.FormatTime(next)
		}
		return fmt.Sprintf("The sequencer %s sent %s nothing from %s (the %s it last sent before the request) %s: %s waited for the changes it lacked, and they came too late. ",
			sequencer, server, suite.FormatTime(last.At), sim.TypeName(last.Msg), until, server)
	}
	return ""
}

// heard says which servers answered the sequencer, and how often, while it
// worked on a request it then refused, from call to ret ("Meanwhile
// server-2 answered the sequencer 6 times, the last at 1880.2ms: with the
// sequencer that is 2 of 3 servers, a majority it did not wait for, or did
// not count. "), or "" when no majority answered.
func (r *run) heard(call, ret time.Duration) string {
	count := map[sim.NodeID]int{}
	last := map[sim.NodeID]time.Duration{}
	for _, e := range r.W.Trace().Events() {
		if e.At < call || e.At > ret || e.Node != sequencer || e.Kind != sim.EvRecvReply || e.Err != nil || !r.IsServer(e.Peer) {
			continue
		}
		count[e.Peer]++
		last[e.Peer] = e.At
	}
	var said []string
	for _, id := range r.Servers {
		if count[id] > 0 {
			times := fmt.Sprintf("%d times, the last at %s", count[id], suite.FormatTime(last[id]))
			if count[id] == 1 {
				times = "once, at " + suite.FormatTime(last[id])
			}
			said = append(said, fmt.Sprintf("%s answered the sequencer %s", id, times))
		}
	}
	if len(said)+1 < r.pl.majority() {
		return ""
	}
	return fmt.Sprintf("Meanwhile %s: with the sequencer that is %d of %d servers, a majority it did not wait for, or did not count. ",
		strings.Join(said, "; "), len(said)+1, len(r.Servers))
}

// refusedCalm tells of a request refused while the cluster was calm, and
// what its server owed (owed).
func refusedCalm(client, server, what, heard string, call, ret time.Duration, owed string) *suite.Failure {
	return &suite.Failure{Name: "refused-while-healthy", Clause: course.AgreementFirst, At: ret,
		Story: fmt.Sprintf("%s asked %s (%s) at %s, with every server up and connected since %s before and none cut off for %s after, "+
			"and heard %s at %s, %s after asking. %sA cluster that keeps one history by refusing everything keeps nothing",
			client, server, what, suite.FormatTime(call), settle, bound, heard, suite.FormatTime(ret), suite.FormatTime(ret-call), owed)}
}

// owed says how much of the one history a Latest read asked of server at
// call, and refused at ret, had to show: every write acknowledged before
// call. "Before it asked, the cluster had acknowledged writes up to rv 27
// (the last, write deployments/web=27 from controller-c at 399.1ms):
// server-3 had only to hold that much of the one history, and 977ms of its
// 1s left to catch up. ", or "" when no write had been acknowledged.
func (r *run) owed(call, ret time.Duration, server string) string {
	var last check.Operation
	found := false
	for _, op := range r.History.Operations() {
		if op.Input.Kind.Mutates() && op.Acknowledged() && op.Return < call && (!found || op.Result.Version > last.Result.Version) {
			last, found = op, true
		}
	}
	if !found {
		return ""
	}
	left := "."
	if took := ret - call; took < bound {
		left = fmt.Sprintf(", and %s of its %s left to catch up.", suite.FormatTime(bound-took), bound)
	}
	return fmt.Sprintf("Before it asked, the cluster had acknowledged writes up to rv %d (the last, %s from %s at %s): %s had only to hold that much of the one history%s ",
		last.Result.Version, last.Input, last.Client, suite.FormatTime(last.Return), server, left)
}

// staleRead: a Latest read, a get or a list, shows every write acknowledged
// before it was asked, as the page promises: an object at a resourceVersion
// older than a write to it the cluster had already acknowledged, or no
// object where an acknowledged write had put one and no delete since can
// have taken it away, is a stale read. The story names the read, the server
// that answered it, the write it missed, and how much of its bound the
// server had left: a server that answers before it holds the committed
// position answers from a copy that is behind.
func staleRead(r *run) *suite.Failure {
	writes := map[string][]check.Operation{} // by key, every write that may change it
	var written []string                     // the keys, in the order first written
	for _, op := range r.History.Operations() {
		if key := op.Input.Key; op.Input.Kind.Mutates() {
			if writes[key] == nil {
				written = append(written, key)
			}
			writes[key] = append(writes[key], op)
		}
	}
	for _, q := range r.Requests.All() { // in the order they were answered
		if !q.Latest() || q.Err != nil && !errors.Is(q.Err, kube.ErrNotFound) {
			continue
		}
		keys := written
		if g, ok := q.Ask.(kube.GetRequest); ok {
			keys = []string{g.Key}
		}
		for _, key := range keys {
			if kind, _ := kube.SplitKey(key); !isGet(q) && kind != kindOf(q) {
				continue
			}
			rv, found := showed(q, key)
			w, ok := missed(writes[key], q, rv, found)
			if !ok {
				continue
			}
			read, shown, from := "Latest read of "+short(key), "no "+short(key), fmt.Sprintf("%s answered as though rv %d had not happened", q.Server, w.Result.Version)
			if o, isGet := q.Reply.(kube.Object); isGet && found {
				shown, from = fmt.Sprintf("replicas=%d (rv %d)", o.Replicas, rv), fmt.Sprintf("%s answered from a copy that did not yet hold rv %d", q.Server, w.Result.Version)
			}
			if l, isList := q.Reply.(kube.List); isList {
				read, shown = "Latest list of "+kindOf(q), fmt.Sprintf("%s (the list at rv %d)", shown, l.ResourceVersion)
				if found {
					shown = fmt.Sprintf("%s at rv %d (the list at rv %d)", short(key), rv, l.ResourceVersion)
				}
				from = fmt.Sprintf("%s answered from its copy at rv %d, which did not yet hold rv %d", q.Server, l.ResourceVersion, w.Result.Version)
				if l.ResourceVersion == 0 && len(l.Items) == 0 {
					from = fmt.Sprintf("%s answered with no history at all", q.Server)
				}
			}
			left := ""
			if took := q.Return - q.Call; took < bound {
				left = fmt.Sprintf(", %s after the question, with %s of its %s left to catch up", suite.FormatTime(took), suite.FormatTime(bound-took), bound)
			}
			story := fmt.Sprintf("%s's %s through %s, asked at %s, was answered at %s with %s, but %s's %s through %s had been acknowledged at rv %d at %s, before the read was asked: "+
				"%s%s. A Latest read shows every write acknowledged before it began",
				q.Client, read, q.Server, suite.FormatTime(q.Call), suite.FormatTime(q.Return), shown, w.Client, w.Input, w.Server, w.Result.Version, suite.FormatTime(w.Return),
				from, left)
			return &suite.Failure{Name: "stale-read", Clause: course.OneHistory, Story: story, At: q.Return,
				Details: "the write the read missed:\n  " + w.String()}
		}
	}
	return nil
}

// isGet reports whether q is a get, not a list.
func isGet(q kube.Request) bool {
	_, ok := q.Ask.(kube.GetRequest)
	return ok
}

// showed is what a Latest read showed of key: the object's resourceVersion,
// and whether there was one.
func showed(q kube.Request, key string) (rv int64, found bool) {
	switch reply := q.Reply.(type) {
	case kube.Object:
		return reply.ResourceVersion, q.Err == nil
	case kube.List:
		for _, o := range reply.Items {
			if o.Key() == key {
				return o.ResourceVersion, true
			}
		}
	}
	return 0, false
}

// missed finds, among writes (every write to one key), the one a read
// showing rv (or, if !found, nothing) missed: the last acknowledged before
// the read was asked, if the read shows an older version of the key, or
// shows no object where that write left one and no delete asked before the
// answer can have removed it.
func missed(writes []check.Operation, q kube.Request, rv int64, found bool) (check.Operation, bool) {
	var last check.Operation
	for _, op := range writes {
		if op.Acknowledged() && op.Return < q.Call && op.Result.Version > last.Result.Version {
			last = op
		}
	}
	switch {
	case last.Result.Version == 0:
		return last, false
	case found:
		return last, rv < last.Result.Version
	case last.Input.Kind == check.KindDelete:
		return last, false
	}
	for _, d := range writes {
		if d.Input.Kind == check.KindDelete && d.Call < q.Return &&
			(d.Acknowledged() && d.Result.Version > last.Result.Version || !d.Result.Outcome.Definite() && d.Result.Outcome != check.Refused) {
			return last, false // a delete that may have come after it
		}
	}
	return last, true
}

// appendedTwice: no server holds one change of the one history twice. A
// server handed a stretch of the history it already holds (the sequencer
// sends it again when an answer was lost or came late) skips what it has; a
// server that appends it again numbers that change, and every change after
// it, one position off, and its history parts from the others' for good.
// It is told when the server holds the change where the sequencer does
// and again later: the story names the server, the change and its writer,
// both positions, and what the sequencer holds at the second. A first copy
// out of place (appended past a gap) is splitBrain's to tell, and when
// every server holds the same repeat, appliedTwice tells it: the sequencer
// ordered it twice.
func appendedTwice(r *run) *suite.Failure {
	parted := check.OneHistory(r.Histories)
	if parted == nil {
		return nil
	}
	for _, id := range r.Servers {
		h := r.Histories[string(id)]
		for first, i := range scene.Repeats(h) {
			c := h[i]
			other := sequencer
			if id == sequencer {
				other = r.Servers[1]
			}
			if o := r.Histories[string(other)]; first >= len(o) || !o[first].Equal(h[first]) {
				continue // the first copy is out of place, not a copy held twice
			}
			there := fmt.Sprintf("which %s's history does not reach", other)
			if o := r.Histories[string(other)]; i < len(o) {
				there = fmt.Sprintf("where %s holds %s", other, r.describeChange(o[i]))
			}
			when := r.AuditedAt
			if op, ok := r.writer(c); ok && op.Result.Outcome != check.Pending {
				when = op.Return
			}
			return &suite.Failure{Name: "appended-twice", Clause: course.DurableAgreement, At: when,
				Story: fmt.Sprintf("%s appended one change twice: it holds %s at rv %d and again at rv %d, %s. "+
					"A server handed a stretch of the history it already holds (sent again when an answer was lost or came late) must skip what it has: "+
					"appending it again numbers that change, and every change after it, one position off, and its history parts from the one history for good",
					id, r.describeChange(c), first+1, i+1, there),
				Details: parted.Details}
		}
	}
	return nil
}
