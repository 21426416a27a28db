package ex09suite

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

const (
	ms = time.Millisecond

	etcd       sim.NodeID = "etcd"
	server1    sim.NodeID = "server-1"
	server2    sim.NodeID = "server-2"
	controller sim.NodeID = "controller"
	kubectl    sim.NodeID = "kubectl"
	pipeline   sim.NodeID = "pipeline"
	watcher    sim.NodeID = "watcher"
	auditor    sim.NodeID = "auditor"

	web   = "deployments/web"
	batch = "deployments/batch"
	// evicted is the pod the pipeline deletes after the heal in one run of
	// three, evictAfter after the link came back: one from the middle of
	// web's pods, so that a controller that counts its pods rather than
	// naming them makes the wrong one.
	evicted    = "pods/web-1"
	evictAfter = 600 * ms

	// initialReplicas is what web wants, and has, when the scene begins.
	initialReplicas = 5

	// Bound is the longest a client may wait for an API server's answer
	// while the store is out of reach: a consistent read must have failed,
	// a write must have been refused, by then.
	Bound = time.Second
	// CatchUp is how long after the link comes back everything must have
	// caught up: the caches, the watches, the pods.
	CatchUp = 3 * time.Second
	// clientTimeout is how long kubectl, the pipeline, the watcher and the
	// auditor wait for an answer: long enough to see a hang for what it is.
	clientTimeout = 5 * time.Second
	// controllerTimeout is how long the controller waits, as client-go's
	// default would have it shorter than a person's patience.
	controllerTimeout = time.Second
	// watchWait is how long each watch the watcher sends waits for events.
	watchWait = time.Second
)

// Impl is the learner's package, as the thin test file hands it over.
type Impl struct {
	// Serve makes p's node an API server in front of the store node store.
	Serve func(p *sim.Proc, store sim.NodeID)
	// Reconcile reconciles the deployment at key once: pods is the
	// controller's informer of pods, c its client (through server-1).
	Reconcile func(p *sim.Proc, c *kube.Client, pods *kube.Informer, key string) error
}

// opKind is one thing kubectl does.
type opKind int

const (
	getLatest     opKind = iota + 1 // kubectl get deployment web
	listLatest                      // kubectl get pods
	getAny                          // kubectl get deployment web --resource-version=0
	listAny                         // kubectl get pods --resource-version=0
	listAnyDeploy                   // kubectl get deployments --resource-version=0
	scaleWeb                        // kubectl scale deployment web (unconditional)
	scaleBatch                      // kubectl scale deployment batch (unconditional)
	scaleBatchIf                    // kubectl scale deployment batch, if it is still at the version read
	createJob                       // kubectl create deployment job-N
	deleteJob                       // kubectl delete deployment job-N
	deleteJobIf                     // kubectl delete deployment job-N, if it is at the version named
	deleteWeb                       // the pipeline deletes deployment web (unconditional)
	evictPod                        // the pipeline deletes the pod web-1 (unconditional)
	createWeb                       // the pipeline creates deployment web again
)

func (k opKind) latest() bool { return k == getLatest || k == listLatest }

// step is one request kubectl sends, not before at.
type step struct {
	at   time.Duration
	kind opKind
	to   int // the replicas of a scale, the N of job-N
	// off is how far from the version kubectl knows a conditional delete's
	// precondition lies: -1, 0 or +1, so that it names a version on either
	// side of the one stored, or that one.
	off int64
}

// scenario is what one world does.
type scenario struct {
	cut     scene.Cut     // the link server-1 ↔ etcd cut, then restored
	steps   []step        // kubectl's requests, through server-1
	scaleAt time.Duration // when the pipeline scales web through server-2
	scaleTo int
	period  [2]time.Duration // the controller's pause between reconciles
	end     time.Duration

	// gone: the pipeline deletes web right after its scale, while the link
	// is cut; backAt, if not 0, is when it creates web again (wanting
	// scaleTo), after the link came back.
	gone   bool
	backAt time.Duration
	// evictAt, if not 0, is when the pipeline deletes the pod web-1 through
	// server-2, after the link came back, as a node drain or kubectl
	// delete pod would: the controller must make web-1 again, by its name,
	// while the pods after it stand.
	evictAt time.Duration
	// slow, if not nil, makes the controller's link to server-1 slower than
	// the controller's own timeout for a while during the outage: its
	// requests sent then end in its client's Timeout, not in server-1's
	// Unavailable.
	slow *scene.SlowLink
	// inflight slows server-1's way to etcd for the moment before the cut,
	// so that what server-1 sends then reaches etcd only once the link is
	// cut: etcd takes it, and its answer is lost. kubectl's scale of batch
	// sent then is a write whose outcome server-1 cannot know.
	inflight *scene.SlowOneWay
}

// The write in flight at the cut: sent by kubectl inflightLead before the
// cut, over a way to etcd slowed to inflightDelay for as long before it.
const (
	inflightLead  = 60 * ms
	inflightDelay = 100 * ms
)

// auditAt is when the auditor checks that everything caught up.
func (sc scenario) auditAt() time.Duration { return sc.cut.Until() + CatchUp }

// run is one world of the chapter and what the suite saw in it.
type run struct {
	sc    scenario
	s     *scene.Scene
	store *kube.MemStore

	audit      audit
	reconciles []span        // the controller's reconciles, from call to return (end 0: still running)
	bad        *badDelete    // the first accepted delete no successful read asked for
	goneAt     time.Duration // when the history deleted web (0: never)
	orphans    *orphans      // web's pods left standing when it was created again

	requests []request            // the requests the table judges (read)
	watched  map[string][]request // the watcher's, by kind (read)
}

// span is one reconcile of the controller: from when the suite called
// Reconcile to when it returned.
type span struct{ start, end time.Duration }

// Stage is the scene the run played.
func (r *run) Stage() *scene.Scene { return r.s }

// goneSettle is how long a pod of web may stand once web is gone from the
// history and server-1 can reach it: time for the controller's next read to
// say NotFound and for the deletes that follow.
const goneSettle = time.Second

// orphans are web's pods that stood for goneSettle or more while web was
// gone and server-1 could reach the store, seen when the pipeline created
// web again.
type orphans struct {
	at    time.Duration // when the history took web's create
	since time.Duration // from when the controller could have read NotFound
	pods  []string
}

// audit is what the auditor found once everything should have caught up.
type audit struct {
	done      bool
	at        time.Duration
	rv        int64                       // the history's last version then
	caches    map[sim.NodeID][2]kube.List // server → deployments, pods (rv=0)
	cacheErrs map[sim.NodeID]error
}

// build makes the world of sc: the store, two API servers running impl,
// the controller, kubectl, the pipeline, the watcher and the auditor.
func build(seed int64, sc scenario, impl Impl) *run {
	s := scene.New(seed, nil, scene.Named(server1, server2), scene.RequestTimeout(clientTimeout),
		scene.Latency(2*ms, 20*ms))
	r := &run{sc: sc, s: s, store: kube.NewMemStore(0)}

	// The state before the scene, in the store and, for the checkers, in
	// the history of client operations.
	must := func(o kube.Object) {
		o, err := r.store.Create(nil, o)
		if err != nil {
			panic(err)
		}
		id := s.History.Call("(before)", "", check.Create(o.Key(), o.Value()), 0)
		s.History.Return(id, check.Acked(o.ResourceVersion), 0)
	}
	must(kube.Object{Kind: "deployments", Name: "web", Replicas: initialReplicas})
	for i := range initialReplicas {
		must(kube.Object{Kind: "pods", Name: fmt.Sprintf("web-%d", i), Owner: web})
	}
	must(kube.Object{Kind: "deployments", Name: "batch", Replicas: 1})
	must(kube.Object{Kind: "deployments", Name: "job-0", Replicas: 1})

	s.Client(string(kubectl), func(p *sim.Proc, api *kube.Client) {
		sendAll(p, api.Pin(server1), sc.steps, 7) // batch is at rv=7 as the scene begins
	})
	s.Client(string(controller), func(p *sim.Proc, api *kube.Client) { r.control(p, api, impl) })
	s.Client(string(watcher), r.watch)
	s.W.AddNode(etcd, s.Store(r.store, r.accepted))
	for _, id := range s.Servers {
		s.W.AddNode(id, func(p *sim.Proc) { impl.Serve(p, etcd) })
	}
	s.Client(string(pipeline), func(p *sim.Proc, api *kube.Client) {
		sendAll(p, api.Pin(server2), sc.pipelineSteps(), 0)
	})
	s.Client(string(auditor), r.auditor)
	s.Inject(sc.cut)
	if sc.slow != nil {
		s.Inject(*sc.slow)
	}
	if sc.inflight != nil {
		s.Inject(*sc.inflight)
	}
	s.Lanes(kubectl, controller, server1, etcd, server2, pipeline)
	s.Show(r.shown)
	return r
}

// play builds the world and runs it to its end; the runner judges it and
// closes it.
func play(seed int64, sc scenario, impl Impl) *run {
	r := build(seed, sc, impl)
	_ = r.s.Run(sc.end) // the error stays in r.s.Err, for ran
	r.read(r.s.Requests.All())
	return r
}

// shown is what the timeline shows: every note (each client request and
// its answer), the faults, and the servers' requests to etcd other than the
// watch cache's polling (those lost on the cut, as lost).
func (r *run) shown(e sim.Event) bool {
	switch e.Kind {
	case sim.EvNote:
		return e.Node != watcher && e.Node != auditor
	case sim.EvFault, sim.EvCrash, sim.EvRestart:
		return true
	case sim.EvSend, sim.EvDrop:
		if _, watch := e.Msg.(kube.WatchRequest); watch || !r.s.IsServer(e.Node) || e.Peer != etcd {
			return false
		}
		// A request lost on the cut shows once, as lost.
		return e.Kind == sim.EvDrop || !(e.Node == r.sc.cut.A && r.sc.cut.During(e.At))
	}
	return false
}

// accepted notes the deletes, and the creates of web, that the store
// accepts (scene.Store).
func (r *run) accepted(p *sim.Proc, _ sim.NodeID, req any, o, _ kube.Object) {
	switch q := req.(type) {
	case kube.DeleteRequest:
		r.deleted(p, q.Key, o)
	case kube.CreateRequest:
		if q.Object.Key() == web {
			r.recreated(p.Now())
		}
	}
}

// send sends one of kubectl's, the pipeline's or the auditor's requests
// through c, which logs it in the scene's Requests.
func send(c *kube.Client, st step, rv int64) (o kube.Object, l kube.List, err error) {
	latest, cached := kube.ReadOptions{}, kube.ReadOptions{ResourceVersion: kube.Any}
	job := fmt.Sprintf("deployments/job-%d", st.to)
	switch st.kind {
	case getLatest:
		o, err = c.Get(web, latest)
	case getAny:
		o, err = c.Get(web, cached)
	case listLatest:
		l, err = c.List("pods", latest)
	case listAny:
		l, err = c.List("pods", cached)
	case listAnyDeploy:
		l, err = c.List("deployments", cached)
	case scaleWeb:
		o, err = c.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: st.to})
	case scaleBatch:
		o, err = c.Update(kube.Object{Kind: "deployments", Name: "batch", Replicas: st.to})
	case scaleBatchIf:
		o, err = c.Update(kube.Object{Kind: "deployments", Name: "batch", Replicas: st.to, ResourceVersion: rv})
	case createJob:
		o, err = c.Create(kube.Object{Kind: "deployments", Name: fmt.Sprintf("job-%d", st.to), Replicas: 1})
	case deleteJob:
		o, err = c.Delete(job, 0)
	case deleteJobIf:
		o, err = c.Delete(job, rv)
	case deleteWeb:
		o, err = c.Delete(web, 0)
	case evictPod:
		o, err = c.Delete(evicted, 0)
	case createWeb:
		o, err = c.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: st.to})
	}
	return o, l, err
}

// sendAll sends steps through c, one after the other, none before its
// time. A conditional scale uses the version of batch last read (batchRV
// until then); a conditional delete picks one of the jobs it has seen, and
// names the version it saw it at, or one either side of it (step.off).
func sendAll(p *sim.Proc, c *kube.Client, steps []step, batchRV int64) {
	jobs := map[int]int64{0: 8} // job-N → the version last seen, as the scene begins
	for _, st := range steps {
		if d := st.at - p.Now(); d > 0 {
			p.Sleep(d)
		}
		rv := batchRV
		if st.kind == deleteJobIf {
			seen := slices.Sorted(maps.Keys(jobs))
			st.to = seen[st.to%len(seen)]
			rv = jobs[st.to] + st.off
		}
		o, l, err := send(c, st, rv)
		if err == nil && (st.kind == scaleBatch || st.kind == scaleBatchIf) {
			batchRV = o.ResourceVersion
		}
		if err == nil && st.kind == createJob {
			jobs[st.to] = o.ResourceVersion
		}
		if err == nil && st.kind == listAnyDeploy {
			for _, o := range l.Items {
				if o.Key() == batch {
					batchRV = o.ResourceVersion
				}
				if n, ok := strings.CutPrefix(o.Name, "job-"); ok {
					if i, err := strconv.Atoi(n); err == nil {
						jobs[i] = o.ResourceVersion
					}
				}
			}
		}
	}
}

// pipelineSteps is what the pipeline sends through server-2, which still
// reaches the store: it scales web, reads it back, (in some runs deletes
// web,) scales batch on the version it read, creates a job and deletes
// job-0; in some of the runs that deleted web, it creates web again after
// the link came back, and in the runs that did not, it deletes the pod
// web-1 after the link came back.
func (sc scenario) pipelineSteps() []step {
	steps := []step{{at: sc.scaleAt, kind: scaleWeb, to: sc.scaleTo}, {kind: getLatest}}
	if sc.gone {
		steps = append(steps, step{kind: deleteWeb})
	}
	steps = append(steps, step{kind: listAnyDeploy}, step{kind: scaleBatchIf, to: 40 + sc.scaleTo},
		step{kind: createJob, to: 100 + sc.scaleTo}, step{kind: deleteJob, to: 0}, step{kind: listAny})
	if sc.backAt > 0 {
		steps = append(steps, step{at: sc.backAt, kind: createWeb, to: sc.scaleTo})
	}
	if sc.evictAt > 0 {
		steps = append(steps, step{at: sc.evictAt, kind: evictPod})
	}
	return steps
}

// control runs the learner's controller through server-1: an informer of
// pods, and a reconcile of web every period.
func (r *run) control(p *sim.Proc, api *kube.Client, impl Impl) {
	c := api.Pin(server1).WithTimeout(controllerTimeout)
	pods := kube.NewInformer(p, c, "pods", kube.WatchWait(time.Second))
	pods.WaitForSync(p)
	p.Sleep(200 * ms)
	for {
		r.reconciles = append(r.reconciles, span{start: p.Now()})
		err := impl.Reconcile(p, c, pods, web)
		r.reconciles[len(r.reconciles)-1].end = p.Now()
		if err != nil {
			p.Logf("reconcile: %v", err)
		}
		lo, hi := r.sc.period[0], r.sc.period[1]
		p.Sleep(lo + time.Duration(p.Rand().Int63n(int64(hi-lo)+1)))
	}
}

// watch follows pods and deployments through server-1, as kubectl get
// --watch would, from the beginning of the history; after Gone it lists
// again (rv=0) and watches on from there.
func (r *run) watch(p *sim.Proc, api *kube.Client) {
	c := api.Pin(server1).Quiet()
	p.Go("watch deployments", func(p *sim.Proc) { r.follow(p, c.For(p), "deployments") })
	r.follow(p, c, "pods")
}

func (r *run) follow(p *sim.Proc, c *kube.Client, kind string) {
	var rv int64
	for p.Now() < r.sc.end {
		evs, err := c.Watch(kind, rv, watchWait)
		if errors.Is(err, kube.ErrGone) {
			if l, err := c.List(kind, kube.ReadOptions{ResourceVersion: kube.Any}); err == nil {
				rv = l.ResourceVersion
			}
		}
		for _, ev := range evs {
			rv = max(rv, ev.Object.ResourceVersion)
		}
		if err != nil {
			p.Sleep(50 * ms)
		}
	}
}

// auditor checks, once everything should have caught up, what each
// server's cache shows, then that server-1 answers a consistent read and
// takes a write.
func (r *run) auditor(p *sim.Proc, api *kube.Client) {
	p.Sleep(r.sc.auditAt())
	a := audit{at: p.Now(), rv: r.store.ResourceVersion(), caches: map[sim.NodeID][2]kube.List{}, cacheErrs: map[sim.NodeID]error{}}
	for _, id := range r.s.Servers {
		c := api.Pin(id).Quiet()
		d, err1 := c.List("deployments", kube.ReadOptions{ResourceVersion: kube.Any})
		pods, err2 := c.List("pods", kube.ReadOptions{ResourceVersion: kube.Any})
		a.caches[id] = [2]kube.List{d, pods}
		a.cacheErrs[id] = errors.Join(err1, err2)
	}
	send(api.Pin(server1), step{kind: getLatest}, 0)
	send(api.Pin(server1), step{kind: scaleBatch, to: 99}, 0)
	a.done = true
	r.audit = a
}
