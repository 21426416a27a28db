package kube_test

import (
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

const ms = time.Millisecond

func deployment(name string, replicas int) kube.Object {
	return kube.Object{Kind: "deployments", Name: name, Replicas: replicas}
}

func pod(name, owner string) kube.Object {
	return kube.Object{Kind: "pods", Name: name, Owner: owner}
}

// serveStore serves one store that survives restarts (as if it were durable).
func serveStore(s kube.Storage) func(p *sim.Proc) {
	return func(p *sim.Proc) { kube.Serve(p, s) }
}

// ownedPods counts the pods in objs owned by owner.
func ownedPods(objs []kube.Object, owner string) int {
	n := 0
	for _, o := range objs {
		if o.Kind == "pods" && o.Owner == owner {
			n++
		}
	}
	return n
}
