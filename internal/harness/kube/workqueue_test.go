package kube_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

func TestWorkQueueAKeyAddedManyTimesIsHandedOutOnce(t *testing.T) {
	inWorld(t, func(p *sim.Proc) {
		q := kube.NewWorkQueue("replicaset")
		q.Add("deployments/web")
		q.Add("deployments/web")
		q.Add("deployments/api")
		q.Add("deployments/web")
		assert.Equal(t, 2, q.Len(), "three adds of web wait as one")

		key, _ := q.Get(p)
		assert.Equal(t, "deployments/web", key, "first come, first served")
		q.Add("deployments/web")
		assert.Equal(t, 1, q.Len(), "web is being processed: a new add waits for Done")
		q.Done("deployments/web")
		assert.Equal(t, 2, q.Len(), "Done puts it back, once")

		q.ShutDown()
		q.Add("deployments/db")
		assert.Equal(t, 2, q.Len(), "after ShutDown, adds do nothing")
		k1, _ := q.Get(p)
		k2, _ := q.Get(p)
		_, shutdown := q.Get(p)
		assert.Equal(t, []string{"deployments/api", "deployments/web"}, []string{k1, k2}, "what was queued is drained first")
		assert.True(t, shutdown)
	})
}

func TestWorkQueueNeverHandsOneKeyToTwoWorkers(t *testing.T) {
	w := sim.New(3)
	defer w.Close()
	q := kube.NewWorkQueue("replicaset")
	holding := map[string]int{} // workers holding each key now
	most, processed := 0, 0
	w.AddNode("controller", func(p *sim.Proc) {
		for i := 1; i <= 3; i++ {
			p.Go("worker", func(p *sim.Proc) {
				for {
					key, shutdown := q.Get(p)
					if shutdown {
						return
					}
					holding[key]++
					most = max(most, holding[key])
					p.Sleep(time.Duration(1+p.Rand().Intn(20)) * ms)
					holding[key]--
					processed++
					q.Done(key)
				}
			})
		}
		// Events for two deployments arrive in bursts, faster than the
		// workers reconcile them.
		for i := 0; i < 200; i++ {
			q.Add([]string{"deployments/web", "deployments/api"}[p.Rand().Intn(2)])
			p.Sleep(time.Duration(p.Rand().Intn(3)) * ms)
		}
	})
	// The workers end up waiting in Get for work: a finished world, not a
	// deadlock.
	require.NoError(t, w.Run(time.Minute))
	assert.Equal(t, 1, most, "no key was ever held by two workers at once")
	assert.Less(t, processed, 200, "bursts of adds were merged")
	assert.Positive(t, processed)
	assert.Equal(t, 0, q.Len(), "every add was eventually handled")
}

func TestWorkQueueRetriesWithExponentialBackoffUntilForgotten(t *testing.T) {
	var got []time.Duration
	inWorld(t, func(p *sim.Proc) {
		q := kube.NewWorkQueue("replicaset")
		q.MaxDelay = 30 * ms
		start := p.Now()
		q.Add("deployments/web")
		for i := 0; i < 5; i++ {
			key, _ := q.Get(p)
			got = append(got, p.Now()-start)
			start = p.Now()
			q.AddRateLimited(p, key) // the reconcile failed
			q.Done(key)
		}
		assert.Equal(t, 5, q.NumRequeues("deployments/web"))
		q.Forget("deployments/web")
		key, _ := q.Get(p) // the fifth retry, already scheduled
		q.Done(key)
		start = p.Now()
		q.AddRateLimited(p, key)
		_, _ = q.Get(p)
		assert.Equal(t, 5*ms, p.Now()-start, "after Forget the backoff starts again at 5ms")
	})
	// 5ms, doubling, capped at 30ms.
	assert.Equal(t, []time.Duration{0, 5 * ms, 10 * ms, 20 * ms, 30 * ms}, got)
}
