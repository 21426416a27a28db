package ex07suite

import (
	"fmt"
	"time"

	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// The rejoin: a world with one fault, a crash of server-3 from rejoinCrash
// for rejoinDown. It comes back with its memory gone while two controllers
// go on scaling deployments/web through the sequencer and server-2; from
// settle after its return, once the page's promise holds again, two
// dashboards read web Latest through it, one request after another. The
// sequencer's calls to server-3 are refused while it is down; a sequencer
// that, refused, pauses for longer than the promise leaves (settle and a
// request's bound) sends it the history only after those reads have been
// refused while the cluster was calm.
const (
	rejoinSeeds   = 1
	rejoinWriters = 2
	rejoinReaders = 2
	rejoinCrash   = 300 * time.Millisecond
	rejoinDown    = 300 * time.Millisecond
	rejoinUntil   = rejoinCrash + rejoinDown + settle + 2*bound
	rejoinAudit   = rejoinUntil + bound + 500*time.Millisecond
)

// rejoinWorld builds and runs the rejoin with seed.
func rejoinWorld(seed int64, serve Server) *run {
	r := newRun(seed, serve, 3)
	back := rejoinCrash + rejoinDown
	r.Inject(scene.Crash{Node: "server-3", At: rejoinCrash, For: rejoinDown})
	r.controller("kubectl", sequencer, func(c ctl) { c.Create(deployment(storyKey, 1, 0)) })
	next := 1 // replica counts are unique across the world, so a change is found by its value
	for i := range rejoinWriters {
		server := []sim.NodeID{sequencer, "server-2"}[i%2]
		r.controller(fmt.Sprintf("controller-%c", 'a'+i), server, func(c ctl) {
			c.Sleep(rejoinCrash - 100*time.Millisecond + time.Duration(c.Rand().Int63n(int64(20*time.Millisecond))))
			for c.Now() < rejoinUntil {
				next++
				c.Update(deployment(storyKey, next, 0))
				c.Sleep(20*time.Millisecond + time.Duration(c.Rand().Int63n(int64(20*time.Millisecond))))
			}
		})
	}
	for i := range rejoinReaders {
		r.controller(fmt.Sprintf("dashboard-%d", i+1), "server-3", func(c ctl) {
			c.Sleep(back + settle + time.Duration(i)*37*time.Millisecond + time.Duration(c.Rand().Int63n(int64(10*time.Millisecond))))
			for c.Now() < rejoinUntil {
				c.Get(storyKey, latest)
				c.Sleep(30 * time.Millisecond)
			}
		})
	}
	r.Lanes("server-1", "server-2", "server-3", "dashboard-1", "dashboard-2")
	return r.play(rejoinAudit, storyKey)
}
