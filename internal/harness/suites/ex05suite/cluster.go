package ex05suite

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
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
	api = "deployments/api" // another deployment, whose pods stand beside web's in the randomized runs

	// requestTimeout is how long a client waits for an answer: a write
	// through server-2 crosses the slow link twice.
	requestTimeout = 2*slowMax + 300*ms
	// relayTimeout is how long a server waits for etcd.
	relayTimeout = 2*slowMax + 100*ms
)

// The story's slow link: server-2's path to the one history, each way.
const (
	slowMin = 400 * ms
	slowMax = 410 * ms
)

// slowLink is the week's trouble: the link between etcd and server-2 takes
// 400–410ms each way for the whole run, so server-2's cache is that far
// behind the history, and its writes take that long to land.
func slowLink(end time.Duration) scene.SlowLink {
	return scene.SlowLink{A: etcd, B: server2, Link: sim.Link{Min: slowMin, Max: slowMax}, From: 0, For: end}
}

// Controller is what the learner's New makes: one ReplicaSet-style
// controller.
type Controller interface {
	Reconcile(p *sim.Proc, c *kube.Client, deployment string) error
}

// scenario is what one world does.
type scenario struct {
	initial        int              // web's desired count at the start
	pods           int              // pods web-0 … that already exist
	others         int              // pods api-0 … of another deployment, deployments/api, beside web's
	neighbour      string           // that other deployment's name, when not "api"
	stray          string           // a pod web owns under a name that is not web-i, made before the story, or ""
	orphan         string           // a pod no deployment owns, named as web's are (web-i) but beyond any count web wants, or ""
	startA, startB time.Duration    // each controller's first reconcile
	period         [2]time.Duration // the pause between reconciles: uniform in [min, max]
	crash          *scene.Crash     // a controller that crashes and restarts, or nil
	scales         []scale          // kubectl's scale changes, through server-1
	evict          int              // pods web-0 … that kubectl deletes right after the last scale (an eviction), or 0
	cut            *scene.Cut       // server-2 loses etcd for longer than a call's timeout, or nil
	end            time.Duration
}

// scale is one change of web's desired count.
type scale struct {
	at       time.Duration
	replicas int
}

// read is one answer a controller was given about web: its desired count or
// its pods.
type read struct {
	value  int           // the desired count, or the number of web's pods
	cached bool          // answered from the server's watch cache (rv "0"), not with Latest
	at     time.Duration // when the server answered
	view   int64         // the resourceVersion of the answer: how far the view had come
	truth  int64         // the history's resourceVersion when the server answered
	asked  time.Duration // when the request reached the server
	ok     bool
}

// newer reports whether an answer to a request that reached the server at
// asked is the controller's latest word on what r is about: an answer to a
// request older than the one r answers comes too late to count. A
// controller that gave up waiting for a slow read and asked again (its
// server's cache, say) acts on the second answer, not the first.
func (r read) newer(asked time.Duration) bool { return !r.ok || asked >= r.asked }

// how says where a read was answered from, for a story.
func (r read) how(server sim.NodeID) string {
	if r.cached {
		return fmt.Sprintf("%s's cache, rv=\"0\"", server)
	}
	return "read with Latest"
}

// belief is what one controller has been told, as its server answered it.
type belief struct {
	server  sim.NodeID
	desired read
	pods    read
	earlier []read           // every desired count it was told before the last
	seen    map[version]bool // every object version a list or get showed it
	listed  map[version]bool // every pod version a list showed it: what a decision to delete rests on
	// lastList is the version of each pod its last list of pods showed it.
	lastList map[string]int64
	// made is every object version the reply to one of its own writes
	// showed it: a version it knows because it made it.
	made map[version]bool

	// decision is the pods count the controller's latest creates were sent
	// on, and how many it sent.
	decision     read
	creates      int
	sinceListing int

	// justified is the desired count the controller read with Latest in its
	// current reconcile (0 if none): a create it makes may fill up to it.
	justified int
	// sent is when each create the controller sent since its last Latest
	// read of web (in this reconcile) reached its server: a create of the
	// same name again is a retry that did not read again, and justified
	// does not cover it.
	sent map[string]time.Duration
	// told says the controller was given web's desired count in its
	// current reconcile; failed is when its server last failed to give it.
	told   bool
	failed time.Duration
	// readPods says the controller was shown any of the pods (a list or a
	// get) in its current reconcile; unread counts the writes it sent in
	// it before it was; remembering is the run of reconciles, up to the
	// last, that read none (see rememberedPods).
	readPods    bool
	unread      int
	remembering remembering
}

// change is one accepted change to web or its pods, for the story.
type change struct {
	at       time.Duration // when etcd accepted it
	rv       int64         // the resourceVersion it made
	ofWeb    bool          // a change to web or to one of its pods
	what     string        // "ADDED pods/web-3"
	key      string
	create   bool
	by, via  sim.NodeID
	pods     int
	desired  int
	overshot bool // the first create that left more pods than desired
}

// overshoot is the first create that left more pods than desired.
type overshoot struct {
	change
	justified int
	retry     *relayed      // the create, if it was one sent again without reading again
	scaledAt  time.Duration // when the history's desired count last changed before it
	beliefs   map[sim.NodeID]belief
	index     int // its place in the log
	// strays are the pods web owned when it was accepted under names that
	// are not web-i, which the creator had been shown in a list.
	strays []string
}

// newerDelete is a delete of a pod version the deleting controller never saw.
type newerDelete struct {
	change
	got  bool   // the controller had read that version, but with a get, never in a list
	made change // the create of the version it removed
}

// foreignChange is the first change a controller made to a pod web does not
// own: one of another deployment's, or one with no owner at all.
type foreignChange struct {
	change
	owner   string // "" for none
	deleted bool
}

// blindDelete is the first delete of a wanted pod of web by a controller
// that had not been given web's desired count in that reconcile.
type blindDelete struct {
	change
	failed time.Duration // when its read of web failed, 0 if it never asked
}

// wanted reports whether the pod at key is one of the first desired pods of
// web: web-i with i < desired.
func wanted(key string, desired int) bool {
	s, ok := strings.CutPrefix(key, "pods/web-")
	if !ok {
		return false
	}
	i, err := strconv.Atoi(s)
	return err == nil && i >= 0 && i < desired && strconv.Itoa(i) == s
}

// named reports whether the pod at key is named as web's pods are: web-i.
func named(key string) bool { return wanted(key, math.MaxInt) }

// version is one version of one object: pods/web-3 at resourceVersion 12.
type version struct {
	key string
	rv  int64
}

func versionOf(o kube.Object) version { return version{o.Key(), o.ResourceVersion} }

// relayed is a write a server hands to etcd on behalf of a client.
type relayed struct {
	By        sim.NodeID // the client that sent it
	Justified int        // see belief.justified
	Req       any        // a kube.CreateRequest, UpdateRequest or DeleteRequest

	// A create of a name its controller had already sent since its last
	// Latest read of web: when the server got this one, and the first.
	Retry         bool
	Sent, FirstAt time.Duration

	// Blind: sent in a reconcile that had not been given web's desired
	// count; Failed is when its read of it failed, if it did.
	Blind  bool
	Failed time.Duration
}

// Unwrap is the write etcd serves (scene.Store).
func (r relayed) Unwrap() any { return r.Req }

// String shows the write in the timeline as the request it carries.
func (r relayed) String() string {
	switch q := r.Req.(type) {
	case kube.CreateRequest:
		return fmt.Sprintf("CREATE %s for %s", q.Object.Key(), r.By)
	case kube.UpdateRequest:
		return fmt.Sprintf("UPDATE %s replicas=%d for %s", q.Object.Key(), q.Object.Replicas, r.By)
	case kube.DeleteRequest:
		if q.ResourceVersion != 0 {
			return fmt.Sprintf("DELETE %s if rv=%d for %s", q.Key, q.ResourceVersion, r.By)
		}
		return fmt.Sprintf("DELETE %s for %s", q.Key, r.By)
	}
	return fmt.Sprintf("%T for %s", r.Req, r.By)
}

// cluster is one world of the chapter and what the suite learns from it.
type cluster struct {
	s       *scene.Scene
	sc      scenario
	told    string // the scene, in one paragraph, for the failures' details
	store   *kube.MemStore
	beliefs map[sim.NodeID]*belief

	desired    int
	scaledAt   time.Duration // when the history's desired count last changed
	log        []change
	overshoot  *overshoot
	newer      *newerDelete
	foreign    *foreignChange
	blind      *blindDelete
	created    map[version]change  // the create of each pod version
	acked      map[version]ack     // when a server acknowledged each write it relayed to its client
	stale      *staleAct           // the first write a controller sent on a read that contradicted acknowledged writes
	unread     *unreadPrecondition // the first delete a controller sent at a version of the pod it never read
	creates    int                 // pod creates accepted
	leftAtZero *leftAtZero         // pods still standing when web was scaled up from a settled 0
}

// ack is a write's acknowledgement: the server that answered the client
// that sent it, when.
type ack struct {
	at  time.Duration
	to  sim.NodeID
	via sim.NodeID
}

// staleAct is a write a controller sent on a read of web, or of its pods,
// that did not show writes the history had accepted and acknowledged
// before the read was asked.
type staleAct struct {
	by, via sim.NodeID
	at      time.Duration // when its server got the write
	what    string        // "CREATE pods/web-2"
	read    read          // the read it acted on
	pods    bool          // that read was a list of pods, not a get of web
	missed  []change      // the acknowledged writes the read did not show
}

// zeroSettle is how long a pod of web may stand while web wants 0 pods:
// long enough for a create that raced the scale-down (a reconcile that read
// the count before it, sending its creates one by one through the slow
// server) to land, and for a controller back from a crash to delete it.
const zeroSettle = 2500 * ms

// leftAtZero is a pod of web that stood for zeroSettle or more while web
// wanted 0, seen when kubectl scaled web up again.
type leftAtZero struct {
	zeroAt, at time.Duration // when the history took the scale to 0, and the scale up
	to         int           // the scale up
	pod        string
	since      time.Duration // when the pod stood while web wanted 0: zeroAt, or its create
	pods       []string      // every pod of web standing at the scale up
}

// Stage is the scene the cluster played.
func (cl *cluster) Stage() *scene.Scene { return cl.s }

// play builds the world of sc, told as told: etcd, the two servers, the two
// controllers made by newController, and kubectl; the slow link, the crash
// and the cut, if any. It runs it to its end; the runner judges it and
// closes it.
func play(seed int64, sc scenario, told string, newController func() Controller) *cluster {
	s := scene.New(seed, nil, scene.Named(server1, server2), scene.Latency(1*ms, 8*ms), scene.RequestTimeout(requestTimeout))
	cl := &cluster{s: s, sc: sc, told: told, store: kube.NewMemStore(0), desired: sc.initial, created: map[version]change{}, acked: map[version]ack{},
		beliefs: map[sim.NodeID]*belief{
			controllerA: {server: server1, seen: map[version]bool{}, listed: map[version]bool{}, made: map[version]bool{}},
			controllerB: {server: server2, seen: map[version]bool{}, listed: map[version]bool{}, made: map[version]bool{}},
		}}

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
	if sc.stray != "" {
		mustCreate(kube.Object{Kind: "pods", Name: sc.stray, Owner: web})
	}
	if sc.orphan != "" {
		mustCreate(kube.Object{Kind: "pods", Name: sc.orphan})
	}
	if sc.others > 0 {
		other := cmp.Or(sc.neighbour, "api")
		mustCreate(kube.Object{Kind: "deployments", Name: other, Replicas: sc.others})
		for i := 0; i < sc.others; i++ {
			mustCreate(kube.Object{Kind: "pods", Name: fmt.Sprintf("%s-%d", other, i), Owner: "deployments/" + other})
		}
	}
	pods := 0
	for _, o := range cl.store.Objects() { // web, then web-0, web-1, …
		if o.Key() != web && o.Owner != web {
			continue // the other deployment and its pods are not in web's story
		}
		if o.Kind == "pods" {
			pods++
		}
		c := change{what: "ADDED " + o.Key(), key: o.Key(), by: "(before)", pods: pods, desired: sc.initial}
		cl.log = append(cl.log, c)
		cl.created[versionOf(o)] = c
	}

	s.Inject(slowLink(sc.end))
	if sc.crash != nil {
		s.Inject(*sc.crash)
	}
	if sc.cut != nil {
		s.Inject(*sc.cut)
	}
	s.W.AddNode(etcd, s.Store(cl.store, cl.accepted)) // every accepted change is judged as it is accepted
	s.W.AddNode(server1, cl.bootServer)
	s.W.AddNode(server2, cl.bootServer)
	s.Client(string(controllerA), cl.controller(controllerA, sc.startA, newController))
	s.Client(string(controllerB), cl.controller(controllerB, sc.startB, newController))
	lanes := []sim.NodeID{controllerA, server1, etcd, server2, controllerB}
	if len(sc.scales) > 0 {
		s.Client(string(kubectl), cl.kubectl)
		lanes = append(lanes, kubectl)
	}
	s.Lanes(lanes...)
	s.Show(quiet)
	_ = s.Run(sc.end) // the error stays in s.Err, for ran
	return cl
}

// quiet keeps the timeline to what the story needs: the clients' notes and
// the servers' (what a cache answered), etcd's accepted changes, the writes
// on their way, crashes and faults; not the caches' watches nor the reads
// relayed to etcd.
func quiet(e sim.Event) bool {
	switch e.Kind {
	case sim.EvNote, sim.EvCrash, sim.EvRestart, sim.EvFault:
		return true
	case sim.EvTimeout:
		_, watch := e.Msg.(kube.WatchRequest)
		return !watch
	case sim.EvSend:
		_, ok := e.Msg.(relayed)
		return ok
	}
	return false
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

// accepted notes one change etcd accepted and judges it. Every write
// reaches etcd relayed by a server.
func (cl *cluster) accepted(p *sim.Proc, via sim.NodeID, req any, o, before kube.Object) {
	r := req.(relayed)
	var what, sign string
	var isCreate, isDelete bool
	switch r.Req.(type) {
	case kube.CreateRequest:
		what, sign, isCreate = "ADDED "+o.Key(), "+ ", true
	case kube.UpdateRequest:
		what, sign = fmt.Sprintf("MODIFIED %s replicas=%d", o.Key(), o.Replicas), "scaled to "
	case kube.DeleteRequest:
		what, sign, isDelete = "DELETED "+o.Key(), "− ", true
	}
	if o.Key() == web && o.Replicas != cl.desired {
		if cl.desired == 0 && cl.leftAtZero == nil {
			cl.leftAtZero = cl.leftStanding(p.Now(), o.Replicas)
		}
		cl.desired, cl.scaledAt = o.Replicas, p.Now()
	}
	pods := len(cl.podNames())
	ch := change{at: p.Now(), rv: o.ResourceVersion, ofWeb: o.Key() == web || o.Kind == "pods" && o.Owner == web, what: what, key: o.Key(), by: r.By, via: via, pods: pods, desired: cl.desired}
	ch.create = isCreate && o.Kind == "pods" && o.Owner == web
	if ch.create {
		cl.creates++
		cl.created[versionOf(o)] = ch
	}
	if ch.create && pods > max(cl.desired, r.Justified) && cl.overshoot == nil {
		ch.overshot = true
		cl.overshoot = &overshoot{change: ch, justified: r.Justified, scaledAt: cl.scaledAt, beliefs: map[sim.NodeID]belief{}, index: len(cl.log)}
		if r.Retry {
			cl.overshoot.retry = &r
		}
		for _, o := range cl.store.Objects() {
			if o.Kind == "pods" && o.Owner == web && !named(o.Key()) && cl.beliefs[r.By] != nil && cl.beliefs[r.By].listed[versionOf(o)] {
				cl.overshoot.strays = append(cl.overshoot.strays, o.Key())
			}
		}
		for id, b := range cl.beliefs {
			x := *b
			x.earlier = slices.Clone(b.earlier)
			cl.overshoot.beliefs[id] = x
		}
	}
	if o.Kind == "pods" && o.Owner != web && cl.beliefs[r.By] != nil && cl.foreign == nil {
		cl.foreign = &foreignChange{change: ch, owner: o.Owner, deleted: isDelete}
	}
	if isDelete && r.Blind && o.Owner == web && wanted(o.Key(), cl.desired) && cl.blind == nil {
		cl.blind = &blindDelete{change: ch, failed: r.Failed}
	}
	if isDelete && o.Owner == web && cl.newer == nil {
		// A delete on the version its own create returned names a version
		// it knows; one without a precondition names none.
		q, _ := r.Req.(kube.DeleteRequest)
		if b := cl.beliefs[r.By]; b != nil && !b.listed[versionOf(before)] && !(q.ResourceVersion != 0 && b.made[versionOf(before)]) {
			cl.newer = &newerDelete{change: ch, got: b.seen[versionOf(before)], made: cl.created[versionOf(before)]}
		}
	}
	cl.log = append(cl.log, ch)
	switch {
	case o.Key() == web:
		p.Logf("web %s%d: %d of %d", sign, o.Replicas, pods, cl.desired)
	case o.Kind == "pods" && ch.overshot:
		p.Logf("%s%s: %d of %d ✗", sign, o.Key(), pods, cl.desired)
	case o.Kind == "pods":
		p.Logf("%s%s: %d of %d", sign, o.Key(), pods, cl.desired)
	}
}

// leftStanding is the pod of web that stood longest while web wanted 0,
// if it stood for zeroSettle or more, as kubectl scales web up to to at
// now; nil if none did.
func (cl *cluster) leftStanding(now time.Duration, to int) *leftAtZero {
	var left *leftAtZero
	var pods []string
	for _, o := range cl.store.Objects() {
		if o.Kind != "pods" || o.Owner != web {
			continue
		}
		pods = append(pods, o.Name)
		since := max(cl.created[versionOf(o)].at, cl.scaledAt)
		if now-since >= zeroSettle && (left == nil || since < left.since) {
			left = &leftAtZero{zeroAt: cl.scaledAt, at: now, to: to, pod: o.Key(), since: since}
		}
	}
	if left != nil {
		left.pods = pods
	}
	return left
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
	asked := p.Now()
	switch r := req.(type) {
	case kube.GetRequest:
		kind, _ := kube.SplitKey(r.Key)
		cached := r.Opts.ResourceVersion == kube.Any && s.cache[kind] != nil
		var o kube.Object
		var err error
		if cached {
			o, err = s.cache[kind].Get(p, r.Key, r.Opts)
		} else {
			o, err = s.etcd(p).Get(r.Key, r.Opts)
		}
		if err != nil && b != nil && r.Key == web {
			b.failed = p.Now()
		}
		if err == nil && b != nil {
			b.seen[versionOf(o)] = true
			b.readPods = b.readPods || kind == "pods"
			if r.Key == web {
				b.told = true
			}
			if r.Key == web && b.desired.newer(asked) {
				if b.desired.ok {
					b.earlier = append(b.earlier, b.desired)
				}
				b.desired = read{value: o.Replicas, cached: cached, at: p.Now(), view: o.ResourceVersion, truth: s.cl.store.ResourceVersion(), asked: asked, ok: true}
				if cached {
					p.Logf("from cache for %s: web wants %d", from, o.Replicas)
				} else {
					b.justified = o.Replicas
					b.sent = nil // a fresh read: what it sends next is decided again
				}
			}
		}
		return o, err
	case kube.ListRequest:
		cached := r.Opts.ResourceVersion == kube.Any && s.cache[r.Kind] != nil
		var l kube.List
		var err error
		if cached {
			l, err = s.cache[r.Kind].List(p, r.Kind, r.Opts)
		} else {
			l, err = s.etcd(p).List(r.Kind, r.Opts)
		}
		if err == nil && b != nil && r.Kind == "pods" {
			b.readPods = true
			n := 0
			for _, o := range l.Items {
				b.seen[versionOf(o)] = true
				b.listed[versionOf(o)] = true
				if o.Owner == web {
					n++
				}
			}
			if !b.pods.newer(asked) {
				return l, err // an answer the controller stopped waiting for
			}
			b.pods = read{value: n, cached: cached, at: p.Now(), view: l.ResourceVersion, truth: s.cl.store.ResourceVersion(), asked: asked, ok: true}
			b.lastList = map[string]int64{}
			for _, o := range l.Items {
				b.lastList[o.Key()] = o.ResourceVersion
			}
			b.sinceListing = 0
			if cached {
				p.Logf("from cache for %s: %d pods of web (view at rv=%d)", from, n, l.ResourceVersion)
			}
		}
		return l, err
	case kube.CreateRequest, kube.UpdateRequest, kube.DeleteRequest:
		rel := relayed{By: from, Req: req}
		var unread *unreadPrecondition
		if b != nil {
			unread = s.cl.noteUnread(p.Now(), from, s.name, req, b)
			rel.Justified = b.justified
			if !b.told {
				rel.Blind, rel.Failed = true, b.failed
			}
			if q, ok := req.(kube.CreateRequest); ok {
				if first, again := b.sent[q.Object.Key()]; again {
					rel.Justified, rel.Retry, rel.Sent, rel.FirstAt = 0, true, p.Now(), first
				} else {
					if b.sent == nil {
						b.sent = map[string]time.Duration{}
					}
					b.sent[q.Object.Key()] = p.Now()
				}
			}
			if s.cl.stale == nil {
				s.cl.stale = s.cl.actedOnStale(p.Now(), from, s.name, req, b)
			}
			if !b.readPods {
				b.unread++
			}
			if _, ok := req.(kube.CreateRequest); ok && b.pods.ok {
				if b.sinceListing == 0 {
					b.decision = b.pods
				}
				b.sinceListing++
				b.creates = b.sinceListing
			}
		}
		reply, err := p.Call(etcd, rel, relayTimeout)
		if o, ok := reply.(kube.Object); ok && err == nil {
			s.cl.acked[versionOf(o)] = ack{at: p.Now(), to: from, via: s.name}
			if b != nil {
				b.made[versionOf(o)] = true // the reply shows the version the write made
			}
		}
		if unread != nil {
			unread.outcome = err
		}
		if errors.Is(err, sim.ErrTimeout) {
			return nil, kube.StatusError{Code: 504, Reason: "Timeout", Message: "etcd did not answer in time; the write may or may not have taken effect"}
		}
		return reply, err
	case kube.WatchRequest:
		if c := s.cache[r.Kind]; c != nil {
			evs, err := c.Watch(p, r.Kind, r.ResourceVersion, r.Wait)
			for _, ev := range evs {
				if b != nil {
					b.seen[versionOf(ev.Object)] = true
				}
			}
			return evs, err
		}
		return []kube.Event{}, nil
	}
	return nil, fmt.Errorf("%s does not understand %T", s.name, req)
}

// etcd is a client of the history for one request of the server.
func (s *server) etcd(p *sim.Proc) *kube.Client {
	return kube.NewClient(p, etcd).Quiet().WithTimeout(relayTimeout)
}

// controller runs one controller: a new Controller at every boot, pinned to
// its server, a reconcile of web every period.
func (cl *cluster) controller(id sim.NodeID, start time.Duration, newController func() Controller) func(p *sim.Proc, api *kube.Client) {
	return func(p *sim.Proc, api *kube.Client) {
		ctl := newController()
		c := api.Pin(cl.beliefs[id].server)
		if d := start - p.Now(); d > 0 {
			p.Sleep(d)
		}
		for {
			b := cl.beliefs[id] // a new reconcile: nothing read or sent in it yet
			b.justified, b.sent, b.told, b.failed, b.readPods, b.unread = 0, nil, false, 0, false, 0
			if err := ctl.Reconcile(p, c, web); err != nil {
				p.Logf("reconcile: %v", err)
			}
			b.remembered(p.Now())
			lo, hi := cl.sc.period[0], cl.sc.period[1]
			p.Sleep(lo + time.Duration(p.Rand().Int63n(int64(hi-lo)+1)))
		}
	}
}

// kubectl scales web as the scenario says, through server-1, retrying on
// Conflict as kubectl scale does.
func (cl *cluster) kubectl(p *sim.Proc, api *kube.Client) {
	c := api.Pin(server1)
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
	// Right after the last scale, before the controllers' next pass, the
	// first wanted pods are evicted (deleted as a node drain would): for a
	// moment web has pods beyond the wanted names beside gaps among them.
	for i := 0; i < cl.sc.evict; i++ {
		_, _ = c.Delete(fmt.Sprintf("pods/web-%d", i), 0)
	}
}
