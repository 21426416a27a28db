package ex10suite

import (
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/suites/ex08suite"
)

// The minority scene, played inside the faults check. Five servers; once
// web and api exist everywhere, at cutAt a partition leaves the leader with
// one follower (the companion, the seed picks which) and cuts them off from
// the other three for cutFor, longer than a write waits for agreement. Just
// after the cut a writer scales web through the leader: the leader and the
// companion hold the new entry on their disks, two of five, and no majority
// will until the heal, so its client hears Timeout. All the while a reader
// on their side reads web and lists the Deployments with Any reads, mostly
// through the companion, now and then through the leader, and goes on after
// the heal until the audit. Every answer must come from the one history:
// stale is allowed, ahead of what a majority of disks holds is not.
//
// The randomized worlds send Any reads only to the leader, and with three
// servers a leader and one follower are already a majority: a follower
// that serves what it holds instead of what is committed shows only here.
const (
	minorityServers = 5
	cutAt           = 2500 * time.Millisecond
	cutFor          = writeTimeout + time.Second
	// minorityReadEvery is how often the reader asks again.
	minorityReadEvery = 40 * time.Millisecond
	// minorityAuditAfter is how long after the heal the auditor reads every
	// server: time for an Append lost in the cut to be sent again (an
	// Append's timeout, 2s), agreed, and its commit passed on.
	minorityAuditAfter = 4 * time.Second
)

// minority builds and runs the minority scene of seed.
func minority(seed int64, serve scene.Boot) *world {
	w := newWorld(seed, serve, minorityServers, peerLink)
	companion := w.Servers[1+w.W.Rand().Intn(len(w.Servers)-1)]
	heal := cutAt + cutFor
	w.Inject(scene.Partition{Groups: [][]sim.NodeID{{leader, companion, "writer", "reader"}}, From: cutAt, For: cutFor})

	w.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		c := w.writer(p, api)
		for _, k := range keys {
			c.create(k, 1)
		}
	})
	w.Client("writer", func(p *sim.Proc, api *kube.Client) {
		c := w.writer(p, api)
		p.Sleep(cutAt + 20*time.Millisecond + time.Duration(p.Rand().Int63n(int64(30*time.Millisecond))) - p.Now())
		c.scale(keys[0], 12, 0)
	})
	w.Client("reader", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(cutAt + 60*time.Millisecond + time.Duration(p.Rand().Int63n(int64(20*time.Millisecond))) - p.Now())
		anyRead := kube.ReadOptions{ResourceVersion: kube.Any}
		for i := 0; p.Now() < heal+minorityAuditAfter-200*time.Millisecond; i++ {
			server := companion
			if i%5 == 4 {
				server = leader
			}
			if i%2 == 0 {
				if obj, err := api.Pin(server).Get(keys[0], anyRead); err == nil {
					w.readCommitted(p, api.Name(), server, ex08suite.AnyRead, keys[0], obj)
				}
			} else {
				l, _ := api.Pin(server).List("deployments", anyRead)
				for _, obj := range l.Items {
					w.readCommitted(p, api.Name(), server, ex08suite.AnyList, obj.Key(), obj)
				}
			}
			p.Sleep(minorityReadEvery)
		}
	})
	w.AuditAt(heal+minorityAuditAfter, "deployments", keys...)
	w.Run(heal + minorityAuditAfter + 10*time.Second)
	return w
}

// readCommitted judges one answer the moment its client gets it: the change
// that wrote it must be held by a majority of the servers' disks. The first
// that was not is kept, with the scene's faults.
func (w *world) readCommitted(p *sim.Proc, client string, server sim.NodeID, how, key string, obj kube.Object) {
	if w.uncommitted != nil {
		return
	}
	f := w.disks.Uncommitted(p.Now(), ex08suite.Read{Client: client, Server: string(server), How: how, Key: key, Object: obj})
	if f != nil {
		f.Details += "\nfaults:\n" + w.Describe()
		w.uncommitted = f
	}
}

// uncommitted is the first read that showed a change a majority of the
// disks did not hold.
func uncommitted(w *world) *suite.Failure { return w.uncommitted }
