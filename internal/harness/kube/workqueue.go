package kube

import (
	"time"

	"onehistory/internal/harness/sim"
)

// The backoff of WorkQueue.AddRateLimited: the first retry of a key waits
// DefaultBaseDelay, each further one twice as long, up to DefaultMaxDelay.
const (
	DefaultBaseDelay = 5 * time.Millisecond
	DefaultMaxDelay  = time.Second
)

// WorkQueue is the work queue of client-go's controllers: a queue of keys
// ("deployments/web") for workers to reconcile.
//
//   - It deduplicates: a key added many times before a worker takes it is
//     handed out once.
//   - It never hands one key to two workers at once: a key added while a
//     worker holds it waits until that worker calls Done, and is handed out
//     again then.
//   - It retries with backoff: AddRateLimited adds a key again after a delay
//     that doubles with each failure of that key, until Forget.
//
// A worker's loop:
//
//	for {
//		key, shutdown := q.Get(p)
//		if shutdown {
//			return
//		}
//		if err := reconcile(p, key); err != nil {
//			q.AddRateLimited(p, key)
//		} else {
//			q.Forget(key)
//		}
//		q.Done(key)
//	}
//
// Workers waiting in Get wait for work: a world whose only blocked processes
// wait there has finished, not deadlocked. The zero value is not ready: use
// NewWorkQueue. Keys live in memory: a crash of the node empties the queue.
type WorkQueue struct {
	name       string
	queue      sim.Queue[queued] // keys ready for a worker, each at most once
	dirty      map[string]bool   // keys that need processing (queued, or added while processing)
	processing map[string]bool   // keys a worker holds
	failures   map[string]int    // consecutive failures per key, for the backoff
	shutdown   bool
	// BaseDelay and MaxDelay shape the backoff of AddRateLimited; set them
	// before use.
	BaseDelay, MaxDelay time.Duration
}

// queued is an item of the underlying queue: a key, or the shutdown marker.
type queued struct {
	key  string
	stop bool
}

// NewWorkQueue returns an empty queue; name appears in deadlock reports.
func NewWorkQueue(name string) *WorkQueue {
	return &WorkQueue{
		name:       name,
		queue:      sim.Queue[queued]{Name: name},
		dirty:      map[string]bool{},
		processing: map[string]bool{},
		failures:   map[string]int{},
		BaseDelay:  DefaultBaseDelay,
		MaxDelay:   DefaultMaxDelay,
	}
}

// Add marks key as needing work. It does nothing if key is already waiting,
// and defers to Done if a worker holds key now. After ShutDown it does
// nothing.
func (q *WorkQueue) Add(key string) {
	if q.shutdown || q.dirty[key] {
		return
	}
	q.dirty[key] = true
	if q.processing[key] {
		return // Done puts it back
	}
	q.queue.Put(queued{key: key})
}

// AddAfter adds key once d of virtual time has passed, from a process that p
// starts on its node (so a crash of the node cancels it).
func (q *WorkQueue) AddAfter(p *sim.Proc, key string, d time.Duration) {
	if d <= 0 {
		q.Add(key)
		return
	}
	p.Go("requeue "+key, func(p *sim.Proc) {
		p.Sleep(d)
		q.Add(key)
	})
}

// AddRateLimited adds key after its backoff: BaseDelay after its first
// failure, doubling with each further one, at most MaxDelay. Forget resets
// it.
func (q *WorkQueue) AddRateLimited(p *sim.Proc, key string) {
	d := q.BaseDelay
	for i := 0; i < q.failures[key] && d < q.MaxDelay; i++ {
		d *= 2
	}
	q.failures[key]++
	q.AddAfter(p, key, min(d, q.MaxDelay))
}

// Forget resets key's backoff: call it when key was processed successfully.
func (q *WorkQueue) Forget(key string) { delete(q.failures, key) }

// NumRequeues is how many times key was added with AddRateLimited since it
// was last forgotten.
func (q *WorkQueue) NumRequeues(key string) int { return q.failures[key] }

// Get waits for a key to work on and hands it to the caller, who must call
// Done(key) when finished. shutdown is true once the queue is shut down and
// drained: the worker should return.
func (q *WorkQueue) Get(p *sim.Proc) (key string, shutdown bool) {
	it := q.queue.Get(p)
	if it.stop {
		q.queue.Put(it) // for the next worker
		return "", true
	}
	delete(q.dirty, it.key)
	q.processing[it.key] = true
	return it.key, false
}

// Done tells the queue a worker has finished with key. If key was added
// meanwhile, it is queued again now.
func (q *WorkQueue) Done(key string) {
	delete(q.processing, key)
	if q.dirty[key] && !q.shutdown {
		q.queue.Put(queued{key: key})
	}
}

// Len is the number of keys waiting for a worker.
func (q *WorkQueue) Len() int {
	n := q.queue.Len()
	if q.shutdown {
		n-- // the marker
	}
	return n
}

// ShutDown stops the queue: Add does nothing from now on, and workers get
// shutdown once the keys already waiting are handed out.
func (q *WorkQueue) ShutDown() {
	if q.shutdown {
		return
	}
	q.shutdown = true
	q.queue.Put(queued{stop: true})
}

// ShuttingDown reports whether ShutDown was called.
func (q *WorkQueue) ShuttingDown() bool { return q.shutdown }
