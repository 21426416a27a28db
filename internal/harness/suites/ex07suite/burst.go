package ex07suite

import (
	"fmt"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// The calm burst: a world with no fault at all, in which a follower is
// several changes behind the committed position when a Latest read through
// it learns that position. From burstFrom, for burstFor, burstWriters
// controllers (through the sequencer and server-2 in turn) scale
// deployments/web back to back, so that the sequencer orders a write every
// few milliseconds and commits it as soon as server-2 holds it, while
// burstReaders dashboards read web and list the deployments (Latest)
// through server-3, one request after another, and the checker scales web
// through the sequencer and, at each yes, reads it back (Latest) through
// server-3. Every client is 2 ms from its server; the sequencer and
// server-2 are nearer each other (burstNear), and so is server-3 on its
// way to the sequencer; the sequencer's way to server-3 keeps the
// chapter's 2–20 ms, each message drawn anew: all within what the page
// promises, so the cluster is calm throughout and owes every request a yes.
//
// The sequencer's Appends to server-3 carry the history as it stood when
// each was sent, and the confirmation of a read's position travels the same
// jittery way: an Append sent a few milliseconds before the confirmation
// may land after it, holding fewer changes than the position server-3
// was told, and the next Append, a round trip later, brings the rest. Near
// as the others are, a write is acknowledged, and a read's position
// confirmed, while that Append is still on its way: the position holds
// writes their clients have heard yes for. A server that waits until it
// holds the committed position answers; one that waits for a single change
// (an if where a for belongs) refuses a read the calm cluster owed an
// answer, or, if it answers anyway, shows a read a copy without a write
// acknowledged before the read began, in nearly every world.
const (
	burstSeeds   = 3
	burstWriters = 3
	burstReaders = 3
	burstFrom    = 300 * time.Millisecond                                // the first write of the burst
	burstFor     = 600 * time.Millisecond                                // how long the controllers and dashboards keep going
	burstAudit   = burstFrom + burstFor + 2*bound + 100*time.Millisecond // every request has been answered
)

// burstNear is the link between the sequencer and server-2, both ways, and
// server-3's way to the sequencer: nearer than any client, so that a
// write is committed, and a read's position confirmed, well within the
// time an Append may take on its way to server-3.
var burstNear = sim.Link{Min: 500 * time.Microsecond, Max: 500 * time.Microsecond}

// burstWorld builds and runs the calm burst with seed.
func burstWorld(seed int64, serve Server) *run {
	r := newRun(seed, serve, 3)
	r.controller("kubectl", sequencer, func(c ctl) { c.Create(deployment(storyKey, 1, 0)) })
	next := 1 // replica counts are unique across the world, so a change is found by its value
	r.writers(burstWriters, burstFrom, burstFrom+burstFor, 0, &next)
	r.dashboards(burstReaders, burstFrom+burstFor, func(_ ctl, i int) time.Duration {
		return burstFrom + 20*time.Millisecond + time.Duration(i)*7*time.Millisecond
	})
	r.Client("checker", func(p *sim.Proc, api *kube.Client) {
		write, read := api.Pin(sequencer).Noted(note), api.Pin("server-3").Noted(note)
		p.Sleep(burstFrom + 10*time.Millisecond)
		for p.Now() < burstFrom+burstFor {
			next++
			if _, err := write.Update(deployment(storyKey, next, 0)); err == nil {
				read.Get(storyKey, latest)
			}
		}
	})
	r.W.SetDefaultLink(sim.Link{Min: linkMin, Max: linkMin})
	r.W.SetLinks(sequencer, "server-2", burstNear)
	r.W.SetLink("server-3", sequencer, burstNear)
	r.W.SetLink(sequencer, "server-3", sim.Link{Min: linkMin, Max: linkMax})
	r.Lanes("server-1", "server-2", "server-3", "checker", "dashboard-1", "dashboard-2", "dashboard-3")
	return r.play(burstAudit, storyKey)
}

// writers adds n controllers, on the sequencer and server-2 in turn, each
// starting within 5ms of from and, until until, scaling storyKey to the
// next replica count of *next, with a pause of up to pause after each
// write (none when pause is 0).
func (r *run) writers(n int, from, until, pause time.Duration, next *int) {
	for i := range n {
		server := []sim.NodeID{sequencer, "server-2"}[i%2]
		r.controller(fmt.Sprintf("controller-%c", 'a'+i), server, func(c ctl) {
			c.Sleep(from + time.Duration(c.Rand().Int63n(int64(5*time.Millisecond))))
			for c.Now() < until {
				*next++
				c.Update(deployment(storyKey, *next, 0))
				if pause > 0 {
					c.Sleep(time.Duration(c.Rand().Int63n(int64(pause))))
				}
			}
		})
	}
}

// dashboards adds n dashboards on server-3; the i-th, from the moment
// start gives it until until, reads storyKey at Latest, again and again,
// every third read a list of deployments.
func (r *run) dashboards(n int, until time.Duration, start func(c ctl, i int) time.Duration) {
	for i := range n {
		r.controller(fmt.Sprintf("dashboard-%d", i+1), "server-3", func(c ctl) {
			c.Sleep(start(c, i))
			for j := 0; c.Now() < until; j++ {
				if j%3 == 2 {
					c.List("deployments", latest)
				} else {
					c.Get(storyKey, latest)
				}
			}
		})
	}
}
