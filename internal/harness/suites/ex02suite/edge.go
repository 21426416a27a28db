package ex02suite

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// The torn edge's times: from tearFrom on, the apiserver crashes the moment
// its disk holds a record appended and not yet synced (at tearBy whatever
// it holds), and is down for edgeDown; writer-1 writes until edgeWritesEnd;
// the apiserver crashes again, its disk synced, at edgeCrash2.
const (
	tearFrom      = 30 * time.Millisecond
	tearBy        = 60 * time.Millisecond
	edgeDown      = 15 * time.Millisecond
	edgeWritesEnd = 110 * time.Millisecond
	edgeCrash2    = 140 * time.Millisecond
	edgeEnd       = 200 * time.Millisecond
)

// edgeSeeds is how many worlds of the torn edge crash-points plays before
// its random worlds: the seed only moves the links' jitter.
const edgeSeeds = 2

// edgeWorld builds and runs the torn edge: writer-1 creates a new
// deployment after another, each acknowledged or timed out before the
// next; the apiserver crashes in the middle of a sync keeping all of the
// record it was syncing but its last byte, the tear a reader of lines or of
// a trailing marker cannot see (a crash drawn at random keeps exactly that
// one time in a hundred or so); it boots, writer-1 goes on writing, a
// reader lists the deployments; then it crashes again with nothing
// unsynced, boots from a log that has had records appended after the torn
// one, and the reader lists them once more.
func edgeWorld(seed int64, open func(p *sim.Proc) kube.Storage) *cluster {
	c := newCluster(seed, open, []sim.NodeID{apiserver, "writer-1", "reader"},
		scene.WorldOptions(sim.DiskSyncLatency(syncLatency)), scene.RequestTimeout(writeTimeout))
	var tear func()
	tear = func() {
		if size, synced := c.j.disk(); size == synced && c.W.Now() < tearBy {
			c.W.After(250*time.Microsecond, tear)
			return
		}
		c.W.CrashTearing(apiserver, 1)
		c.W.After(edgeDown, func() { c.W.Restart(apiserver) })
	}
	c.W.At(tearFrom, tear)
	c.Inject(scene.Crash{Node: apiserver, At: edgeCrash2, For: edgeDown})
	c.Client("writer-1", func(p *sim.Proc, api *kube.Client) {
		for n := 1; p.Now() < edgeWritesEnd; n++ {
			if _, err := api.Create(kube.Object{Kind: "deployments", Name: fmt.Sprintf("web-%d", n), Replicas: n}); errors.Is(err, kube.ErrUnavailable) {
				p.Sleep(5 * time.Millisecond)
			}
			p.Sleep(time.Millisecond)
		}
	})
	c.Client("reader", func(p *sim.Proc, api *kube.Client) {
		for _, at := range []time.Duration{tearBy + 2*edgeDown, edgeCrash2 + 2*edgeDown} {
			p.Sleep(at - p.Now())
			_, _ = api.List("deployments", kube.ReadOptions{})
		}
	})
	c.auditAt(edgeEnd-10*time.Millisecond, "deployments")
	c.Run(edgeEnd)
	return c
}
