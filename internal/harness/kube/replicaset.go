package kube

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/sim"
)

// ReplicaSetController keeps, for every deployment, as many pods as it
// desires: it counts the pods the deployment owns and creates the missing
// ones or deletes the extra ones.
//
// It is the naive controller of the story. It counts in its informers'
// caches, which lag behind the store, and it writes without any condition on
// what it saw; so two such controllers reading from servers that disagree,
// or one whose cache has not yet seen its own creations, make more pods
// than desired (ex05: 8 pods where 5 were desired). Kubernetes' real
// ReplicaSet controller remembers what it is still expecting to see
// ("expectations") for this reason.
//
// Deployment events queue the deployment's key; pod events queue the key of
// the pod's owner. Workers take keys from the queue and Reconcile them.
type ReplicaSetController struct {
	client      *Client
	Deployments *Informer  // the deployments, as the controller sees them
	Pods        *Informer  // the pods, as the controller sees them
	Queue       *WorkQueue // the deployment keys waiting to be reconciled
}

// NewReplicaSetController starts a controller on p's node: an informer for
// deployments and one for pods through c, and workers processes that
// reconcile the queued deployments once both caches have synced.
func NewReplicaSetController(p *sim.Proc, c *Client, workers int, opts ...InformerOption) *ReplicaSetController {
	rc := &ReplicaSetController{
		client:      c,
		Deployments: NewInformer(p, c, "deployments", opts...),
		Pods:        NewInformer(p, c, "pods", opts...),
		Queue:       NewWorkQueue(string(p.Node()) + " replicaset"),
	}
	rc.Deployments.OnChange(func(ev Event) { rc.Queue.Add(ev.Object.Key()) })
	rc.Pods.OnChange(func(ev Event) {
		if ev.Object.Owner != "" {
			rc.Queue.Add(ev.Object.Owner)
		}
	})
	for i := 1; i <= workers; i++ {
		p.Go(fmt.Sprintf("replicaset worker %d", i), rc.work)
	}
	return rc
}

// work is one worker's loop.
func (rc *ReplicaSetController) work(p *sim.Proc) {
	if !rc.Deployments.WaitForSync(p) || !rc.Pods.WaitForSync(p) {
		return
	}
	for {
		key, shutdown := rc.Queue.Get(p)
		if shutdown {
			return
		}
		if err := rc.Reconcile(p, key); err != nil {
			rc.Queue.AddRateLimited(p, key)
		} else {
			rc.Queue.Forget(key)
		}
		rc.Queue.Done(key)
	}
}

// Reconcile makes the number of pods deployment key owns what it desires,
// as far as the caches tell: it creates the missing pods (named after the
// deployment with a random suffix, "web-x7k2") and deletes the extra ones
// (the last by name). A deployment that is gone desires no pods. It returns
// the first error, after trying every write.
func (rc *ReplicaSetController) Reconcile(p *sim.Proc, key string) error {
	c := rc.client.For(p)
	desired := 0
	if d, ok := rc.Deployments.Get(key); ok {
		desired = d.Replicas
	}
	owned := rc.OwnedPods(key)
	var errs []error
	for i := len(owned); i < desired; i++ {
		_, err := c.Create(Object{Kind: "pods", Name: podName(p, key), Owner: key})
		errs = append(errs, err)
	}
	for i := len(owned) - 1; i >= desired; i-- {
		_, err := c.Delete(owned[i].Key(), 0)
		if !errors.Is(err, ErrNotFound) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// OwnedPods lists the cached pods that deployment key owns, sorted by name.
func (rc *ReplicaSetController) OwnedPods(key string) []Object {
	var out []Object
	for _, o := range rc.Pods.List() {
		if o.Owner == key {
			out = append(out, o)
		}
	}
	return out
}

// ResyncEvery queues every cached deployment again every period, whether or
// not an event came, as client-go's resync period does. It lets the
// controller recover from a change it made itself but never saw (its own
// create, answered just as it was cut off). It cannot help a cache that is
// wrong: a resync re-reads the cache, not the store. It runs in a process of
// p's node until the queue shuts down.
func (rc *ReplicaSetController) ResyncEvery(p *sim.Proc, period time.Duration) {
	p.Go("replicaset resync", func(p *sim.Proc) {
		for !rc.Queue.ShuttingDown() {
			p.Sleep(period)
			for _, d := range rc.Deployments.List() {
				rc.Queue.Add(d.Key())
			}
		}
	})
}

// Stop stops the informers and the workers.
func (rc *ReplicaSetController) Stop() {
	rc.Deployments.Stop()
	rc.Pods.Stop()
	rc.Queue.ShutDown()
}

// podName is a new pod's name: the owner's name and five characters drawn
// from the world's seed, from the alphabet Kubernetes uses ("web-x7k2b").
func podName(p *sim.Proc, owner string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	_, name := SplitKey(owner)
	b := []byte(name + "-")
	for i := 0; i < 5; i++ {
		b = append(b, alphabet[p.Rand().Intn(len(alphabet))])
	}
	return string(b)
}
