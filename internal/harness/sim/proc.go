package sim

import (
	"fmt"
	"iter"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

type procState int

const (
	created procState = iota // spawned, not yet run
	running                  // the one process running now
	blocked                  // waiting for the world to wake it
	done                     // returned, or ended by a crash
)

// wakeMsg is what the world hands a process when it resumes it.
type wakeMsg struct {
	val any
	err error
}

// crashSignal is what a process's stack unwinds with when its node crashes
// (or its world closes) while it runs or waits: its deferred calls run, and
// the runner that ran it takes the next process. Code that recovers it and
// uses the process again meets it again.
type crashSignal struct{}

// Proc is one simulated process: a coroutine the world runs one at a time.
// Chapter code receives a *Proc and gets everything from it: time (Now, Sleep),
// concurrency (Go), randomness (Rand), the network (Call, Send, Serve) and the
// disk (Disk), its node's and nothing beyond: no Proc leads to the World. A
// Proc must only be used by the process it was given to.
type Proc struct {
	w      *World
	node   *node
	epoch  int // the node's incarnation the process belongs to
	name   string
	r      *runner // the coroutine that runs it
	msg    wakeMsg // what the world hands over at its next resume
	state  procState
	killed bool
	// unwinding is set once the process's stack is unwinding from its crash.
	unwinding bool

	waitSeq  uint64 // bumped at every block; a wake for an older wait is stale
	waitWhat string
	waitCall NodeID // the node a Call waits for, when waitWhat is ""
	waitReq  any    // and the request it sent
	idle     bool   // blocked waiting for work: not a deadlock when nothing is pending
}

// runner is a coroutine (iter.Pull) that runs processes, one after
// another. The world hands control to it with next, and it hands control
// back with yield when its process blocks or ends: a switch between two
// goroutines that never goes through the scheduler, so that the world and
// its processes take turns on one thread. A process that ends hands its
// runner back to the world's pool, so the many short processes of a run
// (one per request) cost no goroutine each; a closed world hands its pool
// on to the next world (idleRunners).
type runner struct {
	next  func() (struct{}, bool) // the world's side: run until the process blocks or ends
	stop  func()                  // ends the coroutine, when it runs no process
	yield func(struct{}) bool     // the process's side: hand control back
	w     *World                  // the world whose process it runs
	p     *Proc                   // the process to run next; nil ends the coroutine
	f     func(p *Proc)           // its body
}

// idleRunners are the coroutines of closed worlds' pools, waiting for the
// processes of the next world: a suite builds thousands of worlds one after
// another, and a goroutine kept keeps the stack its processes grew, where
// a new one would grow it again, copy by copy. They only run processes;
// nothing of a world stays in them.
var idleRunners struct {
	sync.Mutex
	rs []*runner
}

// maxIdleRunners bounds the coroutines kept between worlds: more than a
// world of a suite keeps in its pool at its end.
const maxIdleRunners = 256

// takeRunner is a coroutine for a process of w: one of w's pool, one a
// closed world left, or a new one.
func (w *World) takeRunner() *runner {
	if last := len(w.pool) - 1; last >= 0 {
		r := w.pool[last]
		w.pool = w.pool[:last]
		return r
	}
	idleRunners.Lock()
	if last := len(idleRunners.rs) - 1; last >= 0 {
		r := idleRunners.rs[last]
		idleRunners.rs[last] = nil
		idleRunners.rs = idleRunners.rs[:last]
		idleRunners.Unlock()
		return r
	}
	idleRunners.Unlock()
	r := &runner{}
	r.next, r.stop = iter.Pull(r.loop)
	return r
}

// releaseRunner hands r, whose world is closed, on to the next world, or
// ends its coroutine when enough are kept.
func releaseRunner(r *runner) {
	r.w, r.p, r.f = nil, nil, nil
	idleRunners.Lock()
	if len(idleRunners.rs) < maxIdleRunners {
		idleRunners.rs = append(idleRunners.rs, r)
		idleRunners.Unlock()
		return
	}
	idleRunners.Unlock()
	r.stop()
}

// spawn creates a process on n running f, scheduled to start now.
func (w *World) spawn(n *node, name string, f func(p *Proc)) *Proc {
	w.next++
	p := &Proc{w: w, node: n, epoch: n.epoch, name: string(n.id) + "/" + name}
	r := w.takeRunner()
	r.w, r.p, r.f = w, p, f
	p.r = r
	w.procs = append(w.procs, p)
	n.procs = append(n.procs, p)
	w.scheduleAction(w.now, action{p: p})
	return p
}

// start runs a created process for the first time, unless its node is
// paused (then at its Resume) or it was killed before it began.
func (w *World) start(p *Proc) {
	if p.state == created && !p.killed && p.node.paused {
		p.node.hold(action{p: p})
		return
	}
	if p.state == created {
		w.resume(p, wakeMsg{})
	}
}

// loop is the body of a runner's coroutine: it runs each process it is
// handed, in the world it is handed with, and yields when one ends.
func (r *runner) loop(yield func(struct{}) bool) {
	r.yield = yield
	for r.p != nil {
		r.w.runOne(r)
		if !yield(struct{}{}) {
			return
		}
	}
}

// runOne runs the runner's current process to its end, then puts the
// runner in the world's pool. A panic ends the run with a *PanicError; a
// crash (crashSignal) ends only the process; runtime.Goexit ends the
// runner's coroutine too, and the goroutine that drives the world.
func (w *World) runOne(r *runner) {
	p := r.p
	returned := false
	defer func() {
		rec := recover()
		if rec != nil && w.err == nil {
			switch v := rec.(type) {
			case crashSignal:
			case *MisuseError:
				w.err = v
			default:
				w.err = &PanicError{Proc: p.name, At: w.now, Value: rec, Stack: string(debug.Stack())}
			}
		}
		p.state = done
		r.p, r.f = nil, nil
		if rec == nil && !returned {
			return // runtime.Goexit: the coroutine ends with the process (drive)
		}
		w.pool = append(w.pool, r)
	}()
	if !p.killed {
		p.state = running
		r.f(p)
	}
	returned = true
}

// resume hands control to p and waits until it blocks again or ends. It runs
// on the goroutine that drives the world (drive), never on a process's.
func (w *World) resume(p *Proc, msg wakeMsg) {
	prev := w.current
	w.current = p
	if !p.killed {
		p.state = running
	}
	p.msg = msg
	h := w.handoff.Add(1) // odd: a process runs
	p.r.next()
	if !w.handoff.CompareAndSwap(h, h+1) {
		// The watchdog gave up on this handoff and ended the run while p
		// ran outside the world's control: touch nothing of the world again.
		runtime.Goexit()
	}
	w.current = prev
	if p.state == done {
		w.forget(p)
	}
}

// forget drops a finished process from the world's lists.
func (w *World) forget(p *Proc) {
	w.procs = remove(w.procs, p)
	p.node.procs = remove(p.node.procs, p)
}

func remove(ps []*Proc, p *Proc) []*Proc {
	for i, x := range ps {
		if x == p {
			return append(ps[:i], ps[i+1:]...)
		}
	}
	return ps
}

// block parks the process until the world wakes it, and returns what the
// waker handed over. what says what it waits for, for deadlock reports; idle
// marks a wait for work, which is not a deadlock when nothing is pending.
func (p *Proc) block(what string, idle bool) wakeMsg {
	p.mustBeCurrent()
	p.waitSeq++
	p.state, p.waitWhat, p.idle = blocked, what, idle
	if !p.r.yield(struct{}{}) || p.killed {
		p.crashed()
	}
	p.state, p.waitWhat, p.idle = running, "", false
	return p.msg
}

// waiting says what the blocked process waits for, for a deadlock report:
// "Sleep", "Call(server-1, Get)".
func (p *Proc) waiting() string {
	if p.waitWhat == "" && p.waitCall != "" {
		return "Call(" + string(p.waitCall) + ", " + TypeName(p.waitReq) + ")"
	}
	return p.waitWhat
}

// waker is a handle on one particular wait of one process.
type waker struct {
	p   *Proc
	seq uint64
}

// waker returns a handle that wakes the process's next block. Take it just
// before blocking.
func (p *Proc) waker() waker { return waker{p: p, seq: p.waitSeq + 1} }

// wake resumes the wait, at the current virtual time, if it is still the one
// the process is in; a stale or repeated wake is ignored.
func (k waker) wake(msg wakeMsg) {
	w := k.p.w
	w.scheduleAction(w.now, action{p: k.p, wait: k.seq, msg: msg})
}

// wakeAt is wake at a later virtual time.
func (k waker) wakeAt(t time.Duration, msg wakeMsg) {
	k.p.w.scheduleAction(t, action{p: k.p, wait: k.seq, msg: msg})
}

func (k waker) wakeNow(msg wakeMsg) {
	if k.p.state == blocked && k.p.waitSeq == k.seq && !k.p.killed {
		if k.p.node.paused {
			k.p.node.hold(action{p: k.p, wait: k.seq, msg: msg})
			return // the wake comes due at the node's Resume
		}
		k.p.w.resume(k.p, msg)
	}
}

// pending reports whether the wait is still going on.
func (k waker) pending() bool { return k.p.state == blocked && k.p.waitSeq == k.seq }

// mustBeCurrent catches a Proc used from a goroutine the world does not run.
func (p *Proc) mustBeCurrent() {
	if p.w.current != p {
		cur := "no process"
		if p.w.current != nil {
			cur = p.w.current.name
		}
		misuse("process %s was used while %s was running: only the process a *Proc was given to may use it "+
			"(start concurrent work with p.Go, not a go statement)", p.name, cur)
	}
	if p.killed {
		p.crashed()
	}
}

// crashed ends a process whose node crashed. The first time, it unwinds the
// process's stack with crashSignal, so that its deferred calls run. A
// process whose code recovers that and uses the world again is dropped
// where it stands: it hands control back for good, and its coroutine stays
// parked, never resumed.
func (p *Proc) crashed() {
	if !p.unwinding {
		p.unwinding = true
		panic(crashSignal{})
	}
	p.state = done
	p.r.yield(struct{}{})
	panic("sim: a dropped process was resumed")
}

// Name is the process's name: "server-1/main", "server-1/handle#12".
func (p *Proc) Name() string { return p.name }

// Node is the node the process runs on.
func (p *Proc) Node() NodeID { return p.node.id }

// Now is the true virtual time. Use it to record what happened when; use
// Clock for what the node itself believes the time is.
func (p *Proc) Now() time.Duration { return p.w.now }

// Clock is the node's own clock: the virtual time plus the node's skew
// (SetSkew) and what its rate has moved it by (SetClockRate). Two nodes'
// clocks may disagree; timestamps from Clock are not an order.
func (p *Proc) Clock() time.Duration { return p.w.now + p.node.skew + p.node.drift(p.w.now) }

// Rand is the process's share of the world's seeded randomness: draws
// from the world's generator, with no way to reseed it (see Rand).
func (p *Proc) Rand() *Rand {
	p.mustBeCurrent()
	return p.w.draws
}

// Sleep blocks the process for d as its node's clock measures it: d of
// virtual time, unless the clock runs at a rate of its own (SetClockRate).
func (p *Proc) Sleep(d time.Duration) {
	checkDuration("Sleep", d)
	p.sleep(p.node.local(d))
}

// sleep blocks the process for d of virtual time, whatever its clock's rate.
func (p *Proc) sleep(d time.Duration) {
	k := p.waker()
	k.wakeAt(p.w.now+d, wakeMsg{})
	p.block("Sleep", false)
}

// Yield lets every other process that is ready at this instant run first.
func (p *Proc) Yield() { p.Sleep(0) }

// Go starts a concurrent process on the same node, named name. It ends when
// f returns, or when the node crashes.
func (p *Proc) Go(name string, f func(p *Proc)) {
	p.mustBeCurrent()
	p.w.spawn(p.node, name, f)
}

// Logf records a note in the trace, shown in the timeline in the process's
// column: what a client did, what a server decided.
func (p *Proc) Logf(format string, args ...any) {
	p.mustBeCurrent()
	p.w.record(Event{Kind: EvNote, Node: p.node.id, Proc: p.name, Text: fmt.Sprintf(format, args...)})
}
