package sim

import (
	"math"
	"math/rand"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// NodeID names a node of the world: "server-1", "controller-a", "client-3".
type NodeID string

// Option configures a world at New.
type Option func(*World)

// Latency sets the default one-way delay of every link: uniform in [min, max].
func Latency(min, max time.Duration) Option {
	return func(w *World) {
		checkRange("Latency", min, max)
		w.defaultLink.Min, w.defaultLink.Max = min, max
	}
}

// Watchdog sets how much wall-clock time a process may run without yielding
// to the world before the run ends with a StuckError. The default is 5s.
func Watchdog(d time.Duration) Option {
	return func(w *World) {
		if d <= 0 {
			misuse("Watchdog(%v): the watchdog needs a positive duration", d)
		}
		w.watchdog = d
	}
}

// DiskSyncLatency sets how long a Sync takes in virtual time. The default is 1ms.
func DiskSyncLatency(d time.Duration) Option {
	return func(w *World) {
		checkDuration("DiskSyncLatency", d)
		w.syncLatency = d
	}
}

// World is one simulated cluster: nodes, the network between them, their
// disks, a virtual clock and a seeded scheduler. Build it with New, add nodes,
// schedule faults with At, then Run. Only one process runs at a time, so the
// same seed always gives the same run, event for event.
type World struct {
	seed  int64
	rng   *rand.Rand
	draws *Rand // rng, as processes get it: draws only
	now   time.Duration

	queue   eventQueue
	actions []action // what the queued events do, by slot
	free    []int32  // the slots of actions no event holds
	seq     uint64
	steps   uint64

	nodes []*node
	byID  map[NodeID]*node
	procs []*Proc // live processes, in creation order
	pool  []*runner
	next  int // process counter, for names

	current *Proc

	defaultLink Link
	links       map[[2]NodeID]Link
	groups      map[NodeID]int // partition group of each node; nil when whole

	calls  map[uint64]*pending
	callID uint64

	trace       Trace
	faults      []Fault
	watchdog    time.Duration
	syncLatency time.Duration
	tearEdges   *rand.Rand // DiskTearsAtEdges: its own draws, so the world's stay as they were

	stopped bool
	err     error

	onStep []func() // OnStep's hooks, in the order added

	// handoff counts the world's handoffs to its processes, twice each:
	// odd while a process runs, even while the world does. The watchdog
	// reads it from another goroutine, and ends a run by swapping an odd
	// value that has not moved for too long for stuckMark.
	handoff atomic.Uint64
}

// stuckMark is the handoff count of a run the watchdog ended.
const stuckMark = math.MaxUint64

// New makes an empty world from a seed. Every random choice of the run (link
// delays, drops, the order of simultaneous events, the processes' Rand) comes
// from this seed.
func New(seed int64, opts ...Option) *World {
	w := &World{
		seed:        seed,
		rng:         rand.New(rand.NewSource(seed)),
		byID:        map[NodeID]*node{},
		links:       map[[2]NodeID]Link{},
		calls:       map[uint64]*pending{},
		watchdog:    5 * time.Second,
		syncLatency: time.Millisecond,
		defaultLink: Link{Min: time.Millisecond, Max: time.Millisecond},
	}
	w.draws = &Rand{r: w.rng}
	for _, o := range opts {
		o(w)
	}
	return w
}

// Seed is the seed the world was made from.
func (w *World) Seed() int64 { return w.seed }

// Now is the virtual time since the world began.
func (w *World) Now() time.Duration { return w.now }

// Rand is the world's seeded source of randomness, for the harness's
// choices of fault schedules and workloads: the generator every draw of the
// run comes from, the processes' (Proc.Rand) included. Use it only from the
// goroutine that runs the world or from a process.
func (w *World) Rand() *rand.Rand { return w.rng }

// Steps is the number of events the world has processed so far.
func (w *World) Steps() uint64 { return w.steps }

// Trace is the record of everything that happened so far.
func (w *World) Trace() *Trace { return &w.trace }

// At schedules f to run at virtual time t (or now, if t has passed), outside
// any process: the place for faults such as w.Crash or w.Partition.
func (w *World) At(t time.Duration, f func()) {
	checkDuration("At", t)
	if t < w.now {
		t = w.now
	}
	w.schedule(t, f)
}

// After schedules f to run d from now, outside any process.
func (w *World) After(d time.Duration, f func()) {
	checkDuration("After", d)
	w.schedule(w.now+d, f)
}

// OnStep adds f to the hooks the world runs after every step, outside any
// process, in the order they were added: the place for a monitor that checks
// an invariant after everything that happens (each delivery, each timer,
// each process's run up to its next wait). A hook only reads the world (Now,
// Up, Status) and may call Stop; it must not block. A hook that panics ends
// the run as a world event's panic does.
func (w *World) OnStep(f func()) {
	if f == nil {
		misuse("OnStep(nil): a hook must be a function")
	}
	w.onStep = append(w.onStep, f)
}

// Stop ends the run after the current event; Run returns nil. A process may
// call it, for example when its workload is done.
func (w *World) Stop() { w.stopped = true }

// Run processes events until virtual time reaches limit, until Stop is
// called, or until nothing is left to do. It returns nil in those cases, and
// an error when the run cannot go on: a *DeadlockError (every process blocked,
// nothing pending), a *PanicError (a process panicked), a *StuckError (a
// process blocked outside the world) or a *MisuseError. Run may be called
// again to go on from where it stopped. Call Close when done with the world.
func (w *World) Run(limit time.Duration) error {
	checkDuration("Run", limit)
	if w.err != nil {
		return w.err
	}
	w.stopped = false
	w.drive(func() {
		for !w.stopped && w.err == nil {
			if w.queue.Len() == 0 {
				w.quiesce()
				break
			}
			if w.queue.peek().at > limit {
				w.now = limit
				break
			}
			e := w.queue.pop()
			a := w.take(e)
			w.now = e.at
			w.steps++
			w.exec(&a)
			for _, f := range w.onStep {
				if w.err != nil {
					break
				}
				w.exec(&action{fn: f})
			}
		}
	})
	return w.err
}

// drive runs f, which hands control to the world's processes, on a
// goroutine of its own, and waits for it under the watchdog: if one process
// keeps the world waiting for longer than the watchdog allows in wall-clock
// time, the run ends with a *StuckError and drive returns, leaving that
// goroutine to the stuck process. It is the only use of the wall clock in
// the world and it never changes what happens in a run, only whether a
// stuck one ends.
func (w *World) drive(f func()) {
	done := make(chan struct{})
	go func() {
		finished := false
		defer func() {
			if !finished && w.handoff.Load() != stuckMark && w.err == nil {
				// A process called runtime.Goexit (t.FailNow, say), which
				// ended its coroutine and this goroutine with it.
				name := "(world event)"
				if w.current != nil {
					name = w.current.name
				}
				w.err = &PanicError{Proc: name, At: w.now, Value: "runtime.Goexit in a process"}
				w.stopped = true
			}
			close(done)
		}()
		f()
		finished = true
	}()
	tick := time.NewTicker(w.watchdog / 10)
	defer tick.Stop()
	last, since := w.handoff.Load(), time.Duration(0)
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		h := w.handoff.Load()
		if h != last || h%2 == 0 {
			last, since = h, 0
			continue
		}
		since += w.watchdog / 10
		if since >= w.watchdog && w.handoff.CompareAndSwap(h, stuckMark) {
			// The world's goroutine waits on the process that runs now and
			// will touch nothing of the world again (resume): its state is
			// this goroutine's to read.
			w.err = &StuckError{Proc: w.current.name, At: w.now, After: w.watchdog}
			w.stopped = true
			return
		}
	}
}

// exec runs one event's action, turning a misuse panic into the run's error.
func (w *World) exec(a *action) {
	defer func() {
		if r := recover(); r != nil {
			if m, ok := r.(*MisuseError); ok {
				w.err = m
				return
			}
			w.err = &PanicError{Proc: "(world event)", At: w.now, Value: r, Stack: string(debug.Stack())}
		}
	}()
	w.do(a)
}

// quiesce is called when no event is pending: a deadlock if any process is
// blocked on something other than waiting for work.
func (w *World) quiesce() {
	var stuck []Blocked
	for _, p := range w.procs {
		if p.state == blocked && !p.idle && !p.node.paused {
			stuck = append(stuck, Blocked{Proc: p.name, Wait: p.waiting()})
		}
	}
	if len(stuck) > 0 {
		w.err = &DeadlockError{At: w.now, Blocked: stuck}
	}
}

// Close ends every process still alive, so that its goroutine exits. The
// world cannot run again afterwards. After a StuckError it does nothing: the
// stuck process cannot be stopped, and no other may run beside it.
func (w *World) Close() {
	if _, stuck := w.err.(*StuckError); stuck {
		// A process still runs outside the world's control: waking others
		// now would let two run at once. Leave the goroutines parked; the
		// run is over and its test process will end.
		return
	}
	if w.err == nil {
		w.err = &MisuseError{What: "Run after Close"}
	}
	w.drive(func() {
		for _, p := range append([]*Proc(nil), w.procs...) {
			if p.state == blocked || p.state == created {
				p.killed = true
				w.resume(p, wakeMsg{})
			}
		}
	})
	if _, stuck := w.err.(*StuckError); stuck {
		return // a process's deferred calls did not end
	}
	for _, r := range w.pool {
		releaseRunner(r)
	}
	w.pool = nil
}

// schedule queues f at time t. Events at the same instant run in an order
// drawn from the seed, so that different seeds explore different orders.
func (w *World) schedule(t time.Duration, f func()) {
	w.scheduleAction(t, action{fn: f})
}

// scheduleAction queues a at time t, drawing its place among the events of
// that instant from the seed.
func (w *World) scheduleAction(t time.Duration, a action) {
	w.seq++
	var slot int32
	if last := len(w.free) - 1; last >= 0 {
		slot = w.free[last]
		w.free = w.free[:last]
		w.actions[slot] = a
	} else {
		slot = int32(len(w.actions))
		w.actions = append(w.actions, a)
	}
	w.queue.push(event{at: t, prio: w.rng.Uint64(), seq: w.seq, slot: slot})
}

// take removes the action of a popped event from the world's slots.
func (w *World) take(e event) action {
	a := w.actions[e.slot]
	w.actions[e.slot] = action{}
	w.free = append(w.free, e.slot)
	return a
}

// action is what an event does: run a function, start a process or end
// one wait of a process. Starts and wakes, most of a run's events, are
// kept as values in the world's slots, not as closures, so that
// scheduling them allocates nothing.
type action struct {
	fn   func() // a world event; nil for a start or a wake
	p    *Proc  // the process to start or wake
	wait uint64 // the wait of p it ends (a waker's seq); 0 starts p
	msg  wakeMsg
}

// do runs the action.
func (w *World) do(a *action) {
	switch {
	case a.fn != nil:
		a.fn()
	case a.wait == 0:
		w.start(a.p)
	default:
		waker{p: a.p, seq: a.wait}.wakeNow(a.msg)
	}
}

// event is a place in the world's queue: when, in which order among the
// events of that instant, and which slot holds its action.
type event struct {
	at   time.Duration
	prio uint64
	seq  uint64
	slot int32
}

func (a *event) less(b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.prio != b.prio {
		return a.prio < b.prio
	}
	return a.seq < b.seq
}

// eventQueue is a binary min-heap of events by (at, prio, seq).
type eventQueue struct{ h []event }

func (q *eventQueue) Len() int     { return len(q.h) }
func (q *eventQueue) peek() *event { return &q.h[0] }

func (q *eventQueue) push(e event) {
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !q.h[i].less(&q.h[parent]) {
			break
		}
		q.h[i], q.h[parent] = q.h[parent], q.h[i]
		i = parent
	}
}

func (q *eventQueue) pop() event {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h[last] = event{}
	q.h = q.h[:last]
	i := 0
	for {
		l, r, small := 2*i+1, 2*i+2, i
		if l < last && q.h[l].less(&q.h[small]) {
			small = l
		}
		if r < last && q.h[r].less(&q.h[small]) {
			small = r
		}
		if small == i {
			break
		}
		q.h[i], q.h[small] = q.h[small], q.h[i]
		i = small
	}
	return top
}

func checkDuration(what string, d time.Duration) {
	if d < 0 {
		misuse("%s(%v): durations and times cannot be negative", what, d)
	}
}

func checkRange(what string, min, max time.Duration) {
	checkDuration(what, min)
	checkDuration(what, max)
	if max < min {
		misuse("%s(%v, %v): the maximum is below the minimum", what, min, max)
	}
}
