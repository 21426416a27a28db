package ex09suite

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/table"
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
	cacheBack       = failure{"cache-went-back", course.OneHistory}
	writeAcked      = failure{"acknowledged-without-store", course.AgreementFirst}
	writeHung       = failure{"write-hung", course.DurableAgreement}
	watchClosed     = failure{"watch-closed-during-outage", 0}
	watchSkipped    = failure{"watch-skipped-changes", course.DurableAgreement}
	watchUnaccepted = failure{"watch-told-unaccepted-change", course.DurableAgreement}
	noDestruction   = failure{"pod-deleted-on-unreachable-store", course.DurableAgreement}
	noCatchUp       = failure{"did-not-catch-up", course.DurableAgreement}
	// A store that did not answer, told as a definite answer it never gave.
	toldAbsent  = failure{"timeout-told-as-absent", course.OneHistory}
	toldRefusal = failure{"timeout-told-as-refusal", course.AgreementFirst}
	// The controller's count of web, read from server-1's cache.
	countCached = failure{"count-read-from-cache", course.DurableAgreement}
)

// fail is the failure f of this run at virtual time at.
func (r *run) fail(f failure, at time.Duration, details string, format string, args ...any) *suite.Failure {
	return &suite.Failure{Name: f.name, Clause: f.clause, At: at, Story: fmt.Sprintf(format, args...),
		Details: strings.TrimSpace(details + "\n\n" + r.sceneLines())}
}

// sceneLines describes the scene from its own values.
func (r *run) sceneLines() string {
	scales := fmt.Sprintf("the pipeline scales web to %d through server-2 at %s", r.sc.scaleTo, suite.FormatTime(r.sc.scaleAt))
	if r.sc.downAt > 0 {
		scales = fmt.Sprintf("the pipeline scales web to %d through server-2 at %s, then to %d at %s",
			r.sc.downTo, suite.FormatTime(r.sc.downAt), r.sc.scaleTo, suite.FormatTime(r.sc.scaleAt))
	}
	return fmt.Sprintf("the scene: etcd holds the one history; server-1 and server-2 are API servers in front of it.\n"+
		"  %s\n  %s\n  the controller reconciles web through server-1; kubectl works through server-1",
		r.sc.cut, scales)
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

// webPods names web's pods in a state, in order: "pods/web-0, pods/web-3";
// and, of the pods web wants (web-0 … web-(desired-1)), those missing, and
// those standing that it does not want.
func webPods(state map[string]any) (standing, missing, extra []string) {
	_, desired := podsAndDesired(state)
	wanted := map[string]bool{}
	for i := range desired {
		wanted[fmt.Sprintf("pods/web-%d", i)] = true
	}
	for k, v := range state {
		if strings.HasPrefix(k, "pods/") && v == web {
			standing = append(standing, k)
			if !wanted[k] {
				extra = append(extra, k)
			}
		}
	}
	for i := range desired {
		if k := fmt.Sprintf("pods/web-%d", i); !slices.Contains(standing, k) {
			missing = append(missing, k)
		}
	}
	slices.Sort(standing)
	slices.Sort(extra)
	return standing, missing, extra
}

// podList names pods for a story: "pods/web-0, pods/web-3", or "none".
func podList(pods []string) string {
	if len(pods) == 0 {
		return "none"
	}
	return strings.Join(pods, ", ")
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
			if r.cutOff(server, call, ret) {
				return r.absent(read, ret, why)
			}
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

// cutOff reports whether a request to server, sent at call and answered at
// ret, was in server-1's hands while it could not reach etcd: the cut began
// before the answer and ended after the call.
func (r *run) cutOff(server sim.NodeID, call, ret time.Duration) bool {
	return server == r.sc.cut.A && call < r.sc.cut.Until() && ret > r.sc.cut.From
}

// absent is a consistent read of web, told as read, answered NotFound at
// ret while server-1 could not reach etcd and web stood all along: server-1
// made its store's silence into a definite "absent".
func (r *run) absent(read string, ret time.Duration, why string) *suite.Failure {
	return r.fail(toldAbsent, ret, "",
		"%s was answered NotFound at %s, while %s, %s: server-1 could not ask the store, and its cache held web too, so NotFound came from neither. "+
			"It told a store that did not answer as a definite \"absent\": a read the store does not answer is Unavailable, and a client that hears NotFound may delete what web owns",
		read, suite.FormatTime(ret), r.outage(), why)
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
	if f := r.cacheWentBack(); f != nil {
		return f
	}
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

// cacheWentBack finds a read with resourceVersion "0" that a server
// answered from further back in the history than an earlier one it had
// answered: a list at a lower version, or NotFound for web after it had
// shown web, which the history has not deleted since. A watch cache only
// moves forward; one that starts over from nothing, or from an older
// version, shows its clients a past they had already left behind, and the
// cause is told ahead of the refusal or the answer such a read looks like.
func (r *run) cacheWentBack() *suite.Failure {
	type shown struct {
		rv int64
		q  request
	}
	last := map[sim.NodeID]shown{}
	for _, q := range r.requests {
		if !q.read() || q.kind().latest() {
			continue
		}
		prev, seen := last[q.Server]
		var now int64 // how far the cache had come, at least, by its answer
		back := false
		switch {
		case q.Err == nil && q.kind() == getAny:
			now = q.obj().ResourceVersion
			back = seen && now < r.webAt(prev.rv)
		case q.Err == nil:
			now = q.list().ResourceVersion
			back = seen && now < prev.rv
		case q.kind() == getAny && errors.Is(q.Err, kube.ErrNotFound):
			back = seen && r.webAt(prev.rv) > 0 && !r.goneBy(q) // NotFound for a web the server had shown
		default:
			continue
		}
		if back {
			return r.fail(cacheBack, q.Return, "",
				"%s's watch cache went back: %s was answered %s at %s, though at %s the same server had answered %s with %s, and the history has not undone it since. "+
					"A watch cache only moves forward; one that starts over from nothing, or from an older version, shows its clients a past they had already left behind (%s)",
				q.Server, q.describe(), q.answer(), suite.FormatTime(q.Return), suite.FormatTime(prev.q.Return), prev.q.what(), prev.q.answer(), r.outage())
		}
		if now > prev.rv {
			last[q.Server] = shown{now, q}
		}
	}
	return nil
}

// webAt is the version of web's last change at or before version v, or 0
// when web did not exist at v.
func (r *run) webAt(v int64) int64 {
	var at int64
	for _, c := range r.store.Changes() {
		if c.Key == web && c.Version <= v {
			at = c.Version
			if c.Deleted {
				at = 0
			}
		}
	}
	return at
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
	if f := r.toldDefinite(); f != nil {
		return f
	}
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

// definite is the refusal an error says, if it is one: a 4xx status other
// than a timeout (408) or TooManyRequests (429), an answer that says the
// write did not and will not happen.
func definite(err error) (kube.StatusError, bool) {
	var se kube.StatusError
	ok := errors.As(err, &se) && se.Code >= 400 && se.Code < 500 && se.Code != 408 && se.Code != 429
	return se, ok
}

// toldDefinite finds a write that server-1 refused definitely while it
// could not reach etcd, and that the history contradicts: etcd took it
// (it was on its way when the link was cut, and only the answer was lost),
// or the reason given was false all the while (the object stood, at the
// version named).
func (r *run) toldDefinite() *suite.Failure {
	for _, q := range r.s.Requests.All() {
		q := request(q)
		se, refused := definite(q.Err)
		key, value, del, rv := writeOf(q.Ask)
		if key == "" || !refused || !r.cutOff(q.Server, q.Call, q.Return) {
			continue
		}
		told := fmt.Sprintf("server-1 answered %s's %s (sent at %s) %s at %s", q.Client, q.what(), suite.FormatTime(q.Call), q.answer(), suite.FormatTime(q.Return))
		for _, c := range r.store.Changes() {
			if c.Key == key && c.At >= q.Call && c.At <= q.Return && c.Deleted == del && (del || fmt.Sprint(c.Value) == fmt.Sprint(value)) {
				return r.fail(toldRefusal, q.Return, "",
					"%s, a definite no, but etcd had accepted that very write at %s as rv=%d: it reached etcd as the link was cut at %s, and only etcd's answer was lost. "+
						"A server that hears nothing back cannot know whether the store took a write; it must say so (Timeout: it may or may not have happened), "+
						"and a client told no may do again what is already done, or give up on what was",
					told, suite.FormatTime(c.At), c.Version, suite.FormatTime(r.sc.cut.From))
			}
		}
		// Else the reason given must have been false all the while: the
		// key did not change while server-1 held the request.
		last, exists := r.latestOf(key, q.Call)
		exists = exists && !last.Deleted
		if changed, _ := r.latestOf(key, q.Return); changed.Version != last.Version {
			continue // it changed meanwhile: the refusal may be the truth
		}
		var why string
		switch {
		case errors.Is(se, kube.ErrNotFound) && exists:
			return r.fail(toldAbsent, q.Return, "",
				"%s, while %s, but %s stood all the while (since rv=%d, accepted at %s): server-1 could not ask etcd, and told a store that did not answer as a definite \"absent\". "+
					"A write the store does not answer may or may not have happened: Timeout",
				told, r.outage(), key, last.Version, suite.FormatTime(last.At))
		case errors.Is(se, kube.ErrConflict) && exists && (rv == 0 || rv == last.Version):
			why = fmt.Sprintf("%s stood at rv=%d all the while, so nothing conflicted", key, last.Version)
		case errors.Is(se, kube.ErrAlreadyExists) && !exists:
			why = fmt.Sprintf("%s did not exist all the while", key)
		}
		if why != "" {
			return r.fail(toldRefusal, q.Return, "",
				"%s, while %s, but %s: server-1 could not ask etcd, and told a store that did not answer as a definite refusal. "+
					"A write the store does not answer may or may not have happened, and a server must say so: Timeout",
				told, r.outage(), why)
		}
	}
	return nil
}

// writeOf is what a write request asks of the history: the key, the value
// it writes, whether it deletes, and the version it names (0: none).
func writeOf(ask any) (key string, value any, del bool, rv int64) {
	switch a := ask.(type) {
	case kube.CreateRequest:
		return a.Object.Key(), a.Object.Value(), false, 0
	case kube.UpdateRequest:
		return a.Object.Key(), a.Object.Value(), false, a.Object.ResourceVersion
	case kube.DeleteRequest:
		return a.Key, nil, true, a.ResourceVersion
	}
	return "", nil, false, 0
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

// badDelete is a delete of web's pods that the controller's own count of
// web did not ask for: with the deletes its reconcile asked for before it,
// it would leave fewer pods than the last count the controller read, or the
// count came from server-1's cache.
type badDelete struct {
	keys       []string // the pods its reconcile asked to go, this delete's last
	began      time.Duration
	sent       time.Duration
	accepted   bool
	acceptedAt time.Duration
	pods       int      // web's pods once they had gone (or had they gone)
	wanted     int      // what the history wanted then
	last       *request // the controller's last read of web before it sent the delete
	known      *request // its last read of web that came back with a count, or NotFound
}

// failure is the named failure the delete is: a count from the cache, or
// a destruction the count did not ask for.
func (b *badDelete) failure() failure {
	if b.known != nil && b.known.kind() == getAny {
		return countCached
	}
	return noDestruction
}

func (b *badDelete) story(r *run) string {
	what := fmt.Sprintf("the controller asked server-1 at %s to delete %s, which would leave %d of web's pods", suite.FormatTime(b.sent), b.keys[0], b.pods)
	switch {
	case b.accepted:
		what = fmt.Sprintf("the controller deleted %s (sent at %s, accepted by etcd at %s), leaving %d of web's pods",
			b.keys[0], suite.FormatTime(b.sent), suite.FormatTime(b.acceptedAt), b.pods)
	case len(b.keys) > 1:
		what = fmt.Sprintf("in its reconcile begun at %s, the controller asked server-1 to delete %d pods, %s (the last at %s), which would leave %d of web's pods",
			suite.FormatTime(b.began), len(b.keys), strings.Join(b.keys, ", "), suite.FormatTime(b.sent), b.pods)
	}
	k := b.known
	switch {
	case k == nil:
		return what + fmt.Sprintf(", where the history wanted %d: no read of deployments/web had told it a count before", b.wanted)
	case k.kind() == getAny:
		return what + fmt.Sprintf(", on what it read of deployments/web at %s with resourceVersion \"0\", from server-1's watch cache: %s%s%s. "+
			"A cache may be behind the history (server-1's was, while it was cut off), and a count that may be behind is no ground to destroy a pod, "+
			"whatever the history wanted then (%d): a controller reads the count it acts on with a consistent read",
			suite.FormatTime(k.Call), k.answer(), r.fellBack(k), r.staleness(k), b.wanted)
	case errors.Is(k.Err, kube.ErrNotFound):
		whose := "that one was not"
		if r.cutOff(sim.NodeID(k.Server), k.Call, k.Return) {
			whose = fmt.Sprintf("that one was %s's answer to a store it could not reach, which is Unavailable, not absent", k.Server)
		}
		return what + fmt.Sprintf(", because its consistent read of deployments/web sent at %s through %s was answered NotFound at %s, %s (the history wanted %d when it asked): "+
			"web was never gone. A NotFound is ground to delete what web owns only when it is true, and %s",
			suite.FormatTime(k.Call), k.Server, suite.FormatTime(k.Return), r.notGone(k.Call, k.Return), b.wanted, whose)
	}
	believed := fmt.Sprintf(", where the last count it had read, at %s, wants %d", suite.FormatTime(k.Call), k.obj().Replicas)
	l := b.last
	if l == k {
		return what + believed + fmt.Sprintf(" (and the history wanted %d then): it asked to delete pods its own count wants", b.wanted)
	}
	why := "the store could not be reached"
	if l.took() >= controllerTimeout {
		why = fmt.Sprintf("server-1's answer did not reach it within its own timeout of %s", controllerTimeout)
	}
	return what + believed + fmt.Sprintf(": its read of deployments/web sent at %s had come back at %s without an answer, %s (%s), and it took a failed read for a deployment that wants fewer pods",
		suite.FormatTime(l.Call), suite.FormatTime(l.Return), l.answer(), why)
}

// fellBack is ", asked right after its consistent read of deployments/web,
// sent at 1300ms, had failed at 1310ms with ServiceUnavailable (503)" when
// the controller's last read of web before the cached one k was a
// consistent read that failed: it fell back to the cache. Otherwise "".
func (r *run) fellBack(k *request) string {
	var prev *request
	for _, q := range r.webReads() {
		if q.Call < k.Call {
			prev = q
		}
	}
	if prev == nil || prev.kind() != getLatest || prev.Err == nil || errors.Is(prev.Err, kube.ErrNotFound) || prev.Return > k.Call {
		return ""
	}
	return fmt.Sprintf(", asked right after its consistent read of deployments/web, sent at %s, had failed at %s with %s",
		suite.FormatTime(prev.Call), suite.FormatTime(prev.Return), prev.answer())
}

// staleness is "; the history had left that count behind: it held
// deployments/web at replicas=6 since rv=12, accepted at 1102ms" when the
// cached count k read was older than the history's web at that moment.
// Otherwise "".
func (r *run) staleness(k *request) string {
	cached := k.obj()
	var last check.Change
	for _, c := range r.store.Changes() {
		if c.At <= k.Call && c.Key == web {
			last = c
		}
	}
	if last.Key == "" || last.Version <= cached.ResourceVersion {
		return ""
	}
	return fmt.Sprintf("; the history had left that count behind: it held deployments/web at %s since rv=%d, accepted at %s, %s before the read",
		describeWeb(last), last.Version, suite.FormatTime(last.At), suite.FormatTime(k.Call-last.At))
}

// describeWeb is web as a change left it: "replicas=6", or "deleted".
func describeWeb(c check.Change) string {
	if c.Deleted {
		return "deleted"
	}
	return fmt.Sprintf("replicas=%v", c.Value)
}

// belief is what the controller knew of web when it sent a request at t:
// its last read of web, and its last read that came back with a count or
// with NotFound (web is gone: it wants none).
func (r *run) belief(t time.Duration) (last, known *request) {
	for _, q := range r.webReads() {
		if q.Return > t {
			continue
		}
		last = q
		if q.Err == nil || errors.Is(q.Err, kube.ErrNotFound) {
			known = q
		}
	}
	return last, known
}

// webReads is every get of deployments/web the controller sent,
// consistent or cached, in the order the scene logged them: what fellBack
// and belief look back over.
func (r *run) webReads() []*request {
	var out []*request
	for _, q := range r.s.Requests.All() {
		if g, get := q.Ask.(kube.GetRequest); get && q.Client == string(controller) && g.Key == web {
			q := request(q)
			out = append(out, &q)
		}
	}
	return out
}

// justified decides about deletes of web's pods that would leave pods pods,
// the last sent at sent: fine if the controller's last read of web before
// it, a consistent one, counted no more (a NotFound counts none). A read
// that raced a scale is the controller's best knowledge, not a failure of
// it; a count from the cache, or none, is no knowledge.
func (r *run) justified(keys []string, sent, at time.Duration, pods int) *badDelete {
	b := &badDelete{keys: keys, began: sent, sent: sent, pods: pods}
	_, b.wanted = podsAndDesired(r.stateAt("", r.versionAt(at)))
	b.last, b.known = r.belief(sent)
	switch k := b.known; {
	case k == nil || k.kind() == getAny:
		return b
	case errors.Is(k.Err, kube.ErrNotFound):
		if r.notGone(k.Call, k.Return) != "" {
			return b // a NotFound while web stood all along: no knowledge that it was gone
		}
		return nil
	case pods >= k.obj().Replicas:
		return nil
	}
	return b
}

// deleted is called by the store after it accepted a delete of key.
func (r *run) deleted(p *sim.Proc, key string, o kube.Object) {
	if key == web {
		r.goneAt = p.Now()
	}
	if o.Kind != "pods" || o.Owner != web || r.bad != nil || key == evicted && r.evictedAt(p.Now()) {
		return
	}
	sent := p.Now()
	for _, op := range r.s.History.Operations() {
		if op.Client == string(controller) && op.Input.Kind == check.KindDelete && op.Input.Key == key && op.Call <= p.Now() {
			sent = op.Call
		}
	}
	pods, _ := podsAndDesired(r.stateAt("", r.store.ResourceVersion()))
	if b := r.justified([]string{key}, sent, p.Now(), pods); b != nil {
		b.accepted, b.acceptedAt = true, p.Now()
		r.bad = b
	}
}

// evictedAt reports whether the pipeline had asked, by t, to delete the pod
// evicted: a deletion nobody but the controller may make is the
// pipeline's to make.
func (r *run) evictedAt(t time.Duration) bool {
	for _, op := range r.s.History.Operations() {
		if op.Client == string(pipeline) && op.Input.Kind == check.KindDelete && op.Input.Key == evicted && op.Call <= t {
			return true
		}
	}
	return false
}

// reconcileOf is the controller's reconcile that was running at t.
func (r *run) reconcileOf(t time.Duration) (span, bool) {
	for _, s := range r.reconciles {
		if s.start <= t && (s.end == 0 || t <= s.end) {
			return s, true
		}
	}
	return span{}, false
}

// controllerHeld judges the controller's deletes: every one it sent,
// counted with the deletes its reconcile sent before it (refused or not,
// they asked for as much), and every one etcd accepted.
func (r *run) controllerHeld() *suite.Failure {
	first := r.bad // the first accepted delete nobody asked for
	var deletes []check.Operation
	for _, op := range r.s.History.Operations() {
		if op.Client == string(controller) && op.Input.Kind == check.KindDelete && strings.HasPrefix(op.Input.Key, "pods/") {
			deletes = append(deletes, op)
		}
	}
	for _, op := range deletes {
		if first != nil && op.Call >= first.sent {
			break
		}
		state := r.stateAt("", r.versionAt(op.Call))
		if _, exists := state[op.Input.Key]; !exists {
			continue // a delete of what is already gone takes nothing away
		}
		// The pods standing that this reconcile asked to delete so far.
		rec, ok := r.reconcileOf(op.Call)
		if !ok {
			rec = span{start: op.Call, end: op.Call}
		}
		var asked []string
		for _, d := range deletes {
			if _, stands := state[d.Input.Key]; stands && d.Call >= rec.start && d.Call <= op.Call && !slices.Contains(asked, d.Input.Key) {
				asked = append(asked, d.Input.Key)
			}
		}
		pods, _ := podsAndDesired(state)
		if b := r.justified(asked, op.Call, op.Call, pods-len(asked)); b != nil {
			b.began = rec.start
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
	return r.fail(first.failure(), at, "", "%s (%s)", first.story(r), r.outage())
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
	standing, lacking, extra := webPods(state)
	if pods, _ := podsAndDesired(state); !webThere && pods > 0 {
		return r.fail(noCatchUp, a.at, "", "%s after the link came back at %s, web had been gone from the history since %s (the pipeline deleted it), and %d of its pods still stood (%s): "+
			"a deployment that is gone wants no pods, and the controller did not delete them once a read said NotFound", CatchUp, suite.FormatTime(heal), suite.FormatTime(r.goneAt), pods, podList(standing))
	}
	if pods, desired := podsAndDesired(state); pods != desired || len(lacking) > 0 {
		missing := ""
		if _, there := state[evicted]; r.sc.evictAt > 0 && !there && desired > 1 {
			missing = fmt.Sprintf(" %s, which the pipeline deleted at %s, was never made again, though web wants it by its name;", evicted, suite.FormatTime(r.sc.evictAt))
		}
		var off []string
		if len(lacking) > 0 {
			off = append(off, podList(lacking)+" missing")
		}
		if len(extra) > 0 {
			off = append(off, podList(extra)+" standing, which it does not want")
		}
		return r.fail(noCatchUp, a.at, "", "%s after the link came back at %s, web has %d pods in the history (%s) where it wants %d: %s;%s the controller did not catch up",
			CatchUp, suite.FormatTime(heal), pods, podList(standing), desired, strings.Join(off, ", "), missing)
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
// sent, with the outage marked, fitted to the report's width.
func (r *run) outageFigure() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (seed %d)\n", r.sc.cut, r.s.Seed)
	t := table.Table{Header: []string{"sent ", "client", "via", "request", "answered", "after", "answer"},
		Right: []bool{0: true, 4: true, 5: true}}
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
		t.Rows = append(t.Rows, []string{suite.FormatTime(q.Call) + mark, q.Client, string(q.Server), q.what(), suite.FormatTime(q.Return), suite.FormatTime(q.took()), q.answer()})
	}
	b.WriteString(t.String())
	b.WriteString("✂ sent through server-1 while its link to etcd was cut")
	return b.String()
}
