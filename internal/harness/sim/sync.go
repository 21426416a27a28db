package sim

import "time"

// Queue is an unbounded FIFO that processes of one world share: Put never
// blocks, Get waits for an item. Waiting in Get is waiting for work: a world
// whose only blocked processes wait in Get has finished, not deadlocked.
// The zero value is ready to use.
type Queue[T any] struct {
	Name    string // shown in deadlock reports
	items   []T
	waiters []waker
}

// Put adds v and wakes one waiting Get.
func (q *Queue[T]) Put(v T) {
	q.items = append(q.items, v)
	wakeOne(&q.waiters)
}

// Len is the number of items waiting.
func (q *Queue[T]) Len() int { return len(q.items) }

// TryGet takes the first item if there is one.
func (q *Queue[T]) TryGet() (T, bool) {
	var zero T
	if len(q.items) == 0 {
		return zero, false
	}
	v := q.items[0]
	q.items[0] = zero
	q.items = q.items[1:]
	return v, true
}

// Get waits until an item is there and takes it.
func (q *Queue[T]) Get(p *Proc) T {
	for {
		if v, ok := q.TryGet(); ok {
			return v
		}
		q.waiters = append(q.waiters, p.waker())
		p.block("Queue.Get("+q.Name+")", true)
	}
}

// GetTimeout is Get that gives up after d; ok is false if it gave up.
func (q *Queue[T]) GetTimeout(p *Proc, d time.Duration) (v T, ok bool) {
	checkDuration("GetTimeout", d)
	deadline := p.w.now + p.node.local(d)
	for {
		if v, ok := q.TryGet(); ok {
			return v, true
		}
		if p.w.now >= deadline {
			return v, false
		}
		k := p.waker()
		q.waiters = append(q.waiters, k)
		k.wakeAt(deadline, wakeMsg{})
		p.block("Queue.GetTimeout("+q.Name+")", true)
	}
}

// Cond lets processes wait until something changes: Wait blocks until the
// next Broadcast (or Signal). Always re-check the condition after waking.
// The zero value is ready to use.
type Cond struct {
	Name    string // shown in deadlock reports
	waiters []waker
}

// Wait blocks until a Broadcast or Signal.
func (c *Cond) Wait(p *Proc) {
	c.waiters = append(c.waiters, p.waker())
	p.block("Cond.Wait("+c.Name+")", false)
}

// WaitTimeout is Wait that gives up after d; it reports whether it was woken
// before then.
func (c *Cond) WaitTimeout(p *Proc, d time.Duration) bool {
	checkDuration("WaitTimeout", d)
	k := p.waker()
	c.waiters = append(c.waiters, k)
	k.wakeAt(p.w.now+p.node.local(d), wakeMsg{err: ErrTimeout})
	return p.block("Cond.WaitTimeout("+c.Name+")", false).err == nil
}

// Signal wakes one waiting process.
func (c *Cond) Signal() { wakeOne(&c.waiters) }

// Broadcast wakes every waiting process.
func (c *Cond) Broadcast() {
	for len(c.waiters) > 0 {
		wakeOne(&c.waiters)
	}
}

// wakeOne wakes the first waiter that is still waiting.
func wakeOne(ws *[]waker) {
	for len(*ws) > 0 {
		k := (*ws)[0]
		*ws = (*ws)[1:]
		if k.pending() {
			k.wake(wakeMsg{})
			return
		}
	}
}

// Mutex keeps other processes out of a critical section that blocks (one that
// calls another node, sleeps or syncs the disk). Code that does not block
// needs no lock at all: only one process runs at a time. The zero value is
// an unlocked mutex.
type Mutex struct {
	Name   string // shown in deadlock reports
	holder *Proc
	cond   Cond
}

// Lock waits until the mutex is free and takes it.
func (m *Mutex) Lock(p *Proc) {
	for m.holder != nil && m.holder.state != done && !m.holder.killed {
		m.cond.waiters = append(m.cond.waiters, p.waker())
		p.block("Mutex.Lock("+m.Name+") held by "+m.holder.name, false)
	}
	m.holder = p
}

// Unlock frees the mutex and wakes one waiter.
func (m *Mutex) Unlock() {
	m.holder = nil
	m.cond.Signal()
}

// Group waits for a set of processes to finish, like sync.WaitGroup.
type Group struct {
	n    int
	cond Cond
}

// Add adds n to the number of processes to wait for.
func (g *Group) Add(n int) { g.n += n }

// Done marks one process finished.
func (g *Group) Done() {
	g.n--
	if g.n <= 0 {
		g.cond.Broadcast()
	}
}

// Wait blocks until every process added has called Done.
func (g *Group) Wait(p *Proc) {
	for g.n > 0 {
		g.cond.Name = "Group.Wait"
		g.cond.Wait(p)
	}
}
