package scene

import (
	"fmt"
	"slices"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Boot is the learner's API server as a thin test file hands it over: the
// boot function of one server node. self is the node it runs on; servers
// lists every server node, self included, in the same order on each.
type Boot func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID)

// Scene is one world of a hidden suite, built and not yet run: its servers,
// its clients, its faults and its auditor. Build it with New, add clients,
// faults and the auditor, then Run it once and judge it. A Scene belongs to
// the check that built it; Close releases its world.
type Scene struct {
	W       *sim.World     // the world, for what the builder does not offer
	Seed    int64          // the seed the world was made from
	Servers []sim.NodeID   // the server nodes, in the order every server is told
	History *check.History // every recorded client operation
	// Requests is every request every client made, reads of either mode,
	// lists and watches included, with their answers.
	Requests *kube.Requests
	Timeout  time.Duration // how long a client waits for any answer

	// What the auditor found (AuditAt): each audited server's history of
	// changes and its objects (value by key), and when it finished.
	Histories map[string][]check.Change
	States    map[string]map[string]any
	AuditedAt time.Duration
	Audited   bool
	Problems  []string // answers the auditor could not understand
	Unread    []Unread // the keys among them it could not read, as values
	// AuditPatience is how long after AuditAt's time the auditor keeps
	// asking a server that is up and has not answered (0: it asks once);
	// Unanswered is every server it asked more than once in vain.
	AuditPatience time.Duration
	Unanswered    []Unanswered

	Err    error         // the world's own error: deadlock, panic, stuck process
	Faults []check.Fault // the faults injected, in the checkers' terms (after Run)

	declared []Fault
	links    map[[2]sim.NodeID]*linkFaults // the faults in force on each way of a link (faults.go)
	lanes    []sim.NodeID
	keep     func(sim.Event) bool
	chapter  string
}

// An Option shapes a scene at New.
type Option func(*config)

type config struct {
	servers int
	names   []sim.NodeID
	min     time.Duration
	max     time.Duration
	timeout time.Duration
	world   []sim.Option
}

// Servers sets the number of server nodes: "server-1" to "server-n". The
// default is two, the cluster of the story's first failures.
func Servers(n int) Option { return func(c *config) { c.servers = n } }

// Named gives the server nodes these names instead of "server-1"...
func Named(names ...sim.NodeID) Option { return func(c *config) { c.names = names } }

// Latency sets the default delay of every link, from min to max, each
// message drawn from the seed (the default is 2–20ms).
func Latency(min, max time.Duration) Option { return func(c *config) { c.min, c.max = min, max } }

// RequestTimeout sets how long a client waits for any answer (the default
// is kube.DefaultTimeout). A request that gets no answer in time is
// indefinite: it may or may not have happened.
func RequestTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WorldOptions passes options to sim.New (a disk's sync latency, a watchdog).
func WorldOptions(opts ...sim.Option) Option {
	return func(c *config) { c.world = append(c.world, opts...) }
}

// New builds the scene of seed: the world, and boot running on every server
// node. boot may be nil for a chapter whose servers are not the learner's
// (the suite adds its own nodes through W).
func New(seed int64, boot Boot, opts ...Option) *Scene {
	c := config{servers: 2, min: 2 * time.Millisecond, max: 20 * time.Millisecond, timeout: kube.DefaultTimeout}
	for _, o := range opts {
		o(&c)
	}
	names := c.names
	if names == nil {
		for i := range c.servers {
			names = append(names, sim.NodeID(fmt.Sprintf("server-%d", i+1)))
		}
	}
	w := sim.New(seed, append([]sim.Option{sim.Latency(c.min, c.max)}, c.world...)...)
	s := &Scene{W: w, Seed: seed, Servers: names, History: check.NewHistory(), Requests: &kube.Requests{}, Timeout: c.timeout}
	if boot != nil {
		for _, id := range names {
			w.AddNode(id, func(p *sim.Proc) { boot(p, id, slices.Clone(names)) })
		}
	}
	return s
}

// Client adds a client node that runs f when the world runs, with a
// kube.Client named after the node that spreads requests over the servers,
// records every operation in the scene's History, logs every request in its
// Requests, and waits Timeout for each
// answer. Pin it to talk to one server: api.Pin("server-2").
func (s *Scene) Client(name string, f func(p *sim.Proc, api *kube.Client)) {
	s.W.AddNode(sim.NodeID(name), func(p *sim.Proc) {
		f(p, s.API(p))
	})
}

// API is the recording client Client hands out, for a process the suite
// started another way (a worker started with p.Go uses api.For(p) instead).
func (s *Scene) API(p *sim.Proc) *kube.Client {
	return kube.NewClient(p, s.Servers...).Named(string(p.Node())).Record(s.History).Log(s.Requests).WithTimeout(s.Timeout)
}

// BehindServers wraps the handler of a node that sits behind the API
// servers, as etcd does: it answers the scene's servers and refuses every
// other node with Forbidden (403), as a real etcd refuses a client without
// the API servers' certificate. The network of a world reaches every node;
// without the wrap, a controller of the chapter's could write to the one
// history directly, around the servers a suite watches it through, and read
// it fresh where the chapter's story has it read a server's lagging view.
func (s *Scene) BehindServers(h sim.Handler) sim.Handler {
	return func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		if !s.IsServer(from) {
			return nil, kube.StatusError{Code: 403, Reason: "Forbidden",
				Message: fmt.Sprintf("%s answers the API servers only, and %s is not one", p.Node(), from)}
		}
		return h(p, from, req)
	}
}

// Store boots the node that keeps the one history, store, behind the API
// servers (BehindServers), for a chapter that judges each change as the
// store accepts it: after each, accepted receives the request as it came,
// the store's reply (a delete's: the object as it was, numbered as the
// delete) and, for a delete, the object as it stood before. A server may
// relay a write wrapped with what it knows of its client: a request with
// an Unwrap method is served as the write Unwrap returns.
func (s *Scene) Store(store *kube.MemStore,
	accepted func(p *sim.Proc, from sim.NodeID, req any, o, before kube.Object)) func(p *sim.Proc) {
	serve := kube.Handler(store)
	return func(p *sim.Proc) {
		p.Serve(s.BehindServers(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			write := req
			if w, ok := req.(interface{ Unwrap() any }); ok {
				write = w.Unwrap()
			}
			var before kube.Object
			switch w := write.(type) {
			case kube.DeleteRequest:
				before, _ = store.Get(p, w.Key, kube.ReadOptions{ResourceVersion: kube.Latest})
			case kube.CreateRequest, kube.UpdateRequest:
			default: // a read, or a watch, which may wait while writes change the store
				return serve(p, from, write)
			}
			rv := store.ResourceVersion()
			reply, err := serve(p, from, write) // a MemStore write never blocks
			if store.ResourceVersion() != rv {
				accepted(p, from, req, reply.(kube.Object), before)
			}
			return reply, err
		}))
	}
}

// Run runs the world until virtual time limit, or until the auditor stops
// it, and gathers what the checkers need: the world's error, its faults,
// and for each change the auditor found, when its client heard yes.
func (s *Scene) Run(limit time.Duration) error {
	s.Err = s.W.Run(limit)
	s.Faults = s.W.Faults()
	// A change is accepted at the moment its client heard yes; servers do
	// not say when they applied it. Values are unique per key in every
	// scene that audits, so the value finds the operation.
	acked := map[string]time.Duration{}
	for _, op := range s.History.Operations() {
		if op.Acknowledged() && op.Input.Kind.Mutates() {
			acked[fmt.Sprint(op.Input.Key, "=", op.Input.Value)] = op.Return
		}
	}
	for _, changes := range s.Histories {
		for i := range changes {
			changes[i].At = acked[fmt.Sprint(changes[i].Key, "=", changes[i].Value)]
		}
	}
	return s.Err
}

// Close releases the world's processes. Call it once the scene is judged.
func (s *Scene) Close() { s.W.Close() }

// Longest is the longest of the audited histories: the one history, when
// the servers' histories are prefixes of one.
func (s *Scene) Longest() []check.Change {
	var out []check.Change
	for _, id := range s.Servers {
		if h := s.Histories[string(id)]; len(h) > len(out) {
			out = h
		}
	}
	return out
}

// Writes counts the recorded writes (every operation that may change the
// store) and how many of them were acknowledged.
func (s *Scene) Writes() (all, acked int) {
	for _, op := range s.History.Operations() {
		if op.Input.Kind.Mutates() {
			all++
			if op.Acknowledged() {
				acked++
			}
		}
	}
	return all, acked
}
