package ex08suite

import (
	"math/rand"
	"slices"
	"time"

	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// The times of a randomized world. kubectl creates the Deployments, the
// workers send requests from workStart to workEnd, the faults all fall
// between workStart and chaosEnd, so the last stretch of work meets a whole
// cluster, and the auditor reads every server settle after the work ends.
const (
	workStart = 200 * time.Millisecond
	chaosEnd  = 1400 * time.Millisecond
	workEnd   = 2400 * time.Millisecond
	settle    = 600 * time.Millisecond
	// requestTimeout is how long a client waits for any answer.
	requestTimeout = time.Second
	// patientTimeout is how long the patient worker waits: longer than a
	// follower waits for the leader (and a slow link's round trip, up to
	// 2.2s, outlasts both), so that what a follower says when its own call
	// to the leader gives up reaches a client.
	patientTimeout = 2 * time.Second
	// calmMargin is how long after the last fault a request must be
	// answered: long enough for a restarted server to read its log and a
	// cut-off one to catch up.
	calmMargin = time.Second
	// syncLatency is how long a disk takes to sync: long enough that a
	// crash often tears a record in half.
	syncLatency = 4 * time.Millisecond
	// backoff is how long a worker waits, at least, after an answer that
	// was no answer (a timeout, Unavailable), as a client would.
	backoff = 150 * time.Millisecond
)

// Links that outlast timeouts: a slow link's messages take longer each way
// than a client waits for its whole answer.
var (
	normal = sim.Link{Min: 2 * time.Millisecond, Max: 20 * time.Millisecond}
	slow   = sim.Link{Min: 600 * time.Millisecond, Max: 1100 * time.Millisecond}
)

// chaosKeys are the Deployments every randomized world works on.
var chaosKeys = []string{"deployments/web", "deployments/api", "deployments/db", "deployments/cache"}

// chaos builds and runs one randomized world of seed: three or five
// servers, three workers sending every kind of request to every server,
// clocks skewed, and one fault after another until chaosEnd: a crash of any
// server (the leader included) with its restart, a crash in the middle of a
// write to a log, a partition with the leader on either side, two crashes
// at once, or a link from the leader slowed beyond every timeout. A patient
// client scales through the followers, waiting longer than they wait for
// the leader, and a prober reads every key through each server the moment
// it is back.
func chaos(seed int64, boot scene.Boot) *world {
	rnd := rand.New(rand.NewSource(seed))
	n := 3
	if rnd.Intn(3) == 0 {
		n = 5
	}
	w := newDiskWorld(seed, boot, n, normal)
	s := w.Scene
	w.randomized = true
	workers := []string{"client-a", "client-b", "client-c"}

	for _, id := range s.Servers {
		if rnd.Intn(2) == 0 {
			s.Inject(scene.Skew{Node: id, By: time.Duration(rnd.Int63n(int64(time.Second))) - 500*time.Millisecond})
		}
	}
	for at := workStart + jitter(rnd, 300*time.Millisecond); at < chaosEnd-200*time.Millisecond; {
		length := 200*time.Millisecond + jitter(rnd, 1200*time.Millisecond)
		length = min(length, chaosEnd-at)
		s.Inject(episode(rnd, s.Servers, workers, at, length)...)
		at += length + 100*time.Millisecond + jitter(rnd, 400*time.Millisecond)
	}

	w.kubectl()
	for _, name := range workers {
		w.worker(name, func(p *sim.Proc, c client) {
			p.Sleep(workStart + jitter(p.Rand(), 20*time.Millisecond))
			for p.Now() < workEnd {
				if c.op() {
					p.Sleep(backoff + jitter(p.Rand(), backoff))
				}
				p.Sleep(20*time.Millisecond + jitter(p.Rand(), 65*time.Millisecond))
			}
		})
	}
	// The patient client scales through the followers, waiting longer for
	// each answer than a follower waits for the leader: when a follower's
	// call gives up, what it says (Timeout: maybe done) reaches a client.
	w.worker("client-d", func(p *sim.Proc, c client) {
		c.api = c.api.WithTimeout(patientTimeout)
		p.Sleep(workStart + jitter(p.Rand(), 20*time.Millisecond))
		for p.Now() < chaosEnd {
			server := s.Servers[1+p.Rand().Intn(len(s.Servers)-1)]
			key := w.keys[p.Rand().Intn(len(w.keys))]
			c.update(server, key, 0)
			p.Sleep(50*time.Millisecond + jitter(p.Rand(), 100*time.Millisecond))
		}
	})
	w.worker("prober", func(_ *sim.Proc, c client) { c.probe() })
	w.watchHealth(workEnd)
	return w.play(workEnd + settle)
}

// episode is one fault, or two at once, from at for length.
func episode(rnd *rand.Rand, servers []sim.NodeID, workers []string, at, length time.Duration) []scene.Fault {
	leader := servers[0]
	pick := func() sim.NodeID { return servers[rnd.Intn(len(servers))] }
	switch rnd.Intn(6) {
	case 0: // one server crashes, the leader as often as any
		return []scene.Fault{scene.Crash{Node: pick(), At: at, For: length}}
	case 1: // one server crashes in the middle of a write to its log
		return []scene.Fault{scene.CrashMidWrite{Node: pick(), File: LogFile, From: at, For: length, Within: length}}
	case 2: // two servers crash, overlapping
		a := pick()
		b := pick()
		for b == a {
			b = pick()
		}
		return []scene.Fault{
			scene.Crash{Node: a, At: at, For: length},
			scene.Crash{Node: b, At: at + length/3, For: length / 2},
		}
	case 3: // a partition: a minority cut off, the leader on either side, workers on both
		order := rnd.Perm(len(servers))
		var cut []sim.NodeID
		for _, i := range order[:len(servers)/2] {
			cut = append(cut, servers[i])
		}
		if rnd.Intn(2) == 0 && !slices.Contains(cut, leader) {
			cut[0] = leader
		}
		side := append([]sim.NodeID(nil), cut...)
		for _, name := range workers {
			if rnd.Intn(2) == 0 {
				side = append(side, sim.NodeID(name))
			}
		}
		return []scene.Fault{scene.Partition{Groups: [][]sim.NodeID{side}, From: at, For: length}}
	default: // the link from the leader to one follower slower than any timeout
		follower := servers[1+rnd.Intn(len(servers)-1)]
		return []scene.Fault{scene.SlowLink{A: leader, B: follower, Link: slow, From: at, For: length, Normal: normal}}
	}
}

// jitter is a random duration in [0, d), drawn from a scenario's own
// generator or from a process's share of the world's (sim.Rand).
func jitter(rnd interface{ Int63n(int64) int64 }, d time.Duration) time.Duration {
	return time.Duration(rnd.Int63n(int64(d)))
}
