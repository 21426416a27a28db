package ex05

import (
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Controller is one ReplicaSet-style controller: it keeps the number of pods
// a deployment owns equal to the deployment's desired replica count.
//
// Keep whatever a controller remembers in this struct, not in package
// variables: the two controllers run on different machines and share
// nothing but the API. A controller that crashes loses its Controller; the
// suite makes a new one with New when it restarts.
type Controller struct {
	// TODO(ex05): nothing is needed here for the fix the book describes;
	// add fields if your design remembers something between reconciles.
}

// New returns a controller that remembers nothing yet.
func New() *Controller { return &Controller{} }

// Reconcile compares the pods owned by the deployment at key (for example
// "deployments/web") with its desired replica count once, and creates or
// deletes pods to close the gap. Pods are objects of kind "pods" whose Owner
// is key.
//
// c is the controller's API client, bound to the process p and to the
// controller's one API server. Reconcile returns the first error it could
// not deal with; the suite notes it in the timeline and calls Reconcile
// again a little later.
//
// This is the naive design of the story. It reads from the server's cache
// (kube.Any), counts the pods it sees, and creates the difference under
// fresh random names. Each step is reasonable alone; a count from a cache
// that has not heard of writes the history already acknowledged makes it
// create pods that are already there.
func (ctl *Controller) Reconcile(p *sim.Proc, c *kube.Client, key string) error {
	// TODO(ex05): a read from the cache may be hundreds of milliseconds
	// behind the history: it can say a pod is missing after the history
	// acknowledged its create. A count you act on must show every write
	// acknowledged before you asked. Where is such a read answered?
	cached := kube.ReadOptions{ResourceVersion: kube.Any}

	d, err := c.Get(key, cached)
	if err != nil {
		return err
	}
	pods, err := c.List("pods", cached)
	if err != nil {
		return err
	}
	var owned []kube.Object
	for _, pod := range pods.Items {
		if pod.Owner == key {
			owned = append(owned, pod)
		}
	}

	// TODO(ex05): even a count that is current when read stops being true
	// when the other controller's creates land: two loops acting on one
	// history at once, a question the book leaves open. A create under a
	// random name can never fail because of that: it always succeeds, and
	// the pod it makes is one too many. Choose names that make the race
	// harmless.
	//
	// The creates go out side by side, each on a process of its own, as
	// Kubernetes' ReplicaSet controller sends a batch of creates at once;
	// Reconcile waits for all of them.
	var sent sim.Group
	var failed error
	for i := len(owned); i < d.Replicas; i++ {
		pod := kube.Object{Kind: "pods", Name: d.Name + "-" + randomSuffix(p), Owner: key}
		sent.Add(1)
		p.Go("create "+pod.Name, func(p *sim.Proc) {
			defer sent.Done()
			if _, err := c.For(p).Create(pod); err != nil && failed == nil {
				failed = err
			}
		})
	}
	sent.Wait(p)
	if failed != nil {
		return failed
	}

	// TODO(ex05): delete only what you saw, as you saw it: a resourceVersion
	// precondition makes a delete fail (Conflict) if the pod changed since.
	for i := d.Replicas; i < len(owned); i++ {
		if _, err := c.Delete(owned[i].Key(), 0); err != nil {
			return err
		}
	}
	return nil
}

// randomSuffix is five random letters and digits, as Kubernetes appends to
// the name of a ReplicaSet's pods: "x7k2q". The randomness is the world's.
func randomSuffix(p *sim.Proc) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[p.Rand().Intn(len(alphabet))]
	}
	return string(b)
}
