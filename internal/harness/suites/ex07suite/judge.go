package ex07suite

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
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
	op := bad[0]
	return &suite.Failure{Name: name, Clause: course.AgreementFirst, At: op.Return,
		Story: fmt.Sprintf("%s, although from the request (%s) to the answer it was %s: %s",
			did(op), suite.FormatTime(op.Call), r.pl.cutOff(op.Call, sim.NodeID(op.Server)), why),
		Details: details + ":\n" + opLines(bad)}
}

// listedAlone: no Latest list is answered by a server that could not have
// had a majority at any moment while it was asked. The history holds a list
// only as a read of each item it returned, so an empty list answered alone
// is found here or nowhere.
func listedAlone(r *run) *suite.Failure {
	for _, l := range r.rec.lists {
		if l.err != nil || r.pl.majorityDuring(l.call, l.ret, sim.NodeID(l.server)) {
			continue
		}
		story := fmt.Sprintf("%s answered %s's Latest list of %s at %s with %d items (rv %d), although from the request (%s) to the answer it was %s: "+
			"a server that cannot reach a majority cannot know whether it is the one cut off, and a Latest list claims it knows",
			l.server, l.client, l.kind, suite.FormatTime(l.ret), l.items, l.rv,
			suite.FormatTime(l.call), r.pl.cutOff(l.call, sim.NodeID(l.server)))
		return &suite.Failure{Name: "read-without-majority", Clause: course.AgreementFirst, Story: story, At: l.ret}
	}
	return nil
}

// lostWrite: every acknowledged write is in the longest history left.
func lostWrite(r *run) *suite.Failure {
	return scene.Violated(check.Durable(r.History, r.Longest()))
}

// slowAnswer: every write and Latest read is answered within the bound,
// unless the server crashed while it was asked: a crashed server answers
// nothing.
func slowAnswer(r *run) *suite.Failure {
	for _, op := range r.History.Operations() {
		if r.pl.crashedDuring(op.Call, op.Call+bound, sim.NodeID(op.Server)) {
			continue
		}
		if took := op.Return - op.Call; op.Result.Outcome != check.Pending && took > bound {
			story := fmt.Sprintf("%s asked %s (%s) at %s and %s: a server that cannot get a majority must say Unavailable within %s, never keep its client waiting",
				op.Client, op.Server, op.Input, suite.FormatTime(op.Call), answered(op, took), bound)
			return &suite.Failure{Name: "no-answer-in-time", Clause: course.AgreementFirst, Story: story, At: op.Call + bound,
				Details: "the request:\n  " + op.String()}
		}
	}
	for _, l := range r.rec.lists {
		if r.pl.crashedDuring(l.call, l.call+bound, sim.NodeID(l.server)) {
			continue
		}
		if took := l.ret - l.call; took > bound {
			how := fmt.Sprintf("heard %s only after %s", listResult(l), suite.FormatTime(took))
			if took >= clientTimeout {
				how = fmt.Sprintf("heard nothing for %s, when it gave up", suite.FormatTime(took))
			}
			story := fmt.Sprintf("%s asked %s (list %s) at %s and %s: a server that cannot get a majority must say Unavailable within %s, never keep its client waiting",
				l.client, l.server, l.kind, suite.FormatTime(l.call), how, bound)
			return &suite.Failure{Name: "no-answer-in-time", Clause: course.AgreementFirst, Story: story, At: l.call + bound}
		}
	}
	return nil
}

// anyReadRefused: every Any read is answered (found or not found) within
// the bound, unless the server crashed while it was asked.
func anyReadRefused(r *run) *suite.Failure {
	for _, a := range r.rec.anyReads {
		if r.pl.crashedDuring(a.call, a.call+bound, sim.NodeID(a.server)) {
			continue
		}
		if took := a.ret - a.call; took > bound || refused(a.err) {
			how := fmt.Sprintf("got %v after %s", a.err, suite.FormatTime(took))
			if a.err == nil {
				how = "waited " + suite.FormatTime(took)
			}
			story := fmt.Sprintf("%s %s from %s with resourceVersion \"0\" at %s and %s: an Any read asks for whatever the server holds, and a server cut off from the others still holds something",
				a.client, a.what, a.server, suite.FormatTime(a.call), how)
			return &suite.Failure{Name: "stale-read-refused", Clause: course.AgreementFirst, Story: story, At: a.ret}
		}
	}
	return nil
}

// unclearRefusal: a refusal in time is kube.Unavailable.
func unclearRefusal(r *run) *suite.Failure {
	for _, u := range r.rec.unclear {
		story := fmt.Sprintf("%s asked %s (%s) at %s and got %q at %s: a server that cannot get a majority says so with kube.Unavailable (500), so that a client knows to wait and retry rather than guess what went wrong",
			u.client, u.server, u.what, suite.FormatTime(u.call), u.err.Error(), suite.FormatTime(u.ret))
		return &suite.Failure{Name: "unclear-refusal", Clause: course.AgreementFirst, Story: story, At: u.ret}
	}
	return nil
}

// listResult is what a Latest list came to: "3 items (rv 7)", "Unavailable".
func listResult(l listRead) string {
	if l.err != nil {
		return reason(l.err)
	}
	return fmt.Sprintf("%d items (rv %d)", l.items, l.rv)
}

func answered(op check.Operation, took time.Duration) string {
	if op.Result.Outcome == check.Indefinite && took >= clientTimeout {
		return fmt.Sprintf("heard nothing for %s, when it gave up", suite.FormatTime(took))
	}
	return fmt.Sprintf("heard %s only after %s", result(op), suite.FormatTime(took))
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
		v.Story = story + " " + upperFirst(v.Story)
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

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
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
			story := fmt.Sprintf("%s asked %s (%s) at %s, with every server up and connected since %s before and none cut off for %s after, and heard %s %s. %s"+
				"A cluster that keeps one history by refusing everything keeps nothing",
				op.Client, op.Server, op.Input, suite.FormatTime(op.Call), settle, bound, result(op),
				when(op.Call, op.Return), owed)
			return &suite.Failure{Name: "refused-while-healthy", Clause: course.AgreementFirst, Story: story, At: op.Return,
				Details: "the request:\n  " + op.String()}
		}
	}
	for _, l := range r.rec.lists {
		if r.pl.calm(l.call) && refused(l.err) {
			story := fmt.Sprintf("%s asked %s (list %s) at %s, with every server up and connected since %s before and none cut off for %s after, and heard %s %s. %s"+
				"A cluster that keeps one history by refusing everything keeps nothing",
				l.client, l.server, l.kind, suite.FormatTime(l.call), settle, bound, listResult(l),
				when(l.call, l.ret), r.owed(l.call, l.ret, l.server))
			return &suite.Failure{Name: "refused-while-healthy", Clause: course.AgreementFirst, Story: story, At: l.ret}
		}
	}
	return nil
}

// when says when an answer came: "at 412.3ms, 12.6ms after asking".
func when(call, ret time.Duration) string {
	return fmt.Sprintf("at %s, %s after asking", suite.FormatTime(ret), suite.FormatTime(ret-call))
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

func opLines(ops []check.Operation) string {
	lines := make([]string, len(ops))
	for i, op := range ops {
		lines[i] = "  " + op.String()
	}
	return strings.Join(slices.Compact(lines), "\n")
}
