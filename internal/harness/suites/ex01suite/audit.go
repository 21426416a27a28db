package ex01suite

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The auditor stands between the API server and the store in every check:
// each request the server hands the store is asked, at the same virtual
// instant, of the reference history (kube.MemStore, fed the same writes in
// the same order), and the first answer of each kind that differs is kept.
// A check that sees its scene go wrong (a cache that still holds a deleted
// pod) then names the answer that caused it (a deletion delivered as a
// modification) rather than the symptom.

// auditor serves a store and compares its every answer with the reference's.
type auditor struct {
	store kube.Storage
	ref   *kube.MemStore
	// diverged is set once a write was answered differently: from then on
	// the store and the reference no longer hold the same history, and
	// nothing after is compared.
	diverged bool
	// found holds the first failure of each name.
	found map[string]*suite.Failure
	// accepted is when each change of the reference was accepted, by
	// resourceVersion.
	accepted map[int64]time.Duration
}

func newAuditor(store kube.Storage, retain int) *auditor {
	return &auditor{store: store, ref: kube.NewMemStore(retain), found: map[string]*suite.Failure{},
		accepted: map[int64]time.Duration{}}
}

// Serve is the API server's handler: the store answers, the auditor
// compares. A process on the server's own node calls it directly (a burst
// of writes no client could send as fast), audited like any request.
func (a *auditor) Serve(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	start := p.Now()
	resp, err := kube.Handler(a.store)(p, from, req)
	a.audit(p, start, string(from), req, resp, err)
	return resp, err
}

// precedence orders the failures the auditor can find, every name it
// notes, most specific first: a wrong write comes before anything read
// after it; a change a watch never delivered before one it delivered
// wrongly.
var precedence = []string{"lost-update", "false-conflict", "wrong-version", "missed-change", "not-gone", "needless-gone",
	"extra-change", "out-of-order-changes", "wrong-event-type", "late-change", "stale-list-version", "wrong-answer", "early-empty-watch",
	"overdue-empty-watch"}

// Finding returns the most specific failure found, or nil.
func (a *auditor) Finding() *suite.Failure {
	for _, name := range precedence {
		if f := a.found[name]; f != nil {
			return f
		}
	}
	return nil
}

// note keeps f unless a failure of its name was found before.
func (a *auditor) note(f *suite.Failure) {
	if a.found[f.Name] == nil {
		a.found[f.Name] = f
	}
}

// audit compares the store's answer to req, asked at start, with the
// reference's.
func (a *auditor) audit(p *sim.Proc, start time.Duration, who string, req any, got any, gotErr error) {
	if a.diverged || !kube.IsRequest(req) {
		return
	}
	at := p.Now()
	fail := func(name, story string) {
		lead := fmt.Sprintf("at %s (when %s answered) %s's %v", suite.FormatTime(at), server, who, req)
		a.note(&suite.Failure{Name: name, Clause: course.OneHistory, At: at, Story: lead + story,
			Details: fmt.Sprintf("%s answered:  %s\nhistory answers: %s", server, answer(got, gotErr), answer(a.refAnswer(p, req)))})
	}
	switch r := req.(type) {
	case kube.CreateRequest, kube.UpdateRequest, kube.DeleteRequest:
		a.auditWrite(p, req, got, gotErr, fail)
	case kube.GetRequest:
		want, wantErr := a.ref.Get(p, r.Key, r.Opts)
		if errKind(gotErr) != errKind(wantErr) || wantErr == nil && got != want {
			fail("wrong-answer", " "+says(got, gotErr, want, wantErr))
		}
	case kube.ListRequest:
		want, wantErr := a.ref.List(p, r.Kind, r.Opts)
		g, _ := got.(kube.List)
		switch {
		case errKind(gotErr) != errKind(wantErr) || wantErr == nil && !sameItems(g.Items, want.Items):
			fail("wrong-answer", " "+says(got, gotErr, want, wantErr))
		case wantErr != nil:
		case g.ResourceVersion < want.ResourceVersion:
			fail("stale-list-version", fmt.Sprintf(" was answered the right items at rv=%d, but the last accepted change is rv=%d: "+
				"a watch from the list's version replays changes the list already reflects", g.ResourceVersion, want.ResourceVersion))
		case g.ResourceVersion != want.ResourceVersion:
			fail("wrong-answer", fmt.Sprintf(" was answered a list at rv=%d, but the last accepted change is rv=%d", g.ResourceVersion, want.ResourceVersion))
		}
	case kube.WatchRequest:
		a.auditWatch(p, start, r, got, gotErr, fail)
	}
}

// refAnswer is the reference's answer to req now, for details; a write is
// answered as Propose would decide it, without applying it again, and a
// watch without waiting.
func (a *auditor) refAnswer(p *sim.Proc, req any) (any, error) {
	if kube.IsWrite(req) {
		return "(see above)", nil
	}
	if w, ok := req.(kube.WatchRequest); ok {
		w.Wait = 0
		req = w
	}
	return kube.Handler(a.ref)(p, "the auditor", req)
}

func (a *auditor) auditWrite(p *sim.Proc, req any, got any, gotErr error, fail func(name, story string)) {
	key, pre := target(req)
	stored := int64(0)
	if cur, err := a.ref.Get(p, key, kube.ReadOptions{}); err == nil {
		stored = cur.ResourceVersion
	}
	ev, changed, wantErr := a.ref.Propose(req)
	want := ev.Object
	if changed {
		a.ref.Apply(p, ev)
		a.accepted[want.ResourceVersion] = p.Now()
	}
	g, _ := got.(kube.Object)
	switch {
	case errors.Is(wantErr, kube.ErrConflict) && gotErr == nil:
		how := "older than"
		if pre > stored {
			how = "newer than"
		}
		fail("lost-update", fmt.Sprintf(" was accepted (answered %s), but its precondition rv=%d is %s the stored %s (rv=%d): "+
			"the write was based on a version that is not the stored one, and must be refused with Conflict (409)",
			answer(got, gotErr), pre, how, key, stored))
	case errors.Is(gotErr, kube.ErrConflict) && wantErr == nil:
		fail("false-conflict", fmt.Sprintf(" was refused with Conflict, but %s is stored at rv=%d, exactly its precondition "+
			"(or it gave none): the write must be accepted", key, stored))
	case errors.Is(gotErr, kube.ErrConflict) && errors.Is(wantErr, kube.ErrNotFound):
		fail("wrong-answer", fmt.Sprintf(" was refused with Conflict, but %s is not stored: there is no version to compare "+
			"its precondition rv=%d with, and the answer is NotFound (404), which tells the writer to stop rather than re-read and retry",
			key, pre))
	case errKind(gotErr) != errKind(wantErr):
		fail("wrong-answer", " "+says(got, gotErr, want, wantErr))
	case wantErr != nil:
		return // the same refusal: the history is unchanged on both sides
	case g != want && replaced(req, g):
		fail("wrong-version", fmt.Sprintf(" was answered %s, where the update sent %s: an update replaces the whole object with the one sent, "+
			"so the stored object holds what the writer sent, no field kept from before it nor left out (the history says %s)",
			answer(got, gotErr), req.(kube.UpdateRequest).Object, answer(want, wantErr)))
	case g != want && g.ResourceVersion == want.ResourceVersion:
		fail("wrong-version", fmt.Sprintf(" was answered %s; the history says %s: the version is right but the object is not, "+
			"and an accepted write answers with the object as the change left it (a deletion: as it was, with every field, "+
			"stamped with the deletion's resourceVersion)", answer(got, gotErr), answer(want, wantErr)))
	case g != want:
		fail("wrong-version", fmt.Sprintf(" was answered %s; the history says %s: every accepted change takes the next "+
			"resourceVersion (1, 2, 3, … across all objects), and a write that changes nothing takes none", answer(got, gotErr), answer(want, wantErr)))
	default:
		return
	}
	a.diverged = true
}

// replaced reports whether req is an update whose answer g holds other
// contents (replicas, owner) than the update sent: a field kept from the
// stored object, or one left out.
func replaced(req any, g kube.Object) bool {
	u, ok := req.(kube.UpdateRequest)
	return ok && g.Key() == u.Object.Key() && (g.Owner != u.Object.Owner || g.Replicas != u.Object.Replicas)
}

func (a *auditor) auditWatch(p *sim.Proc, start time.Duration, r kube.WatchRequest, got any, gotErr error, fail func(name, story string)) {
	want, wantErr := a.ref.Watch(p, r.Kind, r.ResourceVersion, 0)
	g, _ := got.([]kube.Event)
	switch {
	case errors.Is(wantErr, kube.ErrGone) && !errors.Is(gotErr, kube.ErrGone):
		fail("not-gone", " "+notGone(got, gotErr, r.ResourceVersion))
	case errors.Is(gotErr, kube.ErrGone) && wantErr == nil:
		fail("needless-gone", fmt.Sprintf(" was answered Gone, but the changes after rv %d are still retained (%s): "+
			"a watch from there misses nothing and must be answered with them", r.ResourceVersion, events(want)))
	case errKind(gotErr) != errKind(wantErr):
		fail("wrong-answer", " "+says(got, gotErr, want, wantErr))
	}
	if gotErr != nil || wantErr != nil {
		return
	}
	byRV := map[int64]kube.Event{}
	for _, ev := range want {
		byRV[ev.Object.ResourceVersion] = ev
	}
	// Each thing wrong with the reply is noted; the precedence picks.
	last, delivered := int64(0), map[int64]bool{}
	for _, ev := range g {
		rv := ev.Object.ResourceVersion
		w, ok := byRV[rv]
		switch {
		case !ok || delivered[rv]:
			why := "which is not a change to " + r.Kind + " after rv " + fmt.Sprint(r.ResourceVersion)
			if ok {
				why = "a second time"
			}
			fail("extra-change", fmt.Sprintf(" was answered %s: it delivered %s, %s; the history after rv %d holds %s",
				events(g), events([]kube.Event{ev}), why, r.ResourceVersion, events(want)))
			continue
		case rv < last:
			fail("out-of-order-changes", fmt.Sprintf(" was answered %s: it delivered %s after rv %d; the history holds them oldest first: %s",
				events(g), events([]kube.Event{ev}), last, events(want)))
			delivered[rv] = true
			continue
		case w.Type != ev.Type && w.Object.Key() == ev.Object.Key():
			fail("wrong-event-type", fmt.Sprintf(" was answered %s: it delivered the change to %s at rv=%d as %s, but the history holds it as %s, "+
				"so a cache that applies it ends wrong", events(g), w.Object.Key(), rv, ev.Type, w.Type))
		case w != ev:
			fail("wrong-answer", fmt.Sprintf(" was answered %s: it delivered %s where the history holds %s",
				events(g), events([]kube.Event{ev}), events([]kube.Event{w})))
		}
		last, delivered[rv] = rv, true
	}
	// An empty answer means nothing came in time: not before the wait ran
	// out.
	if len(g) == 0 && len(want) == 0 && r.Wait > 0 && p.Now()-start < r.Wait {
		fail("early-empty-watch", fmt.Sprintf(" was answered [] after %s of its %s wait, with nothing to deliver: "+
			"an empty answer says that nothing came in time, so a watch must wait it out", suite.FormatTime(p.Now()-start), suite.FormatTime(r.Wait)))
	}
	// Nor long after: the caller asked to wait so long and no longer (an
	// informer's wait is its timeout, after which it may act), and changes
	// of another kind that woke the watch meanwhile do not restart it.
	if len(g) == 0 && len(want) == 0 && gotErr == nil && p.Now()-start > r.Wait {
		fail("overdue-empty-watch", fmt.Sprintf(" was answered [] only after %s, though it asked to wait %s at most: "+
			"a watch that wakes with nothing to deliver must wait only what is left of its wait, not all of it again",
			suite.FormatTime(p.Now()-start), suite.FormatTime(r.Wait)))
	}
	// A watch answers as soon as it has something to say: when it is
	// asked, if a change is already there, or the instant the first one is
	// accepted while it waits.
	if len(want) > 0 {
		if first := a.accepted[want[0].Object.ResourceVersion]; p.Now() > max(start, first) {
			when := fmt.Sprintf("was accepted at %s while it waited (it was asked at %s)", suite.FormatTime(first), suite.FormatTime(start))
			if first < start {
				when = fmt.Sprintf("was already there when it was asked at %s", suite.FormatTime(start))
			}
			fail("late-change", fmt.Sprintf(" was answered only then, though %s %s: a watch must answer the instant it has a change "+
				"to deliver, not when its wait runs out", events(want[:1]), when))
		}
	}
	// A reply may stop early (a prefix of the changes is a complete answer),
	// but must skip none before its end, and must not be empty when there
	// are changes to deliver.
	for _, w := range want {
		rv := w.Object.ResourceVersion
		if len(delivered) > 0 && rv > last {
			break
		}
		if !delivered[rv] {
			fail("missed-change", fmt.Sprintf(" was answered %s; the history after rv %d holds %s: the store never delivered %s",
				events(g), r.ResourceVersion, events(want), events([]kube.Event{w})))
			break
		}
	}
}

// target is the object a write is about (its kind, for a watch), and the
// version it names: a write's precondition, or where a watch starts.
func target(req any) (key string, rv int64) {
	switch r := req.(type) {
	case kube.CreateRequest:
		return r.Object.Key(), 0
	case kube.UpdateRequest:
		return r.Object.Key(), r.Object.ResourceVersion
	case kube.DeleteRequest:
		return r.Key, r.ResourceVersion
	case kube.WatchRequest:
		return r.Kind, r.ResourceVersion
	}
	return "", 0
}

// says is the story of an answer that is not the history's.
func says(got any, gotErr error, want any, wantErr error) string {
	return fmt.Sprintf("was answered %s; the history says %s", answer(got, gotErr), answer(want, wantErr))
}

// notGone is the story of a watch from a compacted version that was not
// answered Gone.
func notGone(got any, gotErr error, rv int64) string {
	return fmt.Sprintf("was answered %s; the store keeps only its last changes and rv %d is older than all of them, "+
		"so it cannot know what happened after it: the answer must be Gone (410), forcing a relist", answer(got, gotErr), rv)
}

// sameItems compares two lists' items.
func sameItems(a, b []kube.Object) bool {
	return len(a) == 0 && len(b) == 0 || slices.Equal(a, b)
}
