// Package drill is the handle a chaos drill gets on a real etcd-backed
// cluster in the etcd lab (book/lab-etcd.md): API servers a client can pin
// to or reach through a balancer, a fault that cuts a server off from its
// peers, and the means to run clients against them for a bounded time.
//
// It has the shape of ex03's drill package on purpose, so that the drill
// written there carries over: clients that are functions of a *Proc,
// faults scheduled with At, one Run, then a verdict. What differs is time:
// here it is the wall clock. Nothing replays, so the lab runs each
// configuration three times.
//
// # A drill
//
//	func Drill(c *drill.Cluster) error {
//		h := check.NewHistory()
//		c.Client("writer", func(p *drill.Proc) {
//			api := drill.NewClient(p, c.Servers()...).Record(h) // the balancer
//			...                                                  // puts and gets
//		})
//		c.At(300*time.Millisecond, func() { c.Isolate("server-1") })
//		c.At(800*time.Millisecond, func() { c.Rejoin("server-1") })
//		if err := c.Run(2 * time.Second); err != nil {
//			return err
//		}
//		... // judge what the clients saw: nil if the contract held
//	}
//
// # What a finding is
//
// As in ex03: a refusal (ErrUnavailable) or no answer in time (ErrTimeout)
// is honest. An answer that contradicts another answer is a finding.
package drill

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/sim"
)

// The errors a Client's requests end with, besides success. Test them with
// errors.Is.
var (
	// ErrNotFound: the server answered that the key does not exist.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable: the server refused the request before it had any
	// effect (etcd's "no leader").
	ErrUnavailable = errors.New("unavailable")
	// ErrTimeout: no answer in time. A write that timed out may or may not
	// have happened.
	ErrTimeout = errors.New("timed out")
)

// Server is one API server as a configuration of the lab builds it: a name
// and how it reads and writes. Drills never see it; they name servers.
type Server interface {
	// Name is what a drill calls the server: "server-1".
	Name() string
	// Get reads key: its value and the revision that last changed it, or
	// found false. It returns ErrUnavailable (wrapped) for a refusal; any
	// other error is taken for no answer.
	Get(ctx context.Context, key string) (value int, rev int64, found bool, err error)
	// Put writes value to key and returns the revision the write created
	// (0 if the server does not tell). Errors as for Get.
	Put(ctx context.Context, key string, value int) (rev int64, err error)
}

// Faults is what a configuration does when a drill isolates a server: cut
// it off from its peers both ways, clients still reaching it, and mend that.
type Faults interface {
	Isolate(server string)
	Rejoin(server string)
}

// Object is what a read returned.
type Object struct {
	Key      string
	Value    int
	Revision int64  // the etcd revision that last changed the key (0: not told)
	Server   string // who answered
}

// Cluster is the API servers of one configuration, not yet running. Add
// clients and faults, then Run once. A Cluster belongs to the drill it was
// given to; the lab tears the real cluster down afterwards.
type Cluster struct {
	servers []Server
	faults  Faults
	clients []client
	events  []event
	limit   time.Duration

	mu       sync.Mutex
	start    time.Time
	ran      bool
	runErr   error
	history  *check.History // every request any client made
	isolated map[string]time.Duration
	done     []check.Fault
	requests []request
}

type client struct {
	name string
	f    func(p *Proc)
}

type event struct {
	at time.Duration
	f  func()
}

type request struct {
	client, server string
	write          bool
	at             time.Duration
	outcome        check.Outcome
}

// New wraps the servers of a configuration; the lab builds every Cluster a
// drill gets with it. limit bounds any Run (the drill may ask for less).
func New(servers []Server, faults Faults, limit time.Duration) *Cluster {
	return &Cluster{
		servers:  slices.Clone(servers),
		faults:   faults,
		limit:    limit,
		history:  check.NewHistory(),
		isolated: map[string]time.Duration{},
	}
}

// Servers lists the API servers' names, "server-1", "server-2", ...: pass
// them to NewClient for a client behind the balancer.
func (c *Cluster) Servers() []string {
	var out []string
	for _, s := range c.servers {
		out = append(out, s.Name())
	}
	return out
}

// Client adds a client named name that runs f, on its own goroutine, when
// the cluster runs. f should return by the time Run's limit passes; Sleep
// returns early then and every request fails with ErrTimeout.
func (c *Cluster) Client(name string, f func(p *Proc)) {
	if c.ran {
		panic(fmt.Sprintf("drill: Client(%q) after Run: add every client before running", name))
	}
	c.clients = append(c.clients, client{name, f})
}

// At schedules f at time t after Run starts, outside any client: the place
// for faults, c.At(300*time.Millisecond, func() { c.Isolate("server-1") }).
func (c *Cluster) At(t time.Duration, f func()) {
	if c.ran {
		panic("drill: At after Run: schedule every fault before running")
	}
	c.events = append(c.events, event{t, f})
}

// Isolate cuts server off from its peers, both ways (the members of its
// etcd cluster, or the feed that copies to it); clients still reach it.
func (c *Cluster) Isolate(server string) {
	c.server(server)
	c.mu.Lock()
	if _, on := c.isolated[server]; !on {
		c.isolated[server] = c.now()
	}
	c.mu.Unlock()
	c.faults.Isolate(server)
}

// Rejoin ends Isolate(server).
func (c *Cluster) Rejoin(server string) {
	c.server(server)
	c.faults.Rejoin(server)
	c.mu.Lock()
	if from, on := c.isolated[server]; on {
		delete(c.isolated, server)
		c.done = append(c.done, check.Fault{Kind: sim.FaultPartition, Desc: "isolate " + server,
			Nodes: []sim.NodeID{sim.NodeID(server)}, Start: from, End: c.now()})
	}
	c.mu.Unlock()
}

// Now is the time since Run started (zero before).
func (c *Cluster) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now()
}

func (c *Cluster) now() time.Duration {
	if c.start.IsZero() {
		return 0
	}
	return time.Since(c.start)
}

// Run starts every client and fault and waits until every client has
// returned and every fault has fired, or until limit (and never longer
// than the lab allows). Servers still isolated then rejoin. It returns an
// error if a client panicked, or if clients were still running at the
// limit and did not stop within a second of it.
func (c *Cluster) Run(limit time.Duration) error {
	if c.ran {
		return errors.New("drill: Run called twice: a real cluster runs once")
	}
	limit = min(limit, c.limit)
	c.mu.Lock()
	c.ran = true
	c.start = time.Now()
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()

	var wg sync.WaitGroup
	var panicked error
	var pmu sync.Mutex
	for _, cl := range c.clients {
		p := &Proc{name: cl.name, c: c, ctx: ctx, rnd: rand.New(rand.NewPCG(seed(cl.name), uint64(time.Now().UnixNano())))}
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					pmu.Lock()
					panicked = errors.Join(panicked, fmt.Errorf("client %s panicked: %v", cl.name, r))
					pmu.Unlock()
				}
			}()
			cl.f(p)
		})
	}
	events := slices.Clone(c.events)
	slices.SortStableFunc(events, func(a, b event) int { return int(a.at - b.at) })
	for _, e := range events {
		if !sleep(ctx, e.at-c.Now()) {
			break
		}
		e.f()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	var err error
	select {
	case <-finished:
	case <-ctx.Done():
		select {
		case <-finished:
		case <-time.After(time.Second):
			err = fmt.Errorf("drill: clients still running a second after the %s limit", limit)
		}
	}
	for _, s := range c.Servers() {
		c.mu.Lock()
		_, on := c.isolated[s]
		c.mu.Unlock()
		if on {
			c.Rejoin(s)
		}
	}
	if err == nil {
		pmu.Lock()
		err = panicked
		pmu.Unlock()
	}
	c.mu.Lock()
	c.runErr = err
	c.mu.Unlock()
	return err
}

// Ran reports whether the drill called Run, and what Run returned. The lab
// uses it to tell a drill that never looked from one that found nothing.
func (c *Cluster) Ran() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ran, c.runErr
}

func seed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// sleep waits d or until ctx ends, and reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Faults lists the isolations that have ended, with their start and end.
func (c *Cluster) Faults() []check.Fault {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.done)
}

// History is every request any client made, recorded whether or not the
// drill asked for it: the lab checks it and draws it.
func (c *Cluster) History() *check.History { return c.history }

// Activity counts what the drill's clients did: writes and reads sent, how
// many of each while a server was isolated, and which servers the reads went
// to. The lab tells it when a drill lets a broken configuration through.
type Activity struct {
	Writes, WritesDuringFault int
	Reads, ReadsDuringFault   int
	ReadsTo                   map[string]int
}

// Activity summarizes the requests made so far.
func (c *Cluster) Activity() Activity {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := Activity{ReadsTo: map[string]int{}}
	for _, r := range c.requests {
		during := false
		for _, f := range c.done {
			if r.at >= f.Start && r.at <= f.End {
				during = true
			}
		}
		if r.write {
			a.Writes++
			if during {
				a.WritesDuringFault++
			}
			continue
		}
		a.Reads++
		a.ReadsTo[r.server]++
		if during {
			a.ReadsDuringFault++
		}
	}
	return a
}

func (c *Cluster) server(name string) Server {
	for _, s := range c.servers {
		if s.Name() == name {
			return s
		}
	}
	panic(fmt.Sprintf("drill: no server %q (the servers are %v)", name, c.Servers()))
}

// Proc is one running client: its name, its clock and its randomness.
type Proc struct {
	name string
	c    *Cluster
	ctx  context.Context
	rnd  *rand.Rand
}

// Name is the client's name.
func (p *Proc) Name() string { return p.name }

// Now is the time since the cluster started running.
func (p *Proc) Now() time.Duration { return p.c.Now() }

// Sleep waits d, or less if the run's limit comes first.
func (p *Proc) Sleep(d time.Duration) { sleep(p.ctx, d) }

// Done reports whether the run's limit has passed: a client should return.
func (p *Proc) Done() bool { return p.ctx.Err() != nil }

// Rand is the client's own source of randomness. Real time has no seeds,
// so it is not replayable either.
func (p *Proc) Rand() *rand.Rand { return p.rnd }
