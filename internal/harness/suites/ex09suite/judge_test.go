package ex09suite

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// idle is an implementation that is never run: the tests below judge
// records they write themselves.
var idle = Impl{
	Serve:     func(p *sim.Proc, store sim.NodeID) {},
	Reconcile: func(p *sim.Proc, c *kube.Client, pods *kube.Informer, key string) error { return nil },
}

// judged builds the story's world without running it, so that a test can
// write what the clients saw and ask a row for its verdict.
func judged(t *testing.T) *run {
	r := build(1, storyScenario(), idle)
	t.Cleanup(r.s.Close)
	return r
}

// saw makes qs the requests the clients of r made, as the scene logged them.
func saw(r *run, qs ...kube.Request) {
	r.s.Requests = &kube.Requests{}
	for _, q := range qs {
		r.s.Requests.Add(q)
	}
	r.read(qs)
}

// fails asserts that f is the failure want, and that its story says says.
func fails(t *testing.T, f *suite.Failure, want failure, says string) {
	t.Helper()
	require.NotNil(t, f)
	assert.Equal(t, want.name, f.Name)
	assert.Contains(t, f.Story, says)
}

var (
	getWeb      = kube.GetRequest{Key: web}
	getWebAny   = kube.GetRequest{Key: web, Opts: kube.ReadOptions{ResourceVersion: kube.Any}}
	listPods    = kube.ListRequest{Kind: "pods"}
	listPodsAny = kube.ListRequest{Kind: "pods", Opts: kube.ReadOptions{ResourceVersion: kube.Any}}
)

// The story's own scene: web at rv=1, its five pods at rv=2..6, batch at 7,
// job-0 at 8.
func TestTheSceneBeginsWithWebItsFivePodsBatchAndAJob(t *testing.T) {
	r := judged(t)
	pods, desired := podsAndDesired(r.stateAt("", 8))
	assert.Equal(t, 5, pods)
	assert.Equal(t, 5, desired)
	assert.Equal(t, int64(8), r.versionAt(0))
}

// kubectl's "get pods" during the outage must not be answered from
// server-1's cache: server-1 could not have asked etcd.
func TestAConsistentReadAnsweredDuringTheOutageCameFromTheCache(t *testing.T) {
	r := judged(t)
	saw(r, kube.Request{Client: "kubectl", Server: server1, Ask: getWeb,
		Call: 1500 * ms, Return: 1512 * ms, Reply: kube.Object{Kind: "deployments", Name: "web", Replicas: 5, ResourceVersion: 1}})
	fails(t, r.consistentReads(), readStale, "server-1 could not have asked the store")
}

// The same read failing within the bound is what the table asks for; one
// that took longer hung, whatever it said in the end.
func TestAConsistentReadMustFailWithinTheBound(t *testing.T) {
	r := judged(t)
	fast := kube.Request{Client: "kubectl", Server: server1, Ask: listPods, Call: 1500 * ms, Return: 1810 * ms,
		Err: kube.Unavailable("the store did not answer")}
	saw(r, fast)
	assert.Nil(t, r.consistentReads())
	slow := fast
	slow.Return = 1500*ms + Bound + time.Millisecond
	saw(r, slow)
	f := r.consistentReads()
	fails(t, f, readHung, "instead of failing within 1s")
	assert.Equal(t, 2500*ms, f.At, "the moment the bound ran out")
}

// A cached list must be the history as of the version it names: five pods
// at rv=8 is true, four is not, and rv=9 names a version never accepted.
func TestACachedListIsJudgedAgainstTheVersionItNames(t *testing.T) {
	r := judged(t)
	var items []kube.Object
	for _, o := range r.store.Objects() {
		if o.Kind == "pods" {
			items = append(items, o)
		}
	}
	q := kube.Request{Client: "kubectl", Server: server1, Ask: listPodsAny, Call: 1500 * ms, Return: 1505 * ms,
		Reply: kube.List{Items: items, ResourceVersion: 8}}
	saw(r, q)
	assert.Nil(t, r.cachedReads())

	q.Reply = kube.List{Items: items[1:], ResourceVersion: 8}
	saw(r, q)
	fails(t, r.cachedReads(), cachedUntrue, "pods/web-0 missing")

	q.Reply = kube.List{Items: items, ResourceVersion: 9}
	saw(r, q)
	require.NotNil(t, r.cachedReads())
	assert.Contains(t, r.cachedReads().Story, "had only reached rv=8")
}

// A delete is fine when the controller's last read of web wanted fewer
// pods; after a failed read, the count it acts on is the last it read, and
// one from the cache is no count to destroy by.
func TestADeleteIsJudgedByTheLastCountTheControllerRead(t *testing.T) {
	r := judged(t)
	read := func(call time.Duration, ask kube.GetRequest, reply kube.Object, err error) kube.Request {
		return kube.Request{Client: string(controller), Server: server1, Ask: ask, Call: call, Return: call + 10*ms, Reply: reply, Err: err}
	}
	five := kube.Object{Kind: "deployments", Name: "web", Replicas: 5, ResourceVersion: 1}
	three := kube.Object{Kind: "deployments", Name: "web", Replicas: 3, ResourceVersion: 12}
	failed := read(1000*ms, getWeb, kube.Object{}, kube.Unavailable("the store did not answer"))
	failed.Return = 1300 * ms

	saw(r, failed)
	b := r.justified([]string{"pods/web-4"}, 1310*ms, 1310*ms, 4)
	require.NotNil(t, b, "no count was ever read")
	assert.Contains(t, b.story(r), "no read of deployments/web had told it a count")

	saw(r, read(500*ms, getWeb, five, nil), failed)
	b = r.justified([]string{"pods/web-4"}, 1310*ms, 1310*ms, 4)
	require.NotNil(t, b, "the last count was 5; deleting web-4 leaves 4")
	assert.Equal(t, noDestruction, b.failure())
	assert.Contains(t, b.story(r), "took a failed read for a deployment that wants fewer pods")

	saw(r, read(500*ms, getWeb, five, nil), failed, read(1400*ms, getWeb, three, nil))
	assert.Nil(t, r.justified([]string{"pods/web-4"}, 1420*ms, 1420*ms, 4), "its last read said web wants 3")
	assert.NotNil(t, r.justified([]string{"pods/web-2"}, 1420*ms, 1420*ms, 2), "but not fewer than 3")
	saw(r, read(1400*ms, getWeb, kube.Object{}, kube.NotFound(web)))
	b = r.justified([]string{"pods/web-0", "pods/web-1", "pods/web-2", "pods/web-3", "pods/web-4"}, 1420*ms, 1420*ms, 0)
	require.NotNil(t, b, "a NotFound while web stood all along says nothing of what web wants")
	assert.Equal(t, noDestruction, b.failure())
	assert.Contains(t, b.story(r), "because its consistent read of deployments/web sent at 1400ms through server-1 was answered NotFound at 1410ms, "+
		"but the history held deployments/web=5 (since rv=1, accepted at 0ms) all the while")
	assert.Contains(t, b.story(r), "that one was server-1's answer to a store it could not reach, which is Unavailable, not absent")

	saw(r, read(1400*ms, getWebAny, three, nil))
	b = r.justified([]string{"pods/web-4"}, 1420*ms, 1420*ms, 4)
	require.NotNil(t, b, "a count from the cache")
	assert.Equal(t, countCached, b.failure())
	assert.Contains(t, b.story(r), "from server-1's watch cache: deployments/web{replicas=3 rv=12}")
	assert.NotContains(t, b.story(r), "asked right after", "no consistent read failed before it")
	assert.NotContains(t, b.story(r), "left that count behind", "the history holds no newer web")

	// A controller that falls back to the cache when its consistent read
	// fails: the story names the failed read, and how far the cached count
	// was behind the history.
	require.NoError(t, r.store.Apply(nil, kube.Event{Type: kube.Modified, Object: three}))
	require.NoError(t, r.store.Apply(nil, kube.Event{Type: kube.Modified, Object: kube.Object{Kind: "deployments", Name: "web", Replicas: 6, ResourceVersion: 13}}))
	saw(r, read(500*ms, getWeb, five, nil), failed, read(1300*ms, getWebAny, three, nil))
	b = r.justified([]string{"pods/web-4"}, 1320*ms, 1320*ms, 4)
	require.NotNil(t, b)
	assert.Equal(t, countCached, b.failure())
	assert.Contains(t, b.story(r), "deployments/web{replicas=3 rv=12}, asked right after its consistent read of deployments/web, sent at 1000ms, had failed at 1300ms with Unavailable (500)")
	assert.Contains(t, b.story(r), "; the history had left that count behind: it held deployments/web at replicas=6 since rv=13, accepted at 0ms, 1300ms before the read")
}

// A watch that comes back past a change skipped it; one that delivers a
// change the history does not hold was told of something never accepted.
func TestAWatchMustFollowTheHistoryWithoutAGap(t *testing.T) {
	r := judged(t)
	scale := kube.Event{Type: kube.Modified, Object: kube.Object{Kind: "deployments", Name: "web", Replicas: 7, ResourceVersion: 9}}
	job := kube.Event{Type: kube.Added, Object: kube.Object{Kind: "deployments", Name: "job-1", Replicas: 1, ResourceVersion: 10}}
	require.NoError(t, r.store.Apply(nil, scale))
	require.NoError(t, r.store.Apply(nil, job))
	var first []kube.Event // the deployments as the history added them: web, batch, job-0
	for _, c := range r.store.Changes() {
		if k, name := kube.SplitKey(c.Key); k == "deployments" && c.Version <= 8 {
			first = append(first, kube.Event{Type: kube.Added, Object: kube.Object{Kind: k, Name: name, Replicas: c.Value.(int), ResourceVersion: c.Version}})
		}
	}
	watch := func(from int64, call, ret time.Duration, events ...kube.Event) kube.Request {
		return kube.Request{Client: "watcher", Server: server1, Ask: kube.WatchRequest{Kind: "deployments", ResourceVersion: from, Wait: watchWait},
			Call: call, Return: ret, Reply: events}
	}
	saw(r, watch(0, 0, 10*ms, first...), watch(8, 4100*ms, 4200*ms, job))
	fails(t, r.watchesFollow(), watchSkipped, "skipping rv=9")

	saw(r, watch(0, 0, 10*ms, first...), watch(8, 4100*ms, 4200*ms, scale, job))
	assert.Nil(t, r.watchesFollow())

	bogus := kube.Event{Type: kube.Modified, Object: kube.Object{Kind: "deployments", Name: "web", Replicas: 6, ResourceVersion: 9}}
	saw(r, watch(0, 0, 10*ms, first...), watch(8, 4100*ms, 4200*ms, bogus))
	fails(t, r.watchesFollow(), watchUnaccepted, "a change the history does not hold at rv=9")
}

// A write acknowledged from server-1's memory while the link was cut is the
// failure of the writes row, however the history later took it.
func TestAWriteAcknowledgedBeforeTheHistoryHeldItIsCaught(t *testing.T) {
	r := judged(t)
	h := r.s.History
	id := h.Call(string(kubectl), string(server1), check.Write(web, 6), 2000*ms)
	h.Return(id, check.Acked(9), 2300*ms)
	fails(t, r.writes(), writeAcked, "it never reached the history")

	later := kube.Event{Type: kube.Modified, Object: kube.Object{Kind: "deployments", Name: "web", Replicas: 6, ResourceVersion: 9}}
	require.NoError(t, r.store.Apply(nil, later)) // accepted "at 0ms" here: before the yes, so fine
	assert.Nil(t, r.writes())
}

// Once the link is back, a cache still behind the history has not caught
// up, even if everything it shows was true once.
func TestACacheStillBehindAfterTheOutageHasNotCaughtUp(t *testing.T) {
	r := judged(t)
	lists := func(rv int64) [2]kube.List {
		var d, p kube.List
		d.ResourceVersion, p.ResourceVersion = rv, rv
		for _, o := range r.store.Objects() {
			if o.ResourceVersion > rv {
				continue
			}
			if o.Kind == "deployments" {
				d.Items = append(d.Items, o)
			} else {
				p.Items = append(p.Items, o)
			}
		}
		return [2]kube.List{d, p}
	}
	r.audit = audit{done: true, at: 7000 * ms, rv: 8,
		caches:    map[sim.NodeID][2]kube.List{server1: lists(8), server2: lists(8)},
		cacheErrs: map[sim.NodeID]error{}}
	saw(r, kube.Request{Client: "auditor", Server: server1, Ask: getWeb, Call: 7000 * ms, Return: 7010 * ms},
		kube.Request{Client: "auditor", Server: server1, Ask: kube.UpdateRequest{}, Call: 7010 * ms, Return: 7020 * ms},
		kube.Request{Client: "watcher", Server: server1, Ask: kube.WatchRequest{Kind: "pods"}, Return: 10 * ms,
			Reply: []kube.Event{{Type: kube.Added, Object: kube.Object{Kind: "pods", Name: "web-4", Owner: web, ResourceVersion: 6}}}},
		kube.Request{Client: "watcher", Server: server1, Ask: kube.WatchRequest{Kind: "deployments"}, Return: 10 * ms,
			Reply: []kube.Event{{Type: kube.Added, Object: kube.Object{Kind: "deployments", Name: "job-0", Replicas: 1, ResourceVersion: 8}}}})
	assert.Nil(t, r.caughtUp())

	r.audit.caches[server1] = lists(6)
	fails(t, r.caughtUp(), noCatchUp, "server-1's cache of deployments was still at rv=6")

	// The pipeline evicts web-1 after the heal: web still wants it, by its
	// name, and a controller that never makes it again is told so.
	r.sc.evictAt = r.sc.cut.Until() + evictAfter
	r.audit.caches[server1] = lists(8)
	_, err := r.store.Delete(nil, evicted, 0)
	require.NoError(t, err)
	r.audit.rv = r.store.ResourceVersion()
	fails(t, r.caughtUp(), noCatchUp, "web has 4 pods in the history (pods/web-0, pods/web-2, pods/web-3, pods/web-4) where it wants 5: pods/web-1 missing; pods/web-1, which the pipeline deleted at 4600ms, was never made again, though web wants it by its name; the controller did not catch up")
}

// A "0" read of web that says NotFound is a refusal while the history
// holds web, and the truth once the history has deleted it.
func TestACachedNotFoundOfAGoneDeploymentIsTheTruth(t *testing.T) {
	r := judged(t)
	saw(r, kube.Request{Client: "kubectl", Server: server1, Ask: getWebAny, Call: 1500 * ms, Return: 1505 * ms, Err: kube.ErrNotFound})
	fails(t, r.cachedReads(), cachedRefused, `(a read with resourceVersion "0", which any version may answer) got NotFound`)
	_, err := r.store.Delete(nil, web, 0)
	require.NoError(t, err)
	assert.Nil(t, r.cachedReads())
}

// When the pipeline creates web again a while after server-1 could read
// that it was gone, the pods web had before must be gone: a NotFound says
// for sure that web wants none.
func TestPodsOfAGoneDeploymentMustGoBeforeItComesBack(t *testing.T) {
	r := judged(t)
	r.goneAt = 2000 * ms // in the outage, which ends at 4000ms
	r.recreated(r.sc.cut.Until() + goneSettle - ms)
	assert.Nil(t, r.orphans, "too soon after the heal to ask")
	r.recreated(r.sc.cut.Until() + goneSettle)
	require.NotNil(t, r.orphans)
	fails(t, r.caughtUp(), noCatchUp, "web's old pods still stood (web-0, web-1, web-2, web-3, web-4)")
}

// A request is told as the page's figure tells it: the read's mode, a
// write's precondition, web's create with what it wants.
func TestARequestIsToldAsTheFigureTellsIt(t *testing.T) {
	told := func(ask any) string { return request{Ask: ask}.what() }
	assert.Equal(t, "GET deployments/web", told(getWeb))
	assert.Equal(t, "LIST pods (rv=0)", told(listPodsAny))
	assert.Equal(t, "UPDATE deployments/batch replicas=47 if rv=9",
		told(kube.UpdateRequest{Object: kube.Object{Kind: "deployments", Name: "batch", Replicas: 47, ResourceVersion: 9}}))
	assert.Equal(t, "CREATE deployments/job-107", told(kube.CreateRequest{Object: kube.Object{Kind: "deployments", Name: "job-107", Replicas: 1}}))
	assert.Equal(t, "CREATE deployments/web replicas=7", told(kube.CreateRequest{Object: kube.Object{Kind: "deployments", Name: "web", Replicas: 7}}))
	assert.Equal(t, "DELETE deployments/job-0", told(kube.DeleteRequest{Key: "deployments/job-0"}))
}

// A write on its way to etcd as the link was cut: etcd took it, and only
// its answer was lost. Timeout is the truth; a definite refusal is not.
func TestAWriteInFlightAtTheCutMayNotBeRefused(t *testing.T) {
	r := judged(t)
	scale := kube.Object{Kind: "deployments", Name: "batch", Replicas: 33}
	_, err := r.store.Update(nil, scale) // rv=9, at 0ms: the store's clock is not running
	require.NoError(t, err)
	q := kube.Request{Client: "kubectl", Server: server1, Ask: kube.UpdateRequest{Object: scale}, Call: 0, Return: 1310 * ms, Err: kube.ErrTimeout}
	saw(r, q)
	assert.Nil(t, r.toldDefinite(), "Timeout: it may or may not have happened")

	q.Err = kube.StatusError{Code: 422, Reason: "Invalid", Message: "not written"}
	saw(r, q)
	f := r.toldDefinite()
	require.NotNil(t, f)
	assert.Equal(t, toldRefusal.name, f.Name)
	assert.Contains(t, f.Story, "server-1 answered kubectl's UPDATE deployments/batch replicas=33 (sent at 0ms) Invalid (422) at 1310ms, a definite no, but etcd had accepted that very write")
}

// A refusal whose reason stood false all the while the store was out of
// reach was made up; one the history bears out was not.
func TestARefusalTheHistoryContradictsWasMadeUp(t *testing.T) {
	r := judged(t)
	del := kube.Request{Client: "kubectl", Server: server1, Ask: kube.DeleteRequest{Key: "deployments/job-0", ResourceVersion: 8},
		Call: 1500 * ms, Return: 1810 * ms, Err: kube.ErrConflict}
	saw(r, del)
	f := r.toldDefinite()
	require.NotNil(t, f)
	assert.Equal(t, toldRefusal.name, f.Name)
	assert.Contains(t, f.Story, "deployments/job-0 stood at rv=8 all the while, so nothing conflicted")

	del.Err = kube.ErrNotFound
	saw(r, del)
	require.NotNil(t, r.toldDefinite())
	assert.Equal(t, toldAbsent.name, r.toldDefinite().Name)

	stale := del
	stale.Ask, stale.Err = kube.DeleteRequest{Key: "deployments/job-0", ResourceVersion: 7}, kube.ErrConflict
	saw(r, stale)
	assert.Nil(t, r.toldDefinite(), "job-0 is at rv=8, not 7: the conflict is true")
}

// A consistent get answered NotFound while server-1 could not reach etcd
// and web stood all along: neither the store nor the cache said so.
func TestANotFoundWhileCutOffIsASilenceToldAsAbsence(t *testing.T) {
	r := judged(t)
	saw(r, kube.Request{Client: "kubectl", Server: server1, Ask: getWeb, Call: 1500 * ms, Return: 1810 * ms, Err: kube.ErrNotFound})
	f := r.consistentReads()
	require.NotNil(t, f)
	assert.Equal(t, toldAbsent.name, f.Name)
	assert.Contains(t, f.Story, "kubectl's GET deployments/web through server-1 at 1500ms (a consistent read) was answered NotFound at 1810ms, while the link")
}

// Deletes refused one by one each take away nothing, yet a reconcile that
// asks for three of five pods where its count wants three asked to leave
// two: they are counted together.
func TestAReconcileIsJudgedByAllTheDeletesItAskedFor(t *testing.T) {
	r := judged(t)
	r.reconciles = []span{{start: 1000 * ms, end: 1900 * ms}}
	saw(r, kube.Request{Client: string(controller), Server: server1, Ask: getWeb, Call: 1000 * ms, Return: 1010 * ms,
		Reply: kube.Object{Kind: "deployments", Name: "web", Replicas: 3, ResourceVersion: 9}})
	deletes := func(pods ...int) {
		r.s.History = &check.History{}
		for i, pod := range pods {
			at := 1100*ms + time.Duration(i)*100*ms
			id := r.s.History.Call(string(controller), string(server1), check.Delete(fmt.Sprintf("pods/web-%d", pod)), at)
			r.s.History.Return(id, check.Result{Outcome: check.Indefinite}, at+50*ms)
		}
	}
	deletes(4, 3)
	assert.Nil(t, r.controllerHeld(), "its read said 3: two of five may go")

	deletes(4, 3, 2)
	f := r.controllerHeld()
	require.NotNil(t, f, "three deletes leave 2 where the count it read wants 3")
	assert.Equal(t, noDestruction.name, f.Name)
	assert.Contains(t, f.Story, "in its reconcile begun at 1000ms, the controller asked server-1 to delete 3 pods, "+
		"pods/web-4, pods/web-3, pods/web-2 (the last at 1300ms), which would leave 2 of web's pods, where the last count it had read, at 1000ms, wants 3")
}

// A watch cache only moves forward: a server that answered a cached read
// at rv=8 and then one at rv=0, or NotFound for the web it had shown, went
// back. A get of web showing web's own version, below the list's, and a
// second server's answers, are no such thing.
func TestACacheThatGoesBackIsToldByTheAnswerItHadGivenBefore(t *testing.T) {
	r := judged(t)
	var items []kube.Object
	for _, o := range r.store.Objects() {
		if o.Kind == "pods" {
			items = append(items, o)
		}
	}
	webObj, err := r.store.Get(nil, web, kube.ReadOptions{})
	require.NoError(t, err)
	listed := kube.Request{Client: "kubectl", Server: server1, Ask: listPodsAny, Call: 1500 * ms, Return: 1505 * ms,
		Reply: kube.List{Items: items, ResourceVersion: 8}}
	got := kube.Request{Client: "kubectl", Server: server1, Ask: getWebAny, Call: 1600 * ms, Return: 1605 * ms, Reply: webObj}
	elsewhere := kube.Request{Client: "pipeline", Server: server2, Ask: listPodsAny, Call: 1700 * ms, Return: 1705 * ms,
		Reply: kube.List{Items: items, ResourceVersion: 7}}
	saw(r, listed, got, elsewhere)
	assert.Nil(t, r.cacheWentBack(), "web's own version is below the list's; server-2 has its own cache")

	empty := kube.Request{Client: "kubectl", Server: server1, Ask: listPodsAny, Call: 1800 * ms, Return: 1805 * ms, Reply: kube.List{Items: []kube.Object{}}}
	saw(r, listed, got, empty)
	fails(t, r.cachedReads(), cacheBack, "server-1's watch cache went back: kubectl's LIST pods (rv=0) through server-1 at 1800ms was answered 0 items @rv=0 at 1805ms, though at 1505ms the same server had answered LIST pods (rv=0) with 5 items @rv=8")

	gone := kube.Request{Client: "kubectl", Server: server1, Ask: getWebAny, Call: 1800 * ms, Return: 1805 * ms, Err: kube.ErrNotFound}
	saw(r, listed, gone)
	fails(t, r.cachedReads(), cacheBack, "was answered NotFound (404) at 1805ms")
	_, err = r.store.Delete(nil, web, 0)
	require.NoError(t, err)
	assert.Nil(t, r.cacheWentBack(), "web was deleted: NotFound is the truth")
}

// A delete after a read that said NotFound is fine when web was gone: it
// wants no pods.
func TestADeleteAfterATrueNotFoundIsFine(t *testing.T) {
	r := judged(t)
	_, err := r.store.Delete(nil, web, 0)
	require.NoError(t, err)
	saw(r, kube.Request{Client: string(controller), Server: server1, Ask: getWeb, Call: 1400 * ms, Return: 1410 * ms, Err: kube.NotFound(web)})
	assert.Nil(t, r.justified([]string{"pods/web-0"}, 1420*ms, 1420*ms, 0), "web is gone: it wants none")
}
