package ex09suite

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// failure is a named failure of the chapter and the clause it breaks.
type failure struct {
	name   string
	clause course.Clause
}

// The chapter's named failures, row by row of the page's table.
var (
	readHung        = failure{"consistent-read-hung", course.DurableAgreement}
	readStale       = failure{"consistent-read-from-cache", course.OneHistory}
	cachedRefused   = failure{"cached-read-refused", 0}
	cachedUntrue    = failure{"cached-read-not-in-history", course.OneHistory}
	writeAcked      = failure{"acknowledged-without-store", course.AgreementFirst}
	writeHung       = failure{"write-hung", course.DurableAgreement}
	watchClosed     = failure{"watch-closed-during-outage", 0}
	watchSkipped    = failure{"watch-skipped-changes", course.DurableAgreement}
	watchUnaccepted = failure{"watch-told-unaccepted-change", course.DurableAgreement}
	noDestruction   = failure{"pod-deleted-on-unreachable-store", course.DurableAgreement}
	noCatchUp       = failure{"did-not-catch-up", course.DurableAgreement}
)

// fail is the failure f of this run at virtual time at.
func (r *run) fail(f failure, at time.Duration, details string, format string, args ...any) *suite.Failure {
	return &suite.Failure{Name: f.name, Clause: f.clause, At: at, Story: fmt.Sprintf(format, args...),
		Details: strings.TrimSpace(details + "\n\n" + r.sceneLines())}
}

// sceneLines describes the scene from its own values.
func (r *run) sceneLines() string {
	return fmt.Sprintf("the scene: etcd holds the one history; server-1 and server-2 are API servers in front of it.\n"+
		"  %s\n  the pipeline scales web to %d through server-2 at %s\n  the controller reconciles web through server-1; kubectl works through server-1",
		r.sc.cut, r.sc.scaleTo, suite.FormatTime(r.sc.scaleAt))
}

// --- the history, as the store accepted it -------------------------------

// versionAt is the history's last version accepted at or before t.
func (r *run) versionAt(t time.Duration) int64 {
	var v int64
	for _, c := range r.store.Changes() {
		if c.At <= t {
			v = c.Version
		}
	}
	return v
}

// stateAt is the history's objects of kind (all kinds if "") as of version
// v: value by key.
func (r *run) stateAt(kind string, v int64) map[string]any {
	state := map[string]any{}
	for _, c := range r.store.Changes() {
		if c.Version > v {
			break
		}
		if k, _ := kube.SplitKey(c.Key); kind != "" && k != kind {
			continue
		}
		if c.Deleted {
			delete(state, c.Key)
		} else {
			state[c.Key] = c.Value
		}
	}
	return state
}

// change finds the change at version v, if the history holds one.
func (r *run) change(v int64) (check.Change, bool) {
	for _, c := range r.store.Changes() {
		if c.Version == v {
			return c, true
		}
	}
	return check.Change{}, false
}

// latestOf is the last change of key accepted at or before t.
func (r *run) latestOf(key string, t time.Duration) (check.Change, bool) {
	var out check.Change
	found := false
	for _, c := range r.store.Changes() {
		if c.Key == key && c.At <= t {
			out, found = c, true
		}
	}
	return out, found
}

// podsAndDesired counts web's pods and what web desires in a state.
func podsAndDesired(state map[string]any) (pods, desired int) {
	for k, v := range state {
		if strings.HasPrefix(k, "pods/") && v == web {
			pods++
		}
	}
	if d, ok := state[web].(int); ok {
		desired = d
	}
	return pods, desired
}

// differs says how a list's items differ from the history's objects of
// kind as of version v: "pods/web-5 missing, deployments/web is 5 where the
// history has 7"; "" if they do not.
func (r *run) differs(l kube.List, kind string, v int64) string {
	got, want := map[string]any{}, r.stateAt(kind, v)
	for _, o := range l.Items {
		got[o.Key()] = o.Value()
	}
	var out []string
	keys := maps.Clone(want)
	maps.Copy(keys, got)
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		g, inGot := got[k]
		w, inWant := want[k]
		switch {
		case !inGot:
			out = append(out, k+" missing")
		case !inWant:
			out = append(out, k+" is not in the history")
		case fmt.Sprint(g) != fmt.Sprint(w):
			out = append(out, fmt.Sprintf("%s is %v where the history has %v", k, g, w))
		}
	}
	return strings.Join(out, ", ")
}

// outage says when the cut was, for stories.
func (r *run) outage() string {
	return fmt.Sprintf("the link server-1 ↔ etcd was cut from %s to %s", suite.FormatTime(r.sc.cut.From), suite.FormatTime(r.sc.cut.Until()))
}

// --- the requests, as the scene logged them --------------------------------

// request is one request a client made, as the scene logged it, told the
// chapter's way.
type request kube.Request

// read reads the scene's log of requests once the world has ended: the
// requests the table judges, in the order they were answered (kubectl's,
// the pipeline's and the auditor's, whose reads with rv="0" are its own:
// catch-up judges them; the controller's reads are in the history), and
// what the watcher asked server-1 about each kind (its watches, and the
// lists it started again from after Gone).
func (r *run) read(log []kube.Request) {
	r.requests, r.watched = nil, map[string][]request{}
	for _, q := range log {
		w, watch := q.Ask.(kube.WatchRequest)
		l, list := q.Ask.(kube.ListRequest)
		switch c := sim.NodeID(q.Client); {
		case c == watcher && watch:
			r.watched[w.Kind] = append(r.watched[w.Kind], request(q))
		case c == watcher && list:
			r.watched[l.Kind] = append(r.watched[l.Kind], request(q))
		case c == kubectl || c == pipeline || c == auditor && !list:
			r.requests = append(r.requests, request(q))
		}
	}
}

// kind is the read the request was, or 0 for a write.
func (q request) kind() opKind {
	switch a := q.Ask.(type) {
	case kube.GetRequest:
		if a.Opts.ResourceVersion == kube.Any {
			return getAny
		}
		return getLatest
	case kube.ListRequest:
		switch {
		case a.Opts.ResourceVersion != kube.Any:
			return listLatest
		case a.Kind == "deployments":
			return listAnyDeploy
		}
		return listAny
	}
	return 0
}

func (q request) read() bool          { return q.kind() != 0 }
func (q request) took() time.Duration { return q.Return - q.Call }
func (q request) obj() kube.Object    { o, _ := q.Reply.(kube.Object); return o }
func (q request) list() kube.List     { l, _ := q.Reply.(kube.List); return l }
func (q request) describe() string {
	return fmt.Sprintf("%s's %s through %s at %s", q.Client, q.what(), q.Server, suite.FormatTime(q.Call))
}

// what is the request, for a story: "GET deployments/web", "LIST pods
// (rv=0)", "DELETE deployments/job-3 if rv=12".
func (q request) what() string {
	switch a := q.Ask.(type) {
	case kube.GetRequest:
		return "GET " + a.Key + cached(a.Opts)
	case kube.ListRequest:
		return "LIST " + a.Kind + cached(a.Opts)
	case kube.CreateRequest:
		if a.Object.Key() == web {
			return fmt.Sprintf("CREATE %s replicas=%d", web, a.Object.Replicas)
		}
		return "CREATE " + a.Object.Key()
	case kube.UpdateRequest:
		return fmt.Sprintf("UPDATE %s replicas=%d", a.Object.Key(), a.Object.Replicas) + ifVersion(a.Object.ResourceVersion)
	case kube.DeleteRequest:
		return "DELETE " + a.Key + ifVersion(a.ResourceVersion)
	}
	return fmt.Sprintf("%T", q.Ask)
}

func cached(opts kube.ReadOptions) string {
	if opts.ResourceVersion == kube.Any {
		return " (rv=0)"
	}
	return ""
}

func ifVersion(rv int64) string {
	if rv == 0 {
		return ""
	}
	return fmt.Sprintf(" if rv=%d", rv)
}

// answer is what the request came to, for a story: "5 items @rv=7",
// "Unavailable (500)", "no answer".
func (q request) answer() string {
	var se kube.StatusError
	switch {
	case q.Err == nil:
		return fmt.Sprint(q.Reply)
	case errors.As(q.Err, &se) && se.Reason == "Timeout" && q.took() >= clientTimeout:
		return fmt.Sprintf("no answer (kubectl gave up after %s)", clientTimeout)
	case errors.As(q.Err, &se):
		return fmt.Sprintf("%s (%d)", se.Reason, se.Code)
	}
	return "error: " + q.Err.Error()
}

// --- row 1: consistent reads fail fast, never stale, never hanging --------

func (r *run) consistentReads() *suite.Failure {
	for _, q := range r.requests {
		if !q.kind().latest() {
			continue
		}
		if q.took() > Bound {
			return r.fail(readHung, q.Call+Bound, "",
				"%s kept %s's consistent %s (sent at %s) waiting %s for a store it could not reach, instead of failing within %s: the answer, %s, came at %s (%s)",
				q.Server, q.Client, q.what(), suite.FormatTime(q.Call), suite.FormatTime(q.took()), Bound, q.answer(), suite.FormatTime(q.Return), r.outage())
		}
		notFound := errors.Is(q.Err, kube.ErrNotFound) && q.kind() == getLatest
		if q.Err != nil && !notFound {
			continue
		}
		read := q.describe() + " (a consistent read)"
		if f := r.stale(read, q.answer(), q.Server, q.Call, q.Return, notFound, r.notCurrent(q)); f != nil {
			return f
		}
	}
	return r.controllerReads()
}

// controllerReads judges the controller's consistent reads of web, as its
// client recorded them: one answered through server-1 while the link was
// cut, or older than a change accepted before it was sent, came from the
// cache.
func (r *run) controllerReads() *suite.Failure {
	for _, op := range r.s.History.Operations() {
		if op.Client != string(controller) || op.Input.Kind != check.KindRead || op.Input.Key != web {
			continue
		}
		notFound := op.Result.Outcome == check.NotFound
		if op.Result.Outcome != check.OK && !notFound {
			continue
		}
		read := fmt.Sprintf("the controller's consistent GET %s through %s at %s", web, op.Server, suite.FormatTime(op.Call))
		answer := fmt.Sprintf("%s=%v (rv=%d)", web, op.Result.Value, op.Result.Version)
		why := r.behind(op.Result.Version, op.Call)
		if f := r.stale(read, answer, sim.NodeID(op.Server), op.Call, op.Return, notFound, why); f != nil {
			return f
		}
	}
	return nil
}

// stale judges one consistent read, told as read, sent through server at
// call and answered at ret with answer (NotFound, if notFound): a NotFound
// while web stood all the while; any answer through server-1 while the link
// was cut, which only its cache could have given; or an answer that was not
// the history's current state, for the reason why ("" if it was).
func (r *run) stale(read, answer string, server sim.NodeID, call, ret time.Duration,
	notFound bool, why string) *suite.Failure {
	if notFound {
		if why := r.notGone(call, ret); why != "" {
			return r.fail(readStale, ret, "", "%s was answered NotFound at %s, %s", read, suite.FormatTime(ret), why)
		}
		return nil
	}
	if server == server1 && r.sc.cut.During(call) && ret < r.sc.cut.Until() {
		return r.fail(readStale, ret, "",
			"%s was answered %s at %s, while %s: server-1 could not have asked the store, so it answered from its cache, which cannot vouch for being current",
			read, answer, suite.FormatTime(ret), r.outage())
	}
	if why != "" {
		return r.fail(readStale, ret, "", "%s was answered %s at %s, %s", read, answer, suite.FormatTime(ret), why)
	}
	return nil
}

// notGone says why a consistent read of web answered NotFound, sent at call
// and answered at ret, was not the history's state at any moment between:
// web stood all that time. "" if it was gone at some moment.
func (r *run) notGone(call, ret time.Duration) string {
	last, ok := r.latestOf(web, call)
	if !ok || last.Deleted {
		return ""
	}
	for _, c := range r.store.Changes() {
		if c.Key == web && c.Deleted && c.At > call && c.At <= ret {
			return ""
		}
	}
	return fmt.Sprintf("but the history held %s=%v (since rv=%d, accepted at %s) all the while", web, last.Value, last.Version, suite.FormatTime(last.At))
}

// behind says why an answer about web at version v, to a read sent at
// call, was not the history's current state: a later change of web was
// accepted before the read began. "" if none was.
func (r *run) behind(v int64, call time.Duration) string {
	if last, ok := r.latestOf(web, call); ok && v < last.Version {
		return fmt.Sprintf("but the history had had %s=%v since rv=%d, accepted at %s, before the read began", web, last.Value, last.Version, suite.FormatTime(last.At))
	}
	return ""
}

// notCurrent says why a consistent read's answer was not the history's
// current state at some moment while it was in flight, or "".
func (r *run) notCurrent(q request) string {
	switch q.kind() {
	case getLatest:
		return r.behind(q.obj().ResourceVersion, q.Call)
	case listLatest:
		if v := r.versionAt(q.Call); q.list().ResourceVersion < v {
			return fmt.Sprintf("but the history was at rv=%d, accepted before the read began", v)
		}
		if d := r.differs(q.list(), "pods", q.list().ResourceVersion); d != "" {
			return "but the history at rv=" + fmt.Sprint(q.list().ResourceVersion) + " differs: " + d
		}
	}
	return ""
}

// --- row 2: "0" reads are served from the cache, and true to their version

func (r *run) cachedReads() *suite.Failure {
	for _, q := range r.requests {
		if !q.read() || q.kind().latest() {
			continue
		}
		refused := q.Err != nil && !r.goneBy(q) || q.took() > Bound
		if refused {
			at := q.Return
			if q.took() > Bound {
				at = q.Call + Bound
			}
			return r.fail(cachedRefused, at, "",
				"%s (a read with resourceVersion \"0\", which any version may answer) got %s after %s: server-1's watch cache could have answered it at once, store or no store (%s)",
				q.describe(), q.answer(), suite.FormatTime(q.took()), r.outage())
		}
		if q.Err != nil {
			continue
		}
		if why := r.untrue(q); why != "" {
			return r.fail(cachedUntrue, q.Return, "", "%s (rv=\"0\") was answered %s at %s, %s", q.describe(), q.answer(), suite.FormatTime(q.Return), why)
		}
	}
	return nil
}

// goneBy reports whether a get of web that came back NotFound may be
// true: the history had deleted web by the time it was answered.
func (r *run) goneBy(q request) bool {
	if q.kind() != getAny && q.kind() != getLatest || !errors.Is(q.Err, kube.ErrNotFound) {
		return false
	}
	for _, c := range r.store.Changes() {
		if c.Key == web && c.Deleted && c.At <= q.Return {
			return true
		}
	}
	return false
}

// untrue says why a cached read's answer is not the history as it stood at
// the version the answer names, or "".
func (r *run) untrue(q request) string {
	if q.kind() == getAny {
		c, ok := r.change(q.obj().ResourceVersion)
		if !ok || c.Key != web || c.At > q.Return || fmt.Sprint(c.Value) != fmt.Sprint(q.obj().Value()) {
			return fmt.Sprintf("but the history never held %s at rv=%d: the server answered with a change the store had not accepted", q.obj(), q.obj().ResourceVersion)
		}
		return ""
	}
	kind := "pods"
	if q.kind() == listAnyDeploy {
		kind = "deployments"
	}
	if v := r.versionAt(q.Return); q.list().ResourceVersion > v {
		return fmt.Sprintf("but the history had only reached rv=%d: the list names a version the store had not accepted", v)
	}
	if d := r.differs(q.list(), kind, q.list().ResourceVersion); d != "" {
		return fmt.Sprintf("but that is not the history at rv=%d, the version the list names: %s", q.list().ResourceVersion, d)
	}
	return ""
}

// --- row 3: writes are refused, never acknowledged without the store ------

func (r *run) writes() *suite.Failure {
	for _, op := range r.s.History.Operations() {
		if !op.Acknowledged() {
			continue
		}
		c, ok := r.change(op.Result.Version)
		if ok && c.Key == op.Input.Key && c.At <= op.Return && c.Deleted == (op.Input.Kind == check.KindDelete) {
			continue
		}
		later := "it never reached the history"
		for _, c := range r.store.Changes() {
			if c.Key == op.Input.Key && c.At > op.Return && (op.Input.Kind == check.KindDelete) == c.Deleted &&
				(c.Deleted || fmt.Sprint(c.Value) == fmt.Sprint(op.Input.Value)) {
				later = fmt.Sprintf("etcd accepted it only at %s, %s after the client heard yes, as rv=%d", suite.FormatTime(c.At), suite.FormatTime(c.At-op.Return), c.Version)
				if c.Deleted { // maybe another client's delete
					later = fmt.Sprintf("the history deleted %s only at %s, %s after the client heard yes, as rv=%d", c.Key, suite.FormatTime(c.At), suite.FormatTime(c.At-op.Return), c.Version)
				}
				break
			}
		}
		held := fmt.Sprintf("the history held no change at rv=%d", op.Result.Version)
		if ok {
			held = fmt.Sprintf("the change at rv=%d in the history is %s=%v", c.Version, c.Key, describeValue(c))
		}
		return r.fail(writeAcked, op.Return, "the write: "+op.String(),
			"%s's %s through %s was acknowledged at %s as rv=%d, but %s then: %s (%s)",
			op.Client, op.Input, op.Server, suite.FormatTime(op.Return), op.Result.Version, held, later, r.outage())
	}
	for _, q := range r.requests {
		if !q.read() && q.took() > Bound {
			return r.fail(writeHung, q.Call+Bound, "",
				"%s kept %s's %s (sent at %s) waiting %s for a store it could not reach, instead of refusing it within %s: the answer, %s, came at %s (%s)",
				q.Server, q.Client, q.what(), suite.FormatTime(q.Call), suite.FormatTime(q.took()), Bound, q.answer(), suite.FormatTime(q.Return), r.outage())
		}
	}
	// A delete that named a version must find its object still at it.
	if v := check.StaleDelete(r.s.History, r.store.Changes()); v != nil {
		return r.fail(failure{v.Name, v.Clause}, v.At, v.Details, "%s", v.Story)
	}
	// Every client's writes and consistent reads, the controller's too,
	// must fit one order of the history (porcupine, per key).
	if l := check.Linearizable(r.s.History, 0); !l.OK() {
		v, faults := l.Violation, r.s.Faults
		f := r.fail(failure{v.Name, v.Clause}, v.At, v.Details, "%s", v.Story)
		f.Drawing = func(w io.Writer) error { return l.DrawHTML(w, faults) }
		return f
	}
	return nil
}

// --- row 4: watches stay open and quiet, then go on without a gap ---------

func (r *run) watchesFollow() *suite.Failure {
	for _, kind := range []string{"pods", "deployments"} {
		var want []check.Change
		for _, c := range r.store.Changes() {
			if k, _ := kube.SplitKey(c.Key); k == kind {
				want = append(want, c)
			}
		}
		pos := 0
		for _, q := range r.watched[kind] {
			w, watch := q.Ask.(kube.WatchRequest)
			if !watch { // a list after Gone: the watcher goes on from its version
				if q.Err == nil {
					pos = 0
					for pos < len(want) && want[pos].Version <= q.list().ResourceVersion {
						pos++
					}
				}
				continue
			}
			if q.Err != nil && !errors.Is(q.Err, kube.ErrGone) && r.sc.cut.During(q.Call) {
				return r.fail(watchClosed, q.Return, "",
					"the watcher's WATCH %s from rv=%d through server-1 at %s ended in %v at %s: a watch served from the cache has no reason to end while the store is away (%s)",
					kind, w.ResourceVersion, suite.FormatTime(q.Call), q.Err, suite.FormatTime(q.Return), r.outage())
			}
			events, _ := q.Reply.([]kube.Event)
			for _, ev := range events {
				got := check.Change{Version: ev.Object.ResourceVersion, Key: ev.Object.Key(), Value: ev.Object.Value(), Deleted: ev.Type == kube.Deleted}
				if pos < len(want) && got.Equal(want[pos]) {
					pos++
					continue
				}
				if c, ok := r.change(got.Version); !ok || !got.Equal(c) {
					return r.fail(watchUnaccepted, q.Return, "",
						"the watcher's WATCH %s from rv=%d through server-1 delivered %s at %s, a change the history does not hold at rv=%d (%s)",
						kind, w.ResourceVersion, ev, suite.FormatTime(q.Return), got.Version, r.outage())
				}
				if pos < len(want) && got.Version > want[pos].Version {
					missed := want[pos]
					return r.fail(watchSkipped, q.Return, "",
						"the watcher's WATCH %s from rv=%d through server-1 delivered %s at %s, skipping rv=%d (%s=%v, accepted at %s): the watch came back past what happened while %s",
						kind, w.ResourceVersion, ev, suite.FormatTime(q.Return), missed.Version, missed.Key, describeValue(missed), suite.FormatTime(missed.At), r.outage())
				}
				var seen int64 // the last change it had delivered in the history's order
				if pos > 0 {
					seen = want[pos-1].Version
				}
				return r.fail(watchSkipped, q.Return, "",
					"the watcher's WATCH %s from rv=%d through server-1 delivered %s at %s, out of the history's order (it had already seen up to rv=%d)",
					kind, w.ResourceVersion, ev, suite.FormatTime(q.Return), seen)
			}
		}
	}
	return nil
}

func describeValue(c check.Change) string {
	if c.Deleted {
		return "deleted"
	}
	return fmt.Sprint(c.Value)
}

// --- row 5: no destructive action because the store could not be reached -

// badDelete is a delete of one of web's pods that nothing in the history
// asked for.
type badDelete struct {
	key        string
	sent       time.Duration
	accepted   bool
	acceptedAt time.Duration
	pods       int // web's pods once it took effect (or had it taken effect)
	desired    int
	read       *check.Operation // the controller's last read of web before it sent the delete
}

func (b *badDelete) story() string {
	what := fmt.Sprintf("the controller asked server-1 at %s to delete %s, which would leave %d pods where web wants %d", suite.FormatTime(b.sent), b.key, b.pods, b.desired)
	if b.accepted {
		what = fmt.Sprintf("the controller deleted %s (sent at %s, accepted by etcd at %s), leaving %d pods where web wants %d", b.key, suite.FormatTime(b.sent), suite.FormatTime(b.acceptedAt), b.pods, b.desired)
	}
	switch {
	case b.read == nil:
		return what + ": it had not read deployments/web in that reconcile"
	case b.read.Result.Outcome == check.OK:
		return what + fmt.Sprintf(": its last read of deployments/web (at %s) said it wants %v", suite.FormatTime(b.read.Call), b.read.Result.Value)
	}
	why := "the store could not be reached"
	if b.read.Return-b.read.Call >= controllerTimeout {
		why = fmt.Sprintf("server-1's answer did not reach it within its own timeout of %s", controllerTimeout)
	}
	return what + fmt.Sprintf(": its last read of deployments/web, sent at %s, had come back at %s without an answer (%s), and it took a failed read for a deployment that wants no pods",
		suite.FormatTime(b.read.Call), suite.FormatTime(b.read.Return), why)
}

// justified decides about one delete of a web pod, which would leave pods
// pods: fine if the history desires no more than that at time at, or the
// controller's last read of web before sent succeeded and desired no more.
// A read that raced a scale is the controller's best knowledge, not a
// failure of it.
func (r *run) justified(key string, sent, at time.Duration, pods int) *badDelete {
	_, desired := podsAndDesired(r.stateAt("", r.versionAt(at)))
	if pods >= desired {
		return nil
	}
	b := &badDelete{key: key, sent: sent, pods: pods, desired: desired}
	for _, op := range r.s.History.Operations() {
		if op.Client == string(controller) && op.Input.Kind == check.KindRead && op.Input.Key == web &&
			op.Result.Outcome != check.Pending && op.Return <= sent {
			b.read = &op
		}
	}
	if b.read != nil && b.read.Result.Outcome == check.NotFound {
		return nil // web was gone: it wants no pods
	}
	if b.read != nil && b.read.Result.Outcome == check.OK {
		if d, err := strconv.Atoi(fmt.Sprint(b.read.Result.Value)); err == nil && pods >= d {
			return nil
		}
	}
	return b
}

// deleted is called by the store after it accepted a delete of key.
func (r *run) deleted(p *sim.Proc, key string, o kube.Object) {
	if key == web {
		r.goneAt = p.Now()
	}
	if o.Kind != "pods" || o.Owner != web || r.bad != nil {
		return
	}
	sent := p.Now()
	for _, op := range r.s.History.Operations() {
		if op.Client == string(controller) && op.Input.Kind == check.KindDelete && op.Input.Key == key && op.Call <= p.Now() {
			sent = op.Call
		}
	}
	pods, _ := podsAndDesired(r.stateAt("", r.store.ResourceVersion()))
	if b := r.justified(key, sent, p.Now(), pods); b != nil {
		b.accepted, b.acceptedAt = true, p.Now()
		r.bad = b
	}
}

func (r *run) controllerHeld() *suite.Failure {
	first := r.bad // the first accepted delete nobody asked for
	for _, op := range r.s.History.Operations() {
		if op.Client != string(controller) || op.Input.Kind != check.KindDelete || !strings.HasPrefix(op.Input.Key, "pods/") {
			continue
		}
		if first != nil && op.Call >= first.sent {
			break
		}
		state := r.stateAt("", r.versionAt(op.Call))
		if _, exists := state[op.Input.Key]; !exists {
			continue // a delete of what is already gone takes nothing away
		}
		pods, _ := podsAndDesired(state)
		if b := r.justified(op.Input.Key, op.Call, op.Call, pods-1); b != nil {
			first = b
			break
		}
	}
	if first == nil {
		return nil
	}
	at := first.sent
	if first.accepted {
		at = first.acceptedAt
	}
	return r.fail(noDestruction, at, "", "%s (%s)", first.story(), r.outage())
}

// --- row 6: everything catches up after the outage ------------------------

// recreated is called by the store after it accepted a create of web: the
// pods web had before it was deleted must be gone by now, if the
// controller has had goneSettle to read NotFound and delete them.
func (r *run) recreated(now time.Duration) {
	if r.goneAt == 0 || r.orphans != nil {
		return
	}
	since := max(r.goneAt, r.sc.cut.Until())
	var left []string
	for _, o := range r.store.Objects() {
		if o.Kind == "pods" && o.Owner == web {
			left = append(left, o.Name)
		}
	}
	if len(left) > 0 && now-since >= goneSettle {
		r.orphans = &orphans{at: now, since: since, pods: left}
	}
}

func (r *run) caughtUp() *suite.Failure {
	a := r.audit
	heal := r.sc.cut.Until()
	if o := r.orphans; o != nil {
		return r.fail(noCatchUp, o.at, "",
			"the pipeline deleted %s through server-2 at %s; when it created web again at %s, %s after server-1 could reach the store again "+
				"(where a read of web said NotFound), web's old pods still stood (%s): a deployment that is gone wants no pods, "+
				"and a NotFound, unlike a read that failed, says for sure that it is gone (%s)",
			web, suite.FormatTime(r.goneAt), suite.FormatTime(o.at), suite.FormatTime(o.at-o.since), strings.Join(o.pods, ", "), r.outage())
	}
	if !a.done {
		return r.fail(noCatchUp, r.sc.end, "", "the suite could not finish its check %s after the link came back at %s: its requests through server-1 got no answer", CatchUp, suite.FormatTime(heal))
	}
	state := r.stateAt("", a.rv)
	_, webThere := state[web]
	var read, write request // the auditor's, through server-1
	for _, q := range r.requests {
		if q.Client == string(auditor) {
			if _, get := q.Ask.(kube.GetRequest); get {
				read = q
			} else {
				write = q
			}
		}
	}
	readOK := read.Err == nil || !webThere && errors.Is(read.Err, kube.ErrNotFound)
	if !readOK || write.Err != nil {
		q := read
		if readOK {
			q = write
		}
		return r.fail(noCatchUp, q.Return, "", "%s, %s after the link came back at %s, got %s: server-1 still refuses what the store could do", q.describe(), suite.FormatTime(q.Call-heal), suite.FormatTime(heal), q.answer())
	}
	if pods, _ := podsAndDesired(state); !webThere && pods > 0 {
		return r.fail(noCatchUp, a.at, "", "%s after the link came back at %s, web had been gone from the history since %s (the pipeline deleted it), and %d of its pods still stood: "+
			"a deployment that is gone wants no pods, and the controller did not delete them once a read said NotFound", CatchUp, suite.FormatTime(heal), suite.FormatTime(r.goneAt), pods)
	}
	if pods, desired := podsAndDesired(state); pods != desired {
		return r.fail(noCatchUp, a.at, "", "%s after the link came back at %s, web has %d pods in the history where it wants %d: the controller did not catch up", CatchUp, suite.FormatTime(heal), pods, desired)
	}
	for _, id := range r.s.Servers {
		if err := a.cacheErrs[id]; err != nil {
			return r.fail(noCatchUp, a.at, "", "at %s, %s after the link came back, a read with rv=\"0\" from %s failed: %v", suite.FormatTime(a.at), CatchUp, id, err)
		}
		for i, kind := range []string{"deployments", "pods"} {
			l := a.caches[id][i]
			if l.ResourceVersion < a.rv {
				d := r.differs(l, kind, a.rv)
				if d == "" {
					d = "the same objects, but behind"
				}
				return r.fail(noCatchUp, a.at, "", "at %s, %s after the link came back at %s, %s's cache of %s was still at rv=%d where the history is at rv=%d: %s",
					suite.FormatTime(a.at), CatchUp, suite.FormatTime(heal), id, kind, l.ResourceVersion, a.rv, d)
			}
			if d := r.differs(l, kind, l.ResourceVersion); d != "" {
				return r.fail(noCatchUp, a.at, "", "at %s, %s after the link came back at %s, %s's cache of %s at rv=%d is not the history at that version: %s",
					suite.FormatTime(a.at), CatchUp, suite.FormatTime(heal), id, kind, l.ResourceVersion, d)
			}
		}
	}
	for _, kind := range []string{"pods", "deployments"} {
		var last int64
		for _, c := range r.store.Changes() {
			if k, _ := kube.SplitKey(c.Key); k == kind && c.Version <= a.rv {
				last = c.Version
			}
		}
		var seen int64
		for _, q := range r.watched[kind] {
			switch reply := q.Reply.(type) {
			case []kube.Event:
				for _, ev := range reply {
					if q.Return <= a.at {
						seen = max(seen, ev.Object.ResourceVersion)
					}
				}
			case kube.List: // sent as the watch before it came back with Gone
				if q.Err == nil && q.Call <= a.at {
					seen = max(seen, reply.ResourceVersion)
				}
			}
		}
		if seen < last {
			return r.fail(noCatchUp, a.at, "", "at %s, %s after the link came back at %s, the watcher's watch of %s through server-1 had delivered changes up to rv=%d only; the history's last change of %s is rv=%d",
				suite.FormatTime(a.at), CatchUp, suite.FormatTime(heal), kind, seen, kind, last)
		}
	}
	return nil
}

// outageFigure is what kubectl and the pipeline asked, through which
// server, and what they got: one request a line, in the order they were
// sent, with the outage marked.
func (r *run) outageFigure() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (seed %d)\n", r.sc.cut, r.s.Seed)
	fmt.Fprintf(&b, "%9s  %-8s  %-8s  %-42s  %9s  %8s  %s\n", "sent", "client", "via", "request", "answered", "after", "answer")
	reqs := slices.Clone(r.requests) // sorted by when they were sent, for the figure only
	slices.SortStableFunc(reqs, func(a, b request) int { return int(a.Call - b.Call) })
	for _, q := range reqs {
		if q.Client == string(auditor) {
			continue
		}
		mark := " "
		if q.Server == r.sc.cut.A && r.sc.cut.During(q.Call) {
			mark = "✂"
		}
		fmt.Fprintf(&b, "%9s%s %-8s  %-8s  %-42s  %9s  %8s  %s\n", suite.FormatTime(q.Call), mark, q.Client, q.Server, q.what(), suite.FormatTime(q.Return), suite.FormatTime(q.took()), q.answer())
	}
	b.WriteString("✂ sent through server-1 while its link to etcd was cut")
	return b.String()
}
