package ex08suite

import (
	"math/rand"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// The minority scene. Five servers; at cutAt a partition leaves the leader
// with one follower (the companion, the seed picks which) and cuts them off
// from the other three for cutFor, longer than a client waits for any
// answer. Just after the cut a writer scales web through the leader: the
// leader and the companion may hold the new entry, two of five disks, and
// no majority ever will until the heal. While the cut lasts a reader on
// their side reads web, and lists, through both of them with Any reads,
// which may be stale but never ahead of the one history, and with Latest
// reads, which cannot be answered without a majority; after the heal it
// reads on until the audit.
//
// The chaos worlds cut the leader off with a follower too, but only now
// and then does a read reach that follower between an entry's arrival and
// its commit; here every read of the cut does.
const (
	minorityServers = 5
	cutAt           = 500 * time.Millisecond
	cutFor          = 2500 * time.Millisecond
	// minorityReadEvery is how often the reader asks again.
	minorityReadEvery = 40 * time.Millisecond
	// minorityAuditAfter is how long after the heal the auditor reads every
	// server: long enough for the entry to be committed everywhere.
	minorityAuditAfter = 1500 * time.Millisecond
)

// minorityKey is the Deployment the writer scales during the cut.
const minorityKey = "deployments/web"

// minority builds and runs the minority scene of seed.
func minority(seed int64, boot scene.Boot) *world {
	rnd := rand.New(rand.NewSource(seed))
	w := newDiskWorld(seed, boot, minorityServers, normal)
	leader := w.Servers[0]
	companion := w.Servers[1+rnd.Intn(len(w.Servers)-1)]
	heal := cutAt + cutFor
	w.Inject(scene.Partition{Groups: [][]sim.NodeID{{leader, companion, "writer", "reader"}}, From: cutAt, For: cutFor})

	w.kubectl()
	w.worker("writer", func(p *sim.Proc, c client) {
		p.Sleep(cutAt + 20*time.Millisecond + jitter(p.Rand(), 30*time.Millisecond) - p.Now())
		c.update(leader, minorityKey, 0)
	})
	w.worker("reader", func(p *sim.Proc, c client) {
		p.Sleep(cutAt + 60*time.Millisecond + jitter(p.Rand(), 20*time.Millisecond) - p.Now())
		for i := 0; p.Now() < heal+minorityAuditAfter-200*time.Millisecond; i++ {
			server := []sim.NodeID{companion, leader}[i%2]
			switch i % 6 {
			case 0, 1:
				c.read(server, minorityKey, kube.Any)
			case 2, 3:
				c.listAny(server)
			case 4:
				c.read(companion, minorityKey, kube.Latest)
			default:
				c.read(leader, minorityKey, kube.Latest)
			}
			p.Sleep(minorityReadEvery)
		}
	})
	return w.play(heal + minorityAuditAfter)
}
