// Package exercise is your drill for the etcd lab (book/lab-etcd.md): the
// chaos drill of ex03, pointed at real etcd.
//
// As shipped it is the drill from ex03's story: the traffic is drained, one
// server is cut off from its peers for a while, and the drill declares the
// cluster healthy because every read answered. Make it the drill you wrote
// for ex03: writers busy while a server is isolated, reads from every
// server right after each write, one history checked (check.Linearizable),
// and what each server holds compared at the end. Then run make lab-etcd.
//
// go doc onehistory/labs/etcd/drill lists what a drill can do.
package exercise

import (
	"errors"
	"time"

	"onehistory/labs/etcd/drill"
)

// Drill runs a chaos drill on c and returns a finding, an error that tells
// what contradicted what, when the cluster broke the contract, and nil when
// it held. Refusals and timeouts during a fault are honest, not findings.
func Drill(c *drill.Cluster) error {
	answered := 0
	c.Client("ops", func(p *drill.Proc) {
		api := drill.NewClient(p, c.Servers()...) // through the balancer

		// Before the drill: one value, written once.
		api.Put("deployments/web", 3) //nolint:errcheck

		// TODO(lab): traffic was drained before the drill, so nobody
		// writes while server-1 is cut off. Who would notice a late write?
		p.Sleep(400 * time.Millisecond)

		// TODO(lab): reads through the balancer while server-1 is cut off
		// and after. Which server answered? Would the others agree?
		for range 10 {
			_, err := api.Get("deployments/web")
			if err == nil || errors.Is(err, drill.ErrNotFound) {
				answered++ // it answered: the cluster is up
			}
			p.Sleep(60 * time.Millisecond)
		}
	})

	// The fault: cut server-1 off from its peers, on purpose; mend it.
	c.At(300*time.Millisecond, func() { c.Isolate("server-1") })
	c.At(900*time.Millisecond, func() { c.Rejoin("server-1") })

	if err := c.Run(2 * time.Second); err != nil {
		return err
	}

	// TODO(lab): "everything answered" is all this drill checks. Compare
	// what the servers said instead.
	if answered == 0 {
		return errors.New("the cluster never answered a read: a fault stops it")
	}
	return nil
}
