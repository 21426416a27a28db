package ex05suite

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

const (
	ms = time.Millisecond

	etcd        sim.NodeID = "etcd"
	server1     sim.NodeID = "server-1"
	server2     sim.NodeID = "server-2"
	controllerA sim.NodeID = "controller-a"
	controllerB sim.NodeID = "controller-b"
	kubectl     sim.NodeID = "kubectl"

	web = "deployments/web"

	// slowPath is the extra latency of the story, each way between etcd and
	// server-2.
	slowPath = 400 * ms
)

// Controller is what the learner's New makes: one ReplicaSet-style
// controller.
type Controller interface {
	Reconcile(p *sim.Proc, c *kube.Client, deployment string) error
}

// scenario is what one world does.
type scenario struct {
	initial          int              // web's desired count at the start
	pods             int              // pods web-0 … that already exist
	startA, startB   time.Duration    // each controller's first reconcile
	period           [2]time.Duration // the pause between reconciles: uniform in [min, max]
	crash            sim.NodeID       // a controller to crash, or ""
	crashAt, restart time.Duration
	scales           []scale // kubectl's scale changes, through server-1
	end              time.Duration
}

// scale is one change of web's desired count.
type scale struct {
	at       time.Duration
	replicas int
}

// belief is what one controller has been told, as its server answered it.
type belief struct {
	desired     int
	desiredMode string
	desiredAt   time.Duration
	desiredSeen bool

	pods      int
	podsMode  string
	podsAt    time.Duration
	podsView  int64 // the resourceVersion of the list: how far the view had come
	podsTruth int64 // the history's resourceVersion when the list was answered
	podsSeen  bool

	// decision is the count the controller's latest creates were made on.
	decision     decision
	sinceListing int // creates sent since the last pods list

	// justified is the desired count the controller read with Latest in its
	// current reconcile (0 if none): a create it makes may fill up to it.
	justified int
}

// decision is a pods count a controller created pods on.
type decision struct {
	pods    int
	mode    string
	at      time.Duration
	creates int
	made    bool
}

// change is one accepted change to web or its pods, for the story.
type change struct {
	at      time.Duration
	what    string // "ADDED pods/web-3"
	by, via sim.NodeID
	pods    int
	desired int
	over    bool
}

// overshoot is the create that left more pods than desired.
type overshoot struct {
	at        time.Duration
	pod       string
	by, via   sim.NodeID
	pods      int
	desired   int
	justified int
	beliefs   map[sim.NodeID]belief
	log       []change
}

// relayed is a write a server hands to etcd on behalf of a client.
type relayed struct {
	By        sim.NodeID // the client that sent it
	Justified int        // see belief.justified
	Req       any        // a kube.CreateRequest, UpdateRequest or DeleteRequest
}

// String shows the write in the timeline as the request it carries.
func (r relayed) String() string {
	switch q := r.Req.(type) {
	case kube.CreateRequest:
		return fmt.Sprintf("CREATE %s for %s", q.Object.Key(), r.By)
	case kube.UpdateRequest:
		return fmt.Sprintf("UPDATE %s replicas=%d for %s", q.Object.Key(), q.Object.Replicas, r.By)
	case kube.DeleteRequest:
		return fmt.Sprintf("DELETE %s for %s", q.Key, r.By)
	}
	return fmt.Sprintf("%T for %s", r.Req, r.By)
}

// cluster is one world of the chapter and what the suite learns from it.
type cluster struct {
	w       *sim.World
	sc      scenario
	store   *kube.MemStore
	history *check.History
	monitor *check.Monitor
	beliefs map[sim.NodeID]*belief

	desired    int
	log        []change
	over       *overshoot
	creates    int // pod creates accepted
	reconciles int
	runErr     error
}

// build makes the world of sc: etcd, the two servers, the two controllers
// made by newController, and kubectl.
func build(seed int64, sc scenario, newController func() Controller) *cluster {
	w := sim.New(seed, sim.Latency(1*ms, 8*ms))
	cl := &cluster{w: w, sc: sc, store: kube.NewMemStore(0), history: check.NewHistory(),
		beliefs: map[sim.NodeID]*belief{controllerA: {}, controllerB: {}}, desired: sc.initial}
	cl.monitor = check.NewMonitor(check.Invariant{
		Name:   "too-many-pods",
		Rule:   "no create leaves more pods than desired",
		Clause: course.AgreementFirst,
		Check: func() error {
			if o := cl.over; o != nil {
				return fmt.Errorf("%d pods for %s, %d desired", o.pods, web, o.desired)
			}
			return nil
		},
	})

	// The state before the story: web and the pods yesterday's controller made.
	mustCreate := func(o kube.Object) {
		if _, err := cl.store.Create(nil, o); err != nil {
			panic(err)
		}
	}
	mustCreate(kube.Object{Kind: "deployments", Name: "web", Replicas: sc.initial})
	for i := 0; i < sc.pods; i++ {
		mustCreate(kube.Object{Kind: "pods", Name: fmt.Sprintf("web-%d", i), Owner: web})
	}
	for i, o := range cl.store.Objects() { // web, then web-0, web-1, …
		cl.log = append(cl.log, change{what: "ADDED " + o.Key(), by: "(before)", pods: i, desired: sc.initial})
	}

	w.AddNode(etcd, cl.bootEtcd)
	w.AddNode(server1, cl.bootServer)
	w.AddNode(server2, cl.bootServer)
	w.AddNode(controllerA, cl.bootController(controllerA, server1, sc.startA, newController))
	w.AddNode(controllerB, cl.bootController(controllerB, server2, sc.startB, newController))
	if len(sc.scales) > 0 {
		w.AddNode(kubectl, cl.kubectl)
	}
	w.SetLinks(etcd, server2, sim.Link{Min: slowPath, Max: slowPath + 20*ms})
	w.Fault("etcd ⇄ server-2 takes 400ms each way", 0, sc.end)
	if sc.crash != "" {
		w.At(sc.crashAt, func() { w.Crash(sc.crash) })
		w.At(sc.restart, func() { w.Restart(sc.crash) })
	}
	return cl
}

// run runs the world to its end; the caller closes it.
func (cl *cluster) run() { cl.runErr = cl.w.Run(cl.sc.end) }

// countPods is the number of pods web owns in the history now.
func (cl *cluster) countPods() int {
	n := 0
	for _, o := range cl.store.Objects() {
		if o.Kind == "pods" && o.Owner == web {
			n++
		}
	}
	return n
}

// podNames lists web's pods in the history now.
func (cl *cluster) podNames() []string {
	var names []string
	for _, o := range cl.store.Objects() {
		if o.Kind == "pods" && o.Owner == web {
			names = append(names, o.Name)
		}
	}
	return names
}

// bootEtcd serves the one history. Every write arrives relayed by a server;
// each accepted change steps the monitor.
func (cl *cluster) bootEtcd(p *sim.Proc) {
	serve := kube.Handler(cl.store)
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		r, ok := req.(relayed)
		if !ok {
			return serve(p, from, req)
		}
		before := cl.store.ResourceVersion()
		reply, err := serve(p, from, r.Req) // a MemStore write never blocks
		if cl.store.ResourceVersion() != before {
			cl.accepted(p, r, from, reply.(kube.Object))
		}
		return reply, err
	})
}

// accepted notes one accepted change and checks the invariant.
func (cl *cluster) accepted(p *sim.Proc, r relayed, via sim.NodeID, o kube.Object) {
	var what, sign string
	switch r.Req.(type) {
	case kube.CreateRequest:
		what, sign = "ADDED "+o.Key(), "+ "
	case kube.UpdateRequest:
		what, sign = fmt.Sprintf("MODIFIED %s replicas=%d", o.Key(), o.Replicas), "scaled to "
	case kube.DeleteRequest:
		what, sign = "DELETED "+o.Key(), "− "
	}
	if o.Key() == web {
		cl.desired = o.Replicas
	}
	pods := cl.countPods()
	ch := change{at: p.Now(), what: what, by: r.By, via: via, pods: pods, desired: cl.desired}
	isCreate := false
	if _, ok := r.Req.(kube.CreateRequest); ok && o.Kind == "pods" && o.Owner == web {
		isCreate = true
		cl.creates++
	}
	if isCreate && pods > max(cl.desired, r.Justified) && cl.over == nil {
		ch.over = true
		cl.over = &overshoot{at: p.Now(), pod: o.Key(), by: r.By, via: via, pods: pods, desired: cl.desired,
			justified: r.Justified, beliefs: map[sim.NodeID]belief{}}
		for id, b := range cl.beliefs {
			cl.over.beliefs[id] = *b
		}
	}
	cl.log = append(cl.log, ch)
	if cl.over != nil && cl.over.log == nil {
		cl.over.log = slices.Clone(cl.log)
	}
	switch {
	case o.Key() == web:
		p.Logf("web %s%d: %d of %d", sign, o.Replicas, pods, cl.desired)
	case o.Kind == "pods" && ch.over:
		p.Logf("%s%s: %d of %d ✗", sign, o.Key(), pods, cl.desired)
	case o.Kind == "pods":
		p.Logf("%s%s: %d of %d", sign, o.Key(), pods, cl.desired)
	}
	cl.monitor.Step(p.Now())
}

// server is one API server: writes and Latest reads go to etcd, Any reads
// are answered from the server's own watch cache.
type server struct {
	cl    *cluster
	name  sim.NodeID
	cache map[string]*kube.MemStore // by kind
}

var kinds = []string{"deployments", "pods"}

func (cl *cluster) bootServer(p *sim.Proc) {
	s := &server{cl: cl, name: p.Node(), cache: map[string]*kube.MemStore{}}
	for _, k := range kinds {
		s.cache[k] = kube.NewMemStore(0)
	}
	// The server starts warm: its cache holds the history as it stands.
	objs := cl.store.Objects()
	slices.SortFunc(objs, func(a, b kube.Object) int { return int(a.ResourceVersion - b.ResourceVersion) })
	for _, o := range objs {
		if err := s.cache[o.Kind].Apply(nil, kube.Event{Type: kube.Added, Object: o}); err != nil {
			panic(err)
		}
	}
	from := cl.store.ResourceVersion()
	for _, k := range kinds {
		p.Go("cache-"+k, func(p *sim.Proc) { s.follow(p, k, from) })
	}
	p.Serve(s.handle)
}

// follow keeps the cache of kind up to date by watching etcd.
func (s *server) follow(p *sim.Proc, kind string, rv int64) {
	c := kube.NewClient(p, etcd).Quiet().WithTimeout(time.Second)
	for {
		evs, err := c.Watch(kind, rv, time.Second)
		if err != nil {
			p.Sleep(50 * ms)
			continue
		}
		for _, ev := range evs {
			if ev.Object.ResourceVersion > s.cache[kind].ResourceVersion() {
				if err := s.cache[kind].Apply(p, ev); err != nil {
					panic(err)
				}
			}
			rv = ev.Object.ResourceVersion
		}
	}
}

func (s *server) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	b := s.cl.beliefs[from] // nil for kubectl
	switch r := req.(type) {
	case kube.GetRequest:
		var o kube.Object
		var err error
		kind, _ := kube.SplitKey(r.Key)
		if r.Opts.ResourceVersion == kube.Any && s.cache[kind] != nil {
			o, err = s.cache[kind].Get(p, r.Key, r.Opts)
		} else {
			o, err = s.etcd(p).Get(r.Key, r.Opts)
		}
		if err == nil && b != nil && r.Key == web {
			b.desired, b.desiredMode, b.desiredAt, b.desiredSeen = o.Replicas, mode(r.Opts), p.Now(), true
			if r.Opts.ResourceVersion == kube.Latest {
				b.justified = o.Replicas
			}
		}
		return o, err
	case kube.ListRequest:
		var l kube.List
		var err error
		if r.Opts.ResourceVersion == kube.Any && s.cache[r.Kind] != nil {
			l, err = s.cache[r.Kind].List(p, r.Kind, r.Opts)
		} else {
			l, err = s.etcd(p).List(r.Kind, r.Opts)
		}
		if err == nil && b != nil && r.Kind == "pods" {
			n := 0
			for _, o := range l.Items {
				if o.Owner == web {
					n++
				}
			}
			b.pods, b.podsMode, b.podsAt, b.podsView, b.podsTruth, b.podsSeen = n, mode(r.Opts), p.Now(), l.ResourceVersion, s.cl.store.ResourceVersion(), true
			b.sinceListing = 0
		}
		return l, err
	case kube.CreateRequest, kube.UpdateRequest, kube.DeleteRequest:
		rel := relayed{By: from, Req: req}
		if b != nil {
			rel.Justified = b.justified
			if _, ok := req.(kube.CreateRequest); ok && b.podsSeen {
				if b.sinceListing == 0 {
					b.decision = decision{pods: b.pods, mode: b.podsMode, at: b.podsAt, made: true}
				}
				b.sinceListing++
				b.decision.creates = b.sinceListing
			}
		}
		reply, err := p.Call(etcd, rel, 2*slowPath+100*ms)
		if errors.Is(err, sim.ErrTimeout) {
			return nil, &kube.StatusError{Code: 504, Reason: "Timeout", Message: "etcd did not answer in time; the write may or may not have taken effect"}
		}
		return reply, err
	case kube.WatchRequest:
		if c := s.cache[r.Kind]; c != nil {
			return c.Watch(p, r.Kind, r.ResourceVersion, r.Wait)
		}
		return []kube.Event{}, nil
	}
	return nil, fmt.Errorf("%s does not understand %T", s.name, req)
}

// etcd is a client of the history for one request of the server.
func (s *server) etcd(p *sim.Proc) *kube.Client {
	return kube.NewClient(p, etcd).Quiet().WithTimeout(2*slowPath + 100*ms)
}

func mode(o kube.ReadOptions) string {
	if o.ResourceVersion == kube.Latest {
		return "Latest"
	}
	return fmt.Sprintf("rv=%q", o.ResourceVersion)
}

// bootController runs one controller: a new Controller at every boot, a
// reconcile of web every period.
func (cl *cluster) bootController(id, srv sim.NodeID, start time.Duration, newController func() Controller) func(p *sim.Proc) {
	return func(p *sim.Proc) {
		ctl := newController()
		c := kube.NewClient(p, srv).Named(string(id)).WithTimeout(2*slowPath + 300*ms).Record(cl.history)
		if d := start - p.Now(); d > 0 {
			p.Sleep(d)
		}
		for {
			cl.beliefs[id].justified = 0
			cl.reconciles++
			if err := ctl.Reconcile(p, c, web); err != nil {
				p.Logf("reconcile: %v", err)
			}
			lo, hi := cl.sc.period[0], cl.sc.period[1]
			p.Sleep(lo + time.Duration(p.Rand().Int63n(int64(hi-lo)+1)))
		}
	}
}

// kubectl scales web as the scenario says, through server-1, retrying on
// Conflict as kubectl scale does.
func (cl *cluster) kubectl(p *sim.Proc) {
	c := kube.NewClient(p, server1).Named(string(kubectl)).WithTimeout(time.Second).Record(cl.history)
	for _, s := range cl.sc.scales {
		if d := s.at - p.Now(); d > 0 {
			p.Sleep(d)
		}
		for {
			d, err := c.Get(web, kube.ReadOptions{ResourceVersion: kube.Latest})
			if err == nil {
				d.Replicas = s.replicas
				_, err = c.Update(d)
			}
			if err == nil {
				break
			}
			p.Sleep(20 * ms)
		}
	}
}
