// Package ex03 is the chaos drill of chapter ex03, "Silence is not
// agreement" (book/ex03-silence-is-not-agreement.md).
//
// The team killed server-1 on purpose, watched every read still answer, and
// declared the API server highly available. Nobody was writing at the time.
// Drill below is that drill, and it is your job to make it one that would
// have caught the problem: clients that write while a server is down, reads
// from every server, and a comparison of what each server says.
//
// The hidden suite runs Drill against clusters you cannot see (go doc
// onehistory/internal/harness/suites/ex03suite/drill for what a drill can
// do with one). Some break the contract, some keep it. Drill must return an
// error (a finding) for every broken one and nil for every correct one: a
// drill that always fails scores as little as one that always passes.
package ex03

import (
	"errors"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suites/ex03suite/drill"
)

// Drill runs a chaos drill on c and returns a finding, an error that tells
// what contradicted what, when the cluster broke the contract, and nil when
// it held. Refusals and timeouts during a fault are honest, not findings.
func Drill(c *drill.Cluster) error {
	answered := 0
	c.Client("ops", func(p *sim.Proc) {
		api := kube.NewClient(p, c.Servers()...) // through the load balancer

		// Before the drill: the cluster runs one deployment.
		api.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3}) //nolint:errcheck

		// TODO(ex03): traffic was drained before the drill, so nobody writes
		// while server-1 is down. Who would notice a lost or late write?
		p.Sleep(1500 * time.Millisecond)

		// TODO(ex03): kubectl get, through the balancer, while server-1 is
		// down and after it is back. Which server answered? Would the other
		// have said the same?
		for range 10 {
			_, err := api.Get("deployments/web", kube.ReadOptions{})
			if err == nil || errors.Is(err, kube.ErrNotFound) {
				answered++ // it answered: the cluster is up
			}
			p.Sleep(250 * time.Millisecond)
		}
	})

	// The fault: kill server-1 mid-afternoon, on purpose; bring it back.
	c.At(1*time.Second, func() { c.Crash("server-1") })
	c.At(3*time.Second, func() { c.Restart("server-1") })

	if err := c.Run(10 * time.Second); err != nil {
		return err
	}

	// TODO(ex03): "everything answered" is all this drill checks. Compare
	// what the servers said instead.
	if answered == 0 {
		return errors.New("the cluster never answered a read: a crash stops it")
	}
	return nil
}
