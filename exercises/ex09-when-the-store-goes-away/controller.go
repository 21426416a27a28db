package ex09

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Reconcile makes the pods the deployment at key owns what it desires, once.
// It reads the desired count with a consistent read (a count from a cache
// may be behind: ex05), takes the pods from the controller's informer, and
// creates the missing pods web-0 … web-(n-1) and deletes the ones past n,
// each delete conditional on the version the informer saw.
//
// c is the controller's client, through server-1; pods is the controller's
// informer of pods, which the suite keeps running. The suite calls
// Reconcile every 100 to 250ms; an error it returns is noted in the timeline.
//
// This is the naive design of the story: a deployment it cannot read is a
// deployment that is gone, and a deployment that is gone wants no pods.
func Reconcile(p *sim.Proc, c *kube.Client, pods *kube.Informer, key string) error {
	desired := 0
	d, err := c.Get(key, kube.ReadOptions{})
	// TODO(ex09): which errors say that the deployment is gone, and which
	// only say that nobody could find out? What does a controller know
	// after a read that failed?
	if err == nil {
		desired = d.Replicas
	}
	_, name := kube.SplitKey(key)
	have := map[string]bool{}
	var extra []kube.Object
	for _, pod := range pods.List() {
		if pod.Owner != key {
			continue
		}
		have[pod.Name] = true
		if i, ok := index(name, pod.Name); !ok || i >= desired {
			extra = append(extra, pod)
		}
	}
	var errs []error
	for i := range desired {
		pod := fmt.Sprintf("%s-%d", name, i)
		if have[pod] {
			continue
		}
		_, err := c.Create(kube.Object{Kind: "pods", Name: pod, Owner: key})
		if err != nil && !errors.Is(err, kube.ErrAlreadyExists) {
			errs = append(errs, err)
		}
	}
	for _, pod := range extra {
		_, err := c.Delete(pod.Key(), pod.ResourceVersion)
		if err != nil && !errors.Is(err, kube.ErrNotFound) && !errors.Is(err, kube.ErrConflict) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// index reads i from a pod named "<name>-<i>".
func index(name, pod string) (int, bool) {
	rest, ok := strings.CutPrefix(pod, name+"-")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	return i, err == nil && i >= 0
}
