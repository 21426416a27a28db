package ex07suite

import (
	"time"

	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// The far follower: a world with one fault, server-3 behind a slow link. No
// server crashes and the network never splits: from farFrom, for farFor,
// every message between the sequencer and server-3 takes farLink (a little
// over 400 ms), both ways, so that a Confirm asked through server-3 comes
// back some 820 ms after it was asked, close to a server's whole budget for
// one request. Meanwhile farWriters controllers (through the sequencer and
// server-2 in turn, near each other as in the burst) scale
// deployments/web back to back, so the committed position keeps moving
// while each confirmation is on its way, and farReaders dashboards read web
// and list the deployments (Latest) through server-3, one request after
// another.
//
// The Appends that bring server-3 the history are as slow as the
// confirmation, so when it learns the committed position it is some way
// behind it, and holds it only when the next Append lands, up to a few
// hundred milliseconds later. The page promises an answer within the bound
// from the moment the request arrives: a server that measures its budget
// from then refuses, in time, once the budget is spent; one that starts
// its budget only when the confirmation comes back waits on for the next
// Append and answers well past the bound, in nearly every world. The link
// is a declared fault, so a refusal here is allowed; a late answer, or a
// stale one, never is.
const (
	farSeeds   = 2
	farWriters = 2
	farReaders = 4
	farFrom    = 300 * time.Millisecond
	farFor     = 2500 * time.Millisecond
	farAudit   = farFrom + farFor + 2*bound + 500*time.Millisecond // every request answered, the link healed and server-3 caught up
)

// farLink is the slow link between the sequencer and server-3, both ways:
// two of it, a Confirm's round trip, leave a server a few tens of
// milliseconds of its budget.
var farLink = sim.Link{Min: 405 * time.Millisecond, Max: 418 * time.Millisecond}

// farWorld builds and runs the far follower with seed.
func farWorld(seed int64, serve Server) *run {
	r := newRun(seed, serve, 3)
	r.Inject(scene.SlowLink{A: sequencer, B: "server-3", Link: farLink, From: farFrom, For: farFor})
	r.controller("kubectl", sequencer, func(c ctl) { c.Create(deployment(storyKey, 1, 0)) })
	next := 1 // replica counts are unique across the world, so a change is found by its value
	r.writers(farWriters, farFrom, farFrom+farFor, 10*time.Millisecond, &next)
	r.dashboards(farReaders, farFrom+farFor-bound, func(c ctl, i int) time.Duration {
		return farFrom + 50*time.Millisecond + time.Duration(i)*61*time.Millisecond + time.Duration(c.Rand().Int63n(int64(20*time.Millisecond)))
	})
	r.W.SetLinks(sequencer, "server-2", burstNear)
	r.Lanes("server-1", "server-2", "server-3", "dashboard-1", "dashboard-2", "dashboard-3", "dashboard-4")
	return r.play(farAudit, storyKey)
}
