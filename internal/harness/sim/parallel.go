package sim

import (
	"fmt"
	"iter"
	"runtime/debug"
	"sync"
)

// Parallel calls f(0), f(1), ..., f(n-1), up to workers of them at once, and
// yields each result in the order of i, as a loop over the calls one after
// another would: the caller sees the same results in the same order whatever
// the number of workers and however the calls were scheduled. It is the one
// place where the harness runs worlds side by side, so that a chapter's long
// run (RUNS=1000) uses every CPU it is given.
//
// It is safe because every world is sealed: a world holds all its state
// (its nodes, network, disks, clock, seeded generator and trace), its
// processes run one at a time inside it, and nothing a world runs leads to
// another world's memory; what sim keeps between worlds (the goroutines a
// closed world hands on, the caches of message types) is guarded and never
// changes what a world does. A call f(i) must keep to that: build and judge
// its own world, and share nothing it writes with another call. The grader's
// rules keep the learner's code to it (no package-level state, no go
// statements).
//
// The calls start in the order of i, and at most a few times workers
// beyond the result the loop last took: when the loop stops early (a check
// that fails at its first failing world), the calls after it not yet
// started never start, and those running are waited for and their results
// dropped; every call before it has run and been yielded. A call that
// panics panics again in the loop, in turn, when its result is due, with
// its value and its stack. With workers at most 1, or n at most 1, the
// calls run one by one on the caller's goroutine, each only when the loop
// asks for it: no goroutine is started and nothing runs ahead.
func Parallel[T any](n, workers int, f func(i int) T) iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		if workers <= 1 || n <= 1 {
			for i := range n {
				if !yield(i, f(i)) {
					return
				}
			}
			return
		}
		workers = min(workers, n)
		type result struct {
			v     T
			panic *ParallelPanic
			ready chan struct{}
		}
		results := make([]result, n)
		for i := range results {
			results[i].ready = make(chan struct{})
		}
		// slots bounds the calls started and not yet yielded; quit ends
		// the workers when the loop stops.
		slots := make(chan struct{}, 4*workers)
		quit := make(chan struct{})
		var mu sync.Mutex
		next := 0
		var wg sync.WaitGroup
		work := func() {
			defer wg.Done()
			for {
				select {
				case slots <- struct{}{}:
				case <-quit:
					return
				}
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				select {
				case <-quit:
					return
				default:
				}
				r := &results[i]
				func() {
					defer func() {
						if p := recover(); p != nil {
							r.panic = &ParallelPanic{Value: p, Stack: string(debug.Stack())}
						}
						close(r.ready)
					}()
					r.v = f(i)
				}()
			}
		}
		wg.Add(workers)
		for range workers {
			go work()
		}
		defer wg.Wait()
		defer close(quit)
		for i := range results {
			r := &results[i]
			<-r.ready
			if r.panic != nil {
				panic(r.panic)
			}
			v := r.v
			var zero T
			r.v = zero // what the loop has taken is the loop's to keep or let go
			if !yield(i, v) {
				return
			}
			<-slots
		}
	}
}

// ParallelPanic is a panic of one of Parallel's calls, raised again in the
// loop that takes its results: the value the call panicked with, and the
// stack of the goroutine it panicked on.
type ParallelPanic struct {
	Value any
	Stack string
}

// Error is the value, then the stack it was raised on.
func (p *ParallelPanic) Error() string {
	return fmt.Sprintf("%v\n\nraised in a world played in parallel (sim.Parallel), on:\n%s", p.Value, p.Stack)
}

// Unwrap is the value, when it is an error.
func (p *ParallelPanic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}
