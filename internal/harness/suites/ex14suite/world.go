package ex14suite

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

const ms = time.Millisecond

// The cluster of every world, stated once: one API server over the store,
// the node controller beside it, and eight nodes whose kubelets write a
// heartbeat every ten seconds of their own clocks.
const (
	store      sim.NodeID = "server-1"
	controller sim.NodeID = "node-controller"
	nodeCount             = 8

	// interval is how often a kubelet writes its heartbeat, on its own
	// clock (Kubernetes's default renew interval).
	interval = 10 * time.Second
	// kubeletTimeout is how long a kubelet waits for the store's answer to
	// one heartbeat before it gives up on it (the write may still land).
	kubeletTimeout = 30 * time.Second
	// tolerance is the least time a node stays suspected (tainted
	// NoSchedule) before its pods may be evicted.
	tolerance = 5 * time.Second
	// watchWindow is how many changes the store keeps for watches.
	watchWindow = 100
)

// A population is a kind of node: its links to the store and the bounds a
// crash of one of its nodes must be found within.
type population struct {
	Name string
	Up   sim.Link // node → store: the way heartbeats travel
	Down sim.Link // store → node
	// SuspectWithin and EvictWithin bound, from a crash, when the node
	// must be tainted NoSchedule and when its pods must be evicted.
	SuspectWithin, EvictWithin time.Duration
}

// The two populations: steady nodes next to the store, and nodes across a
// long-tailed wide-area link whose heartbeats often take seconds and now
// and then tens of seconds to arrive.
var (
	lan = population{Name: "LAN", Up: sim.Link{Min: ms, Max: 5 * ms}, Down: sim.Link{Min: ms, Max: 5 * ms},
		SuspectWithin: 25 * time.Second, EvictWithin: 40 * time.Second}
	wan = population{Name: "WAN",
		Up:            sim.Link{Min: 100 * ms, Max: 10 * time.Second, Tail: 0.05, TailMax: 35 * time.Second},
		Down:          sim.Link{Min: 100 * ms, Max: 500 * ms},
		SuspectWithin: 100 * time.Second, EvictWithin: 180 * time.Second}
)

// world is one scene of the chapter: the store's record of every write it
// accepted, each node's population, and the ground truth the world keeps
// (crashes, pauses, clocks) for the judges.
type world struct {
	*scene.Scene
	mem      *kube.MemStore
	names    []string
	pop      map[string]population
	accepted []accepted
	end      time.Duration // how long the world runs
	// cutFrom and cutTo, in the disruption world, bound the span in which
	// every node was cut off from the store.
	cutFrom, cutTo time.Duration
	// spells are the story's spells of late heartbeats, for the stories.
	spells []lateHeartbeats
}

// accepted is one write the store accepted: when, from whom, and the
// object as it stood after (a delete's: as it was).
type accepted struct {
	at     time.Duration
	from   sim.NodeID
	delete bool
	obj    kube.Object
}

// newWorld builds the cluster of seed: the store, the learner's node
// controller, and eight kubelets, the nodes in lanNodes steady and the rest
// across the long-tailed link; every node runs one pod, pods/web-<node>.
func newWorld(seed int64, impl Impl, lanNodes []string, end time.Duration) *world {
	s := scene.New(seed, nil, scene.Servers(1), scene.Latency(ms, 2*ms))
	w := &world{Scene: s, mem: kube.NewMemStore(watchWindow), pop: map[string]population{}, end: end}
	for i := range nodeCount {
		w.names = append(w.names, fmt.Sprintf("node-%d", i+1))
	}
	s.W.AddNode(store, w.serveStore)
	for _, name := range w.names {
		w.pop[name] = wan
		if slices.Contains(lanNodes, name) {
			w.pop[name] = lan
		}
		_, _ = w.mem.Create(nil, kube.BoundPod(podName(name), "deployments/web", name))
	}
	s.W.AddNode(controller, func(p *sim.Proc) {
		impl.Control(p, kube.NewClient(p, store).Named(string(controller)), slices.Clone(w.names))
	})
	for _, name := range w.names {
		id := sim.NodeID(name)
		s.W.AddNode(id, w.kubelet(name))
		s.W.SetLink(id, store, w.pop[name].Up)
		s.W.SetLink(store, id, w.pop[name].Down)
	}
	s.Lanes(controller)
	s.Show(func(e sim.Event) bool {
		switch e.Kind {
		case sim.EvNote:
			return e.Node == controller && !strings.Contains(e.Text, "WATCH") && !strings.Contains(e.Text, "LIST")
		case sim.EvCrash, sim.EvRestart, sim.EvFault:
			return true
		}
		return false
	})
	return w
}

func ids(names []string) []sim.NodeID {
	out := make([]sim.NodeID, len(names))
	for i, n := range names {
		out[i] = sim.NodeID(n)
	}
	return out
}

// podName is the pod a node runs: "web-node-3".
func podName(node string) string { return "web-" + node }

// serveStore is the API server over the store, which syncs each write to
// its disk before it accepts it (so a slow disk slows every heartbeat) and
// records what it accepted. A kubelet's heartbeat is a patch of its node's
// status (statusPatch), merged into the node as it stands, as the real
// API server merges a kubelet's status patch: it never conflicts with the
// controller's taint.
func (w *world) serveStore(p *sim.Proc) {
	serve := kube.Handler(w.mem)
	wal := p.Disk().Open("wal")
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		patch, isPatch := req.(statusPatch)
		if !kube.IsWrite(req) && !isPatch {
			return serve(p, from, req)
		}
		wal.Append([]byte{'w'})
		wal.Sync(p)
		if isPatch {
			req = patch.write(w.mem)
		}
		rv := w.mem.ResourceVersion()
		reply, err := serve(p, from, req)
		if w.mem.ResourceVersion() != rv {
			_, del := req.(kube.DeleteRequest)
			w.accepted = append(w.accepted, accepted{at: p.Now(), from: from, delete: del, obj: reply.(kube.Object)})
		}
		return reply, err
	})
}

// statusPatch is a kubelet's heartbeat: its node Ready, with the heartbeat
// at Heartbeat on the kubelet's clock.
type statusPatch struct {
	Node      string
	Heartbeat time.Duration
}

// String is "PATCH nodes/node-3 status heartbeat=10000ms".
func (r statusPatch) String() string {
	return fmt.Sprintf("PATCH %s status heartbeat=%s", kube.NodeKey(r.Node), sim.FormatTime(r.Heartbeat))
}

// write is the write the patch makes of the node as mem holds it now: an
// update of its status that keeps everything else, or the node's
// registration.
func (r statusPatch) write(mem *kube.MemStore) any {
	n, err := mem.Get(nil, kube.NodeKey(r.Node), kube.ReadOptions{})
	if err != nil {
		return kube.CreateRequest{Object: kube.NewNode(r.Node, r.Heartbeat)}
	}
	n.Status.Ready, n.Status.Heartbeat = kube.ConditionTrue, r.Heartbeat
	return kube.UpdateRequest{Object: n}
}

// kubelet is node name's kubelet: a heartbeat every interval of its own
// clock, each a patch of its node's status; one whose answer does not come
// within kubeletTimeout is given up (it may still land).
func (w *world) kubelet(name string) func(p *sim.Proc) {
	return func(p *sim.Proc) {
		for {
			_, _ = p.Call(store, statusPatch{Node: name, Heartbeat: p.Clock()}, kubeletTimeout)
			p.Sleep(interval)
		}
	}
}

// run runs the world to its end.
func (w *world) run() *world {
	_ = w.Run(w.end)
	return w
}

// heartbeats are the times the store accepted a heartbeat of node: a
// write of its kubelet that changed the heartbeat.
func (w *world) heartbeats(node string) []time.Duration {
	var out []time.Duration
	for _, a := range w.accepted {
		if a.from == sim.NodeID(node) && !a.delete {
			out = append(out, a.at)
		}
	}
	return out
}

// crashedAt is when node crashed, if it did.
func (w *world) crashedAt(node string) (time.Duration, bool) {
	for _, c := range scene.DeclaredOf[scene.Crash](w.Scene) {
		if c.Node == sim.NodeID(node) {
			return c.At, true
		}
	}
	return 0, false
}

// upAt reports whether node was up (not crashed; a paused node is up) at t.
func (w *world) upAt(node string, t time.Duration) bool {
	at, crashed := w.crashedAt(node)
	return !crashed || t < at
}

// taints are the times the controller tainted node NoSchedule, each time
// it set the taint on a node that did not have it.
func (w *world) taints(node string) []time.Duration {
	var out []time.Duration
	tainted := false
	for _, a := range w.accepted {
		if a.obj.Key() != kube.NodeKey(node) || a.delete {
			continue
		}
		if a.obj.Status.NoSchedule && !tainted && a.from == controller {
			out = append(out, a.at)
		}
		tainted = a.obj.Status.NoSchedule
	}
	return out
}

// eviction is the deletion of node's pod, if the controller evicted it.
func (w *world) eviction(node string) (time.Duration, bool) {
	for _, a := range w.accepted {
		if a.delete && a.obj.Kind == "pods" && a.obj.NodeName == node {
			return a.at, true
		}
	}
	return 0, false
}

// skewOf is node's clock offset at t, from the declared skews.
func (w *world) skewOf(node string, t time.Duration) time.Duration {
	var by time.Duration
	for _, s := range scene.DeclaredOf[scene.Skew](w.Scene) {
		if s.Node == sim.NodeID(node) && s.From <= t {
			by = s.By
		}
	}
	return by
}

// pausedAround is the declared pause of node that ended last before t, if
// any began before t.
func (w *world) pausedAround(node string, t time.Duration) (scene.Pause, bool) {
	var out scene.Pause
	found := false
	for _, p := range scene.DeclaredOf[scene.Pause](w.Scene) {
		if p.Node == sim.NodeID(node) && p.From < t {
			out, found = p, true
		}
	}
	return out, found
}
