package ex13suite

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

const (
	ms = time.Millisecond

	web      = "deployments/web"
	leaseKey = "leases/controller"

	server  sim.NodeID = "server-1"
	ctrlA   sim.NodeID = "controller-a"
	ctrlB   sim.NodeID = "controller-b"
	kubectl sim.NodeID = "kubectl"
)

// The chapter's lease, stated once: client-go's defaults for the core
// controllers. A leader must renew within RenewDeadline of its own clock or
// stop acting; a lease not seen to change for LeaseDuration may be taken; a
// contender tries every RetryPeriod. The book and the exercise say the same.
const (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
	// jitter is client-go's JitterFactor: a retry comes within 1.2 retry
	// periods.
	jitter = 1.2
)

// reconcileEvery is how often, on its own clock, a controller asks its
// elector whether it leads and, if it does, reconciles web.
const reconcileEvery = 500 * ms

// requestTimeout is how long a client waits for an answer.
const requestTimeout = time.Second

// reconcileTimeout is how long the controller waits for the answers to its
// own reads and writes: short, so that cut off from the server it still asks
// its elector every 750ms or so, often enough to see a renew deadline kept
// even 1s too long.
const reconcileTimeout = 250 * ms

// world is one scene of the chapter: the given store, what it accepted and
// from whom, and what each controller believed and did.
type world struct {
	*scene.Scene
	store    *kube.MemStore
	elect    electFunc
	accepted []accepted               // every write the store accepted, in its order
	samples  map[sim.NodeID][]sample  // every answer of each controller's elector
	tries    []try                    // every pod create a controller sent
	plans    []*pausePlan             // pauses that fall between a decision and its writes
	nextPod  int                      // the last pod number given out
	cut      *cutPlan                 // the cut world's cut
	clocks   map[sim.NodeID]string    // what is wrong with each controller's clock, for stories
	decided  map[sim.NodeID]*decision // each controller's last decision to create pods
	paused   []*decision              // the decisions a pause fell after, in order
	end      time.Duration
}

// accepted is one write the store accepted: its change and who sent it.
type accepted struct {
	rv   int64
	at   time.Duration
	from sim.NodeID
	ev   kube.Event
	req  any // the request as it came, its fence included
}

// sample is one answer of a controller's elector to Leading.
type sample struct {
	at      time.Duration
	leading bool
	fence   kube.Fence
}

// try is one pod create a controller sent, and how it ended.
type try struct {
	who   sim.NodeID
	pod   string
	fence kube.Fence
	at    time.Duration
	err   error
}

// decision is a controller's decision to create pods: when it made it, on
// which fence, and what it saw.
type decision struct {
	who        sim.NodeID
	at         time.Duration
	fence      kube.Fence
	want, have int
	resumed    time.Duration // when the pause after it ended; 0: none
}

// pausePlan pauses the first controller (who, or either when empty) to
// decide to create pods at or after after, for span, right after its
// decision.
type pausePlan struct {
	who   sim.NodeID
	after time.Duration
	span  time.Duration
	done  bool
}

// cutPlan is the cut world's fault: the leader at at, cut off (or
// crashed) for span.
type cutPlan struct {
	crash    bool
	at, span time.Duration
	who      sim.NodeID // the leader it fell on; empty: none led
}

// newWorld builds a scene of the given server and the two controllers, with
// the learner's elector in each; start is when each controller's node boots.
func newWorld(seed int64, elect electFunc, startB time.Duration) *world {
	w := &world{elect: elect, store: kube.NewMemStore(0), samples: map[sim.NodeID][]sample{},
		clocks: map[sim.NodeID]string{}, decided: map[sim.NodeID]*decision{}}
	w.Scene = scene.New(seed, nil, scene.Named(server), scene.Latency(ms, 2*ms), scene.RequestTimeout(requestTimeout))
	w.W.AddNode(server, w.serve)
	w.W.AddNode(ctrlA, w.controller)
	w.W.AddNode(ctrlB, func(p *sim.Proc) {
		p.Sleep(startB)
		w.controller(p)
	})
	// The server's own events are not shown (its notes would repeat every
	// request), so it has no lane of its own: the controllers and kubectl
	// share the width.
	w.Lanes(ctrlA, ctrlB, kubectl)
	w.Show(func(e sim.Event) bool {
		switch e.Kind {
		case sim.EvNote:
			// An elector reads and renews the lease every retry period;
			// its takeovers and refusals, and the controllers' decisions
			// and writes, tell the story.
			return !strings.HasPrefix(e.Text, "reads ") && !strings.HasPrefix(e.Text, "renews ")
		case sim.EvCrash, sim.EvRestart, sim.EvFault:
			return true
		}
		return false
	})
	return w
}

// serve is the API server: the given store, and a record of every write it
// accepts with the node that sent it.
func (w *world) serve(p *sim.Proc) {
	h := kube.Handler(w.store)
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		rv := w.store.ResourceVersion()
		reply, err := h(p, from, req) // a MemStore never blocks on a write
		if w.store.ResourceVersion() != rv {
			o := reply.(kube.Object)
			typ := kube.Modified
			switch req.(type) {
			case kube.CreateRequest:
				typ = kube.Added
			case kube.DeleteRequest:
				typ = kube.Deleted
			}
			w.accepted = append(w.accepted, accepted{rv: o.ResourceVersion, at: p.Now(), from: from, ev: kube.Event{Type: typ, Object: o}, req: req})
		}
		return reply, err
	})
}

// controller is a ReplicaSet-style controller for web with the learner's
// elector: every reconcileEvery of its own clock, if its elector says it
// leads, it reads web and its pods and creates the missing ones, each write
// carrying the fence the elector gave it before it read.
func (w *world) controller(p *sim.Proc) {
	id := p.Node()
	api := kube.NewClient(p, server).Named(string(id)).WithTimeout(requestTimeout).Noted(leaseNote)
	leader := w.elect(p, api, string(id))
	c := api.Quiet().WithTimeout(reconcileTimeout)
	for {
		p.Sleep(reconcileEvery)
		fence, ok := leader.Leading(p)
		w.samples[id] = append(w.samples[id], sample{at: p.Now(), leading: ok, fence: fence})
		if !ok {
			continue
		}
		d, err := c.Get(web, kube.ReadOptions{})
		if err != nil {
			continue
		}
		pods, err := c.List("pods", kube.ReadOptions{})
		if err != nil {
			continue
		}
		have := 0
		for _, o := range pods.Items {
			if o.Owner == web {
				have++
			}
		}
		if have >= d.Replicas {
			continue
		}
		dec := &decision{who: id, at: p.Now(), fence: fence, want: d.Replicas, have: have}
		w.decided[id] = dec
		p.Logf("leads (fence %s): web wants %d pods, has %d: creates %d", fenceText(fence), d.Replicas, have, d.Replicas-have)
		w.pauseAfter(p, dec)
		for i := have; i < d.Replicas; i++ {
			w.nextPod++
			name := fmt.Sprintf("web-%d", w.nextPod)
			t := try{who: id, pod: "pods/" + name, fence: fence, at: p.Now()}
			_, t.err = c.Create(kube.Object{Kind: "pods", Name: name, Owner: web, Fence: fence})
			w.tries = append(w.tries, t)
			if t.err != nil {
				p.Logf("CREATE pods/%s (fence %s) → %s", name, fenceText(fence), reason(t.err))
				break
			}
			p.Logf("CREATE pods/%s (fence %s) → accepted", name, fenceText(fence))
		}
	}
}

// pauseAfter pauses the controller right after its decision d, if a plan
// says so: its node freezes here, before its first write.
func (w *world) pauseAfter(p *sim.Proc, d *decision) {
	for _, plan := range w.plans {
		if plan.done || p.Now() < plan.after || (plan.who != "" && plan.who != d.who) {
			continue
		}
		plan.done = true
		w.paused = append(w.paused, d)
		w.W.After(plan.span, func() {
			d.resumed = w.W.Now()
			w.W.Resume(d.who)
		})
		w.W.Pause(d.who)
		return
	}
}

// kubectl is the engineer's client: it creates web with want replicas and
// as many pods, then sets web's replicas to each scale at its time.
func (w *world) kubectl(want int, scales ...scaleAt) {
	w.W.AddNode(kubectl, func(p *sim.Proc) {
		c := kube.NewClient(p, server).WithTimeout(requestTimeout)
		for {
			if _, err := c.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: want}); err == nil || errors.Is(err, kube.ErrAlreadyExists) {
				break
			}
		}
		for w.nextPod < want {
			w.nextPod++
			_, _ = c.Create(kube.Object{Kind: "pods", Name: fmt.Sprintf("web-%d", w.nextPod), Owner: web})
		}
		for _, s := range scales {
			p.Sleep(s.at - p.Now())
			for {
				d, err := c.Get(web, kube.ReadOptions{})
				if err == nil {
					d.Replicas = s.replicas
					if _, err = c.Update(d); err == nil {
						break
					}
				}
			}
		}
	})
}

// scaleAt is one change of web's replicas by kubectl.
type scaleAt struct {
	at       time.Duration
	replicas int
}

// run runs the world to end.
func (w *world) run(end time.Duration) *world {
	w.end = end
	w.Run(end)
	return w
}

// ran is the first judge of every check: the world ran to its end.
func ran(w *world) *suite.Failure { return scene.Ran(w.Scene) }

// fenceText is "token 2 of leases/controller", or "none".
func fenceText(f kube.Fence) string {
	if f == (kube.Fence{}) {
		return "none"
	}
	return fmt.Sprintf("token %d of %s", f.Token, f.LeaseKey)
}

// reason is an API error's reason: "Fenced".
func reason(err error) string {
	var se kube.StatusError
	if errors.As(err, &se) {
		return se.Reason
	}
	return err.Error()
}

// clause of the chapter's safety failures: two controllers acting on the one
// history.
const safety = course.OneHistory

// leaseNote is the timeline's line for a request of an elector: "takes
// leases/controller (token 2)", "renews leases/controller (token 1)", "reads
// leases/controller: controller-a, token 1", or what else it asked and heard.
// A takeover is a write whose acquire and renew times are one reading of
// the writer's clock.
func leaseNote(r kube.Request) string {
	var o kube.Object
	switch a := r.Ask.(type) {
	case kube.GetRequest:
		if r.Err != nil {
			return fmt.Sprintf("reads %s → %s", a.Key, reason(r.Err))
		}
		got, _ := r.Reply.(kube.Object)
		return fmt.Sprintf("reads %s: %s, token %d", a.Key, got.Lease.Holder, got.Lease.Transitions)
	case kube.CreateRequest:
		o = a.Object
	case kube.UpdateRequest:
		o = a.Object
	default:
		return fmt.Sprintf("%v → %s", r.Ask, outcome(r.Err))
	}
	verb := "renews"
	if o.Lease.AcquireTime == o.Lease.RenewTime {
		verb = "takes"
	}
	if r.Err != nil {
		verb = "tries to " + strings.TrimSuffix(verb, "s")
	}
	return fmt.Sprintf("%s %s (token %d, its clock %s) → %s", verb, o.Key(), o.Lease.Transitions, millis(o.Lease.RenewTime), outcome(r.Err))
}

// outcome is "accepted", or the error's reason.
func outcome(err error) string {
	if err == nil {
		return "accepted"
	}
	return reason(err)
}
