// Package drill is the handle a chaos drill gets on a cluster: two API
// servers behind a load balancer, inside a simulated world, and the means to
// run clients against them, to break them on purpose, and to run the world.
//
// Chapter ex03 asks you to write such a drill (func Drill(c *drill.Cluster)
// error in exercises/ex03-silence-is-not-agreement). The hidden suite hands
// your drill clusters you cannot see, some of which keep the contract and
// some of which do not, and scores whether your drill tells them apart.
//
// # A drill
//
//	func Drill(c *drill.Cluster) error {
//		h := check.NewHistory()
//		c.Client("writer", func(p *sim.Proc) {
//			api := kube.NewClient(p, c.Servers()...).Record(h) // the load balancer
//			...                                                 // writes and reads
//		})
//		c.At(time.Second, func() { c.Crash("server-1") })
//		c.At(3*time.Second, func() { c.Restart("server-1") })
//		if err := c.Run(10 * time.Second); err != nil {
//			return err
//		}
//		... // judge what the clients saw: nil if the contract held
//	}
//
// Every client is a node of its own that runs one process; it may start more
// with p.Go, talk to the servers with kube.NewClient (through the balancer,
// or pinned to one server with Pin), record what it saw in a check.History,
// sleep and read the time from its *sim.Proc. Everything happens in virtual
// time: a drill of ten virtual seconds costs a few milliseconds.
//
// A drill sees the cluster from outside, as a chaos engineer does: what its
// clients are told, and the faults it injects. Timeline and Faults show
// those, and nothing of the servers' messages to each other or their disks.
//
// # What a finding is
//
// A server that refuses a request (Unavailable, TooManyRequests) or does not
// answer in time (Timeout) is being honest: a cluster may stop serving while
// a server is down. It may not give an answer that contradicts another
// answer: a read that misses an acknowledged write, two servers that hold
// different values once everything has healed, a write that was acknowledged
// and is gone. That is what a drill must look for.
package drill

import (
	"fmt"
	"slices"
	"time"

	"onehistory/internal/harness/sim"
)

// Cluster is two API servers, "server-1" and "server-2", in a world that has
// not run yet. Add clients and schedule faults, then Run. A Cluster belongs
// to the drill it was given to; the suite closes its world afterwards.
type Cluster struct {
	w       *sim.World
	servers []sim.NodeID
	clients []sim.NodeID
	runs    int
	runErr  error

	// What the drill did to the world, as positions in the world's trace and
	// in its list of faults: the part of them the drill may see besides its
	// clients' own events (see Timeline and Faults).
	events []span
	faults map[int]bool
}

// span is the events a call of the drill added to the trace: [from, to).
type span struct{ from, to int }

// New wraps a world whose servers are already added as nodes. The hidden
// suite builds its clusters with it; you may build your own (for instance
// one server serving kube.NewMemStore) to try your drill on.
func New(w *sim.World, servers ...sim.NodeID) *Cluster {
	return &Cluster{w: w, servers: append([]sim.NodeID(nil), servers...), faults: map[int]bool{}}
}

// Servers lists the API servers, "server-1" and "server-2": pass them to
// kube.NewClient for a client behind the load balancer.
func (c *Cluster) Servers() []sim.NodeID { return append([]sim.NodeID(nil), c.servers...) }

// Client adds a client node named name that runs f as its main process when
// the world runs. Add clients before the first Run.
func (c *Cluster) Client(name string, f func(p *sim.Proc)) {
	if c.runs > 0 {
		panic(&sim.MisuseError{What: fmt.Sprintf("drill: Client(%q) after Run: add every client before running the world", name)})
	}
	id := sim.NodeID(name)
	if slices.Contains(c.servers, id) {
		panic(&sim.MisuseError{What: fmt.Sprintf("drill: Client(%q): that is a server's name", name)})
	}
	c.clients = append(c.clients, id)
	c.w.AddNode(id, f)
}

// Clients lists the client nodes added so far.
func (c *Cluster) Clients() []sim.NodeID { return append([]sim.NodeID(nil), c.clients...) }

// At schedules f at virtual time t, outside any process: the place for
// faults, c.At(2*time.Second, func() { c.Crash("server-1") }).
func (c *Cluster) At(t time.Duration, f func()) { c.w.At(t, f) }

// Crash stops server (or a client) at once: its memory is gone, requests
// to it are refused until Restart. What it synced to its disk survives.
func (c *Cluster) Crash(node sim.NodeID) { c.inject(func() { c.w.Crash(node) }) }

// Restart boots a crashed node again.
func (c *Cluster) Restart(node sim.NodeID) { c.inject(func() { c.w.Restart(node) }) }

// Up reports whether node is running.
func (c *Cluster) Up(node sim.NodeID) bool { return c.w.Up(node) }

// Partition splits the network into groups; nodes named in no group form
// one more group together. c.Partition([]sim.NodeID{"server-1"}) cuts
// server-1 off from server-2 and from every client.
func (c *Cluster) Partition(groups ...[]sim.NodeID) { c.inject(func() { c.w.Partition(groups...) }) }

// Heal ends any partition.
func (c *Cluster) Heal() { c.inject(c.w.Heal) }

// inject runs one of the drill's faults and remembers what it added to the
// trace and to the world's faults. A client that crashes itself ends in f:
// the deferred call still remembers.
func (c *Cluster) inject(f func()) {
	from, faults := c.w.Trace().Len(), len(c.w.Faults())
	defer func() {
		c.events = append(c.events, span{from, c.w.Trace().Len()})
		for i := faults; i < len(c.w.Faults()); i++ {
			c.faults[i] = true
		}
	}()
	f()
}

// Now is the virtual time since the world began.
func (c *Cluster) Now() time.Duration { return c.w.Now() }

// Run runs the world until virtual time limit (counted from the start, not
// from now) or until nothing is left to do. It returns an error when the run
// cannot go on: a deadlock, a panic in a process, a process stuck outside
// the world. Run may be called again with a later limit to go on.
func (c *Cluster) Run(limit time.Duration) error {
	c.runs++
	err := c.w.Run(limit)
	if err != nil && c.runErr == nil {
		c.runErr = err
	}
	return err
}

// Timeline renders what the drill has seen so far as swimlanes, for your
// own debugging: a lane for each client (all of them, in the order added,
// unless opt.Columns names some), and across every lane the faults the drill
// injected. It shows what a chaos engineer sees from outside: what each
// client sent, what came back and when, and which calls got no answer. A
// client cannot tell a request that was lost from a reply that was, and
// nobody outside a server sees its messages to the other server or its
// disk: the servers have no lanes here, and naming one in opt.Columns is a
// misuse. (The hidden suite's stories show the servers' lanes: a finding is
// judged from the clients, a story told from everything.)
func (c *Cluster) Timeline(opt sim.TimelineOptions) string {
	if opt.Columns == nil {
		opt.Columns = c.Clients()
	}
	for _, id := range opt.Columns {
		if !slices.Contains(c.clients, id) {
			panic(&sim.MisuseError{What: fmt.Sprintf("drill: Timeline: %q is not a client: a drill sees the servers only through what its clients are told", id)})
		}
	}
	return sim.Timeline(c.seen(), opt)
}

// seen is what the drill may see of the world's trace, in its order: its
// clients' events but their lost messages (a client learns only that no
// answer came), and the faults it injected, a server's crash and restart as
// a row across the lanes ("crash server-1").
func (c *Cluster) seen() []sim.Event {
	all := c.w.Trace().Events()
	mine := make([]bool, len(all))
	for _, s := range c.events {
		for i := s.from; i < s.to && i < len(all); i++ {
			mine[i] = true
		}
	}
	var out []sim.Event
	for i, e := range all {
		switch {
		case slices.Contains(c.clients, e.Node):
			if e.Kind != sim.EvDrop {
				out = append(out, e)
			}
		case !mine[i]:
		case e.Kind == sim.EvFault && e.Node == "":
			out = append(out, e)
		case e.Kind == sim.EvCrash || e.Kind == sim.EvRestart:
			out = append(out, sim.Event{At: e.At, Kind: sim.EvFault, Text: e.Kind.String() + " " + string(e.Node)})
		}
	}
	return out
}

// Faults lists the faults the drill injected so far, with their start and
// end.
func (c *Cluster) Faults() []sim.Fault {
	var out []sim.Fault
	for i, f := range c.w.Faults() {
		if c.faults[i] {
			out = append(out, f)
		}
	}
	return out
}

// Ran reports how many times the drill called Run, and the first error a
// run returned. The suite uses it to tell a drill that never ran the world
// from one that looked and found nothing.
func (c *Cluster) Ran() (runs int, err error) { return c.runs, c.runErr }
