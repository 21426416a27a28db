package ex07suite

import (
	"fmt"
	"time"

	"onehistory/internal/harness/sim"
)

// The calm burst: a world with no fault at all, in which a follower is
// several changes behind the committed position when a Latest read through
// it learns that position. From burstFrom, for burstFor, burstWriters
// controllers (through the sequencer and server-2 in turn) scale
// deployments/web back to back, so that the sequencer orders a write every
// few milliseconds and commits it as soon as server-2 holds it, while
// burstReaders dashboards read web and list the deployments (Latest)
// through server-3, one request after another. Every link takes 2 ms but
// the sequencer's way to server-3, which keeps the chapter's 2–20 ms, each
// message drawn anew: all within what the page promises, so the cluster is
// calm throughout and owes every request a yes.
//
// The sequencer's Appends to server-3 carry the history as it stood when
// each was sent, and the confirmation of a read's position travels the same
// jittery way: an Append sent a few milliseconds before the confirmation
// may land after it, holding fewer changes than the position server-3
// was told, and the next Append, a round trip later, brings the rest. A
// server that waits until it holds the committed position answers; one
// that waits for a single change (an if where a for belongs) refuses a
// read the calm cluster owed an answer, in nearly every world.
const (
	burstSeeds   = 3
	burstWriters = 3
	burstReaders = 3
	burstFrom    = 300 * time.Millisecond                                // the first write of the burst
	burstFor     = 600 * time.Millisecond                                // how long the controllers and dashboards keep going
	burstAudit   = burstFrom + burstFor + 2*bound + 100*time.Millisecond // every request has been answered
)

// burstWorld builds and runs the calm burst with seed.
func burstWorld(seed int64, serve Server) *run {
	r := newRun(seed, serve, 3)
	r.controller("kubectl", sequencer, func(c ctl) { c.Create(deployment(storyKey, 1, 0)) })
	next := 1 // replica counts are unique across the world, so a change is found by its value
	for i := range burstWriters {
		server := []sim.NodeID{sequencer, "server-2"}[i%2]
		r.controller(fmt.Sprintf("controller-%c", 'a'+i), server, func(c ctl) {
			c.Sleep(burstFrom + time.Duration(c.Rand().Int63n(int64(5*time.Millisecond))))
			for c.Now() < burstFrom+burstFor {
				next++
				c.Update(deployment(storyKey, next, 0))
			}
		})
	}
	for i := range burstReaders {
		r.controller(fmt.Sprintf("dashboard-%d", i+1), "server-3", func(c ctl) {
			c.Sleep(burstFrom + 20*time.Millisecond + time.Duration(i)*7*time.Millisecond)
			for j := 0; c.Now() < burstFrom+burstFor; j++ {
				if j%3 == 2 {
					c.List("deployments", latest)
				} else {
					c.Get(storyKey, latest)
				}
			}
		})
	}
	r.W.SetDefaultLink(sim.Link{Min: linkMin, Max: linkMin})
	r.W.SetLink(sequencer, "server-3", sim.Link{Min: linkMin, Max: linkMax})
	r.Lanes("server-1", "server-2", "server-3", "dashboard-1", "dashboard-2", "dashboard-3")
	return r.play(burstAudit, storyKey)
}
