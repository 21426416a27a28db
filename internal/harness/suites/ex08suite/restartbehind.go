package ex08suite

import (
	"fmt"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The restart-behind scene. Three servers; at awayAt the last follower is
// cut off, while burstWriters writers send writes through the leader and
// the other follower as fast as they are answered: a burst of more than
// burstAtLeast writes is committed without it. At behindCrash the leader
// crashes; it comes back behindDown later with the whole burst in the log
// it reads back, none of it committed again yet. Just before it is back
// the cut moves: the follower left behind is connected again, and the one
// that holds the whole log is cut off until behindHeal. The first ack the
// restarted leader gets is the lagging follower's, after one Append's
// worth of the burst, so its commit grows, then grows again a round later,
// and again, until it reaches the end of the log it recovered. From the
// moment it is back a reader sends Latest reads through it and through the
// lagging follower (which asks it for the read index) in turn.
//
// A restarted leader that answers as soon as its commit first grows, and
// not once every entry it recovered is committed again, shows the reader
// an acknowledged write's key as it was before that write: here and
// nowhere else, since elsewhere the first ack after a restart carries the
// whole log.
const (
	behindCrash = awayAt + 1000*time.Millisecond
	behindDown  = 300 * time.Millisecond
	// behindMove is when the cut moves, just before the leader is back:
	// the lagging follower is connected again at behindRejoin, and the
	// follower that holds the whole log is cut off a little later (one
	// partition at a time, never two at one instant).
	behindRejoin = behindCrash + behindDown - 15*time.Millisecond
	behindMove   = behindRejoin + 5*time.Millisecond
	behindHeal   = behindMove + 900*time.Millisecond
	// behindReadEvery is how often the reader asks again, from the
	// leader's return until behindReadFor later.
	behindReadEvery = 5 * time.Millisecond
	behindReadFor   = 400 * time.Millisecond
	// behindAuditAfter is how long after the heal the auditor reads every
	// server: the lagging follower has long caught up by then.
	behindAuditAfter = time.Second
)

// restartBehind builds and runs the restart-behind scene of seed.
func restartBehind(seed int64, boot scene.Boot) *world {
	w := newDiskWorld(seed, boot, catchUpServers, catchUpLink)
	leader, full, lagging := w.Servers[0], w.Servers[1], w.Servers[2]
	w.Inject(scene.Partition{Groups: [][]sim.NodeID{{lagging}}, From: awayAt, For: behindRejoin - awayAt},
		scene.Crash{Node: leader, At: behindCrash, For: behindDown},
		scene.Partition{Groups: [][]sim.NodeID{{full}}, From: behindMove, For: behindHeal - behindMove})
	w.away, w.back, w.restarted = lagging, behindRejoin, behindCrash+behindDown

	w.kubectl()
	w.burstWrites([]sim.NodeID{leader, full}, behindCrash-50*time.Millisecond)
	w.worker("reader", func(p *sim.Proc, c client) {
		p.Sleep(w.restarted + time.Millisecond - p.Now())
		for i := 0; p.Now() < w.restarted+behindReadFor; i++ {
			server := []sim.NodeID{leader, lagging}[i%2]
			c.read(server, w.keys[(i/2)%len(w.keys)], kube.Latest)
			p.Sleep(behindReadEvery)
		}
	})
	return w.play(behindHeal + behindAuditAfter)
}

// readBeforeRecovered finds, in the restart-behind scene, the first Latest
// read answered after the leader came back that misses a write
// acknowledged before its crash: that write's entry was in the log the
// leader read back, and not yet committed again. The story names the
// leader, when it crashed and came back, the read, the write it misses and
// where each follower stood.
func readBeforeRecovered(w *world) *suite.Failure {
	if w.restarted == 0 {
		return nil
	}
	leader := w.Servers[0]
	ops := w.History.Operations()
	for _, read := range ops {
		if read.Client != "reader" || read.Input.Kind != check.KindRead || read.Result.Outcome != check.OK || read.Call < w.restarted {
			continue
		}
		var missed *check.Operation
		for i, op := range ops {
			if op.Input.Key == read.Input.Key && op.Input.Kind.Mutates() && op.Acknowledged() && op.Return < behindCrash &&
				op.Result.Version > read.Result.Version && (missed == nil || op.Result.Version > missed.Result.Version) {
				missed = &ops[i]
			}
		}
		if missed == nil {
			continue
		}
		how := fmt.Sprintf("%s answered", leader)
		if read.Server != string(leader) {
			how = fmt.Sprintf("%s, with the read index %s gave it, answered", read.Server, leader)
		}
		return &suite.Failure{Name: "read-before-recovered", Clause: course.OneHistory, At: read.Return,
			Story: fmt.Sprintf("%s crashed at %s and came back at %s with the log it read back from its disk, acknowledged writes in it that had to be "+
				"committed again before it answered anything: %s, which held them all, was cut off from it from %s, and %s, cut off from %s "+
				"to %s, was catching up on them one Append at a time. At %s %s %s, while %s had been acknowledged at %s, "+
				"before the crash. A restarted leader answers no read and gives no read index until every entry of the log it recovered is "+
				"committed again: it waits for that as many rounds as it takes, not for the first ack that moves its commit",
				leader, suite.FormatTime(behindCrash), suite.FormatTime(w.restarted), w.Servers[1], suite.FormatTime(behindMove), w.away,
				suite.FormatTime(awayAt), suite.FormatTime(behindRejoin), suite.FormatTime(read.Return), how, read, missed, suite.FormatTime(missed.Return))}
	}
	return nil
}
