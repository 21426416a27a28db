package ex05

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Controller is one ReplicaSet-style controller: it keeps the number of pods
// a deployment owns equal to the deployment's desired replica count. It
// remembers nothing between reconciles: the one history remembers for it.
type Controller struct{}

// New returns a controller.
func New() *Controller { return &Controller{} }

// Reconcile compares the pods owned by the deployment at key with its
// desired replica count once, and creates or deletes pods to close the gap.
//
// Pod i of deployment web is named web-i, for i from 0 to replicas-1. A
// create of web-i succeeds only if no web-i exists: if another controller,
// or an earlier reconcile of this one, made it first, the answer is
// AlreadyExists, which means the pod is there, and that is all we wanted.
// So two controllers that act on the same shortfall at once, each on a
// current count, never add a pod beyond replicas.
func (ctl *Controller) Reconcile(p *sim.Proc, c *kube.Client, key string) error {
	// Both counts must show every write the history acknowledged before we
	// asked: a count from a lagging cache can miss pods another controller's
	// creates already made, or a scale-down kubectl was already told of.
	latest := kube.ReadOptions{ResourceVersion: kube.Latest}
	d, err := c.Get(key, latest)
	if err != nil {
		return err
	}
	pods, err := c.List("pods", latest)
	if err != nil {
		return err
	}

	have := map[int]bool{}
	var extra []kube.Object // owned pods outside web-0 … web-(replicas-1)
	for _, pod := range pods.Items {
		if pod.Owner != key {
			continue
		}
		if i, ok := index(d.Name, pod.Name); ok && i < d.Replicas {
			have[i] = true
		} else {
			extra = append(extra, pod)
		}
	}

	// Extra pods go first, as Kubernetes' controller never creates and
	// deletes in one pass: a create that fills a gap while extras still
	// stand would leave more pods than desired, if only for a moment.
	for _, pod := range extra {
		// Conditional on the version we saw: if the pod changed or went away
		// since, leave it to the next reconcile, which will read again.
		_, err := c.Delete(pod.Key(), pod.ResourceVersion)
		if err != nil && !errors.Is(err, kube.ErrNotFound) && !errors.Is(err, kube.ErrConflict) {
			return err
		}
	}
	for i := 0; i < d.Replicas; i++ {
		if have[i] {
			continue
		}
		pod := kube.Object{Kind: "pods", Name: fmt.Sprintf("%s-%d", d.Name, i), Owner: key}
		_, err := c.Create(pod)
		if err != nil && !errors.Is(err, kube.ErrAlreadyExists) {
			return err
		}
	}
	return nil
}

// index reads i from a pod named "<deployment>-<i>".
func index(deployment, pod string) (int, bool) {
	s, ok := strings.CutPrefix(pod, deployment+"-")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(s)
	if err != nil || i < 0 || strconv.Itoa(i) != s {
		return 0, false
	}
	return i, true
}
