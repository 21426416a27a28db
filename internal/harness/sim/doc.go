// Package sim is the deterministic world every chapter runs in: nodes that
// talk over a simulated network, keep files on simulated disks, crash and
// restart, all on a virtual clock, with one seed deciding everything.
//
// # A first world
//
//	w := sim.New(42, sim.Latency(5*time.Millisecond, 400*time.Millisecond))
//	defer w.Close()
//	w.AddNode("server-1", func(p *sim.Proc) {
//		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
//			return "pong", nil
//		})
//	})
//	w.AddNode("client", func(p *sim.Proc) {
//		reply, err := p.Call("server-1", "ping", time.Second)
//		p.Logf("got %v, %v", reply, err)
//	})
//	w.At(2*time.Second, func() { w.Crash("server-1") })
//	err := w.Run(30 * time.Second) // virtual seconds: this takes microseconds
//
// # What a node has, and what only the harness has
//
// Code that runs on a node (a chapter's servers, controllers and drill
// clients) receives a *Proc and gets from it what a machine has: time (Now,
// Clock, Sleep), its share of the world's randomness (Rand, a *Rand that
// draws and cannot be reseeded), concurrency (Go, and the world's Queue,
// Cond, Mutex and Group), the network (Call, Send, Serve), its own disk
// (Disk) and notes in the trace (Logf). Nothing a Proc hands out leads to
// the World: not to another node's memory or disk, not to the faults, the
// trace, the seed or the world's own generator. The errors a Call returns
// are constants (ErrTimeout, ErrNodeDown, ErrUnreachable), which no code can
// change.
//
// The World is the harness's: it builds the nodes, injects the faults,
// schedules events, stops the run, reads any node's disk from outside
// (World.Disk), says what each crash tore of a disk's unsynced tail
// (World.DiskLosses, which a node's own disk does not tell: a recovery must
// find its torn record itself) and keeps the trace and the timelines. The
// harness's code reaches it by holding the *World it built, never through a
// process.
//
// # Time
//
// Time is virtual. It stands still while processes compute and jumps to the
// next pending event when they all wait. p.Now is the true virtual time (use
// it to record histories); p.Clock is what the node believes, which differs
// by the node's skew (SetSkew, a constant) and drifts when its clock runs at
// a rate of its own (SetClockRate). A node's own waits (Sleep, a Call's
// timeout, GetTimeout, WaitTimeout) are measured on its own clock. A run of
// thirty virtual seconds over 400ms links costs well under a millisecond of
// wall time.
//
// # Processes and blocking
//
// A process is ordinary sequential Go that receives a *Proc. Only one
// process runs at a time; it runs until it blocks in the world (Call, Sleep,
// Sync, Queue.Get, Cond.Wait, Mutex.Lock) or returns, and then the scheduler
// picks the next event. Events due at the same instant run in an order drawn
// from the seed, so different seeds explore different interleavings and the
// same seed replays one exactly.
//
// Because only one process runs at a time, state shared by the processes of
// one node needs no lock. It can still change under a process while that
// process is blocked: re-check what you read before a Call after it returns,
// or hold a sim.Mutex across the blocking section.
//
// Start concurrent work with p.Go, never with a go statement, and wait with
// the world's Queue, Cond, Mutex and Group, never with channels, sync.Mutex
// or time.Sleep. The world catches a *Proc used from a goroutine it does not
// run (a MisuseError), and a process that blocks outside the world or spins
// without yielding (a StuckError, from a wall-clock watchdog that only ends
// stuck runs and never changes what happens in one).
//
// # The network
//
// p.Call(to, req, timeout) sends req to node to, where it runs as a new
// process of that node's Handler (registered with p.Serve); the handler's
// return value travels back. Each direction of each link has a delay range,
// a loss and a duplication probability (SetLink); Partition cuts the network
// into groups and Heal joins it. A Call returns ErrTimeout when no reply came
// in time: the request may or may not have been handled, and the caller
// cannot know which. ErrNodeDown (the node is crashed) and ErrUnreachable
// (the node serves nothing) are definite: the request was not handled.
// The network carries data, not memory: the world copies every message and
// reply, deeply, when it is sent and again at each delivery, so the
// receiver never shares the sender's memory (every node runs in one Go
// process; without the copy, one message holding a pointer would join two
// servers' memories for good). A function or a channel cannot travel.
// Messages are printed in the trace: give them a String method.
//
// # Crashes and disks
//
// Crash stops a node at once: its processes end (their deferred calls run;
// one that recovers and calls the world again is dropped there), everything they held in memory is gone, and requests to it are refused
// until Restart runs its boot function again. Its Disk survives: files keep
// what was synced (File.Sync, which takes virtual time), and of what was
// appended after the last sync a random prefix survives, possibly ending
// mid-record — a torn write a recovery must detect and Truncate.
//
// Pause is not a crash: a paused node's processes stop where they are with
// their memory kept, messages to it queue, and what comes due meanwhile (a
// sleep's end, a timeout, an arrived reply) runs at Resume: a long garbage
// collection or a stopped virtual machine. The node wakes believing what it
// believed; only its clock tells it time has passed.
//
// # When a run ends
//
// Run returns nil when the time limit is reached, when Stop is called or
// when nothing is left to do. It returns a *DeadlockError naming each blocked
// process and what it waits for when every process is blocked and nothing is
// pending (waiting in Queue.Get for work does not count: that is a finished
// world), a *PanicError for a process that panicked, a *StuckError, or a
// *MisuseError for a world used the wrong way (an unknown node, a negative
// duration, restarting a running node).
//
// # Traces and timelines
//
// Every send, receipt, reply, loss, timeout, crash, restart, fault, disk
// write and note (p.Logf) is recorded in the Trace; the same seed gives the
// same trace byte for byte. Timeline renders it as swimlanes, one lane per
// node, virtual milliseconds down the side, elided around a focus time.
// Faults lists the crashes and partitions with their start and end, for
// checkers that must know whether a fault overlapped any client operation.
package sim
