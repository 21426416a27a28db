package ex08suite

import (
	"fmt"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The restart scene. Three servers; at restartCut a partition leaves the
// leader alone with a writer and a reader. Just after, the writer scales
// web through the leader: the leader appends the entry and syncs it, and no
// follower hears of it while the cut lasts. At restartCrash, its sync long
// done, the leader crashes; it comes back restartDown later, with the cut
// still in place until restartHeal, and reads the entry back from its disk:
// a change no other server holds, not committed. From the moment it is back
// the reader reads web through it, Latest and Any, until the audit. A
// leader that takes what it recovered as committed shows the reader a
// change no majority holds; one that commits it again first answers only
// once a follower holds it too, after the heal.
const (
	restartServers    = 3
	restartCut        = 500 * time.Millisecond
	restartCrash      = restartCut + 200*time.Millisecond
	restartDown       = 300 * time.Millisecond
	restartHeal       = restartCrash + restartDown + 400*time.Millisecond
	restartReadEvery  = 30 * time.Millisecond
	restartAuditAfter = time.Second
)

// restartKey is the Deployment the writer scales during the cut.
const restartKey = "deployments/web"

// restart builds and runs the restart scene of seed.
func restart(seed int64, boot scene.Boot) *world {
	w := newDiskWorld(seed, boot, restartServers, normal)
	leader := w.Servers[0]
	w.Inject(scene.Partition{Groups: [][]sim.NodeID{{leader, "writer", "reader"}}, From: restartCut, For: restartHeal - restartCut},
		scene.Crash{Node: leader, At: restartCrash, For: restartDown})
	w.kubectl()
	w.worker("writer", func(p *sim.Proc, c client) {
		p.Sleep(restartCut + 20*time.Millisecond + jitter(p.Rand(), 30*time.Millisecond) - p.Now())
		c.update(leader, restartKey, 0)
	})
	w.worker("reader", func(p *sim.Proc, c client) {
		p.Sleep(restartCrash + restartDown + 5*time.Millisecond - p.Now())
		for i := 0; p.Now() < restartHeal+restartAuditAfter-200*time.Millisecond; i++ {
			rv := kube.Latest
			if i%2 == 1 {
				rv = kube.Any
			}
			c.read(leader, restartKey, rv)
			p.Sleep(restartReadEvery)
		}
	})
	return w.play(restartHeal + restartAuditAfter)
}

// recovered says, for a read server answered at at with what entry index
// holds, whether that entry came back from server's own disk after a crash
// (server was restarted since, and the write that made it was sent before
// the crash), and if so how: "server-1 came back at 1000ms, from its crash
// at 700ms, with entry 5 in the log it read back, and took it as
// committed". Otherwise "".
func (w *world) recovered(server sim.NodeID, key string, replicas int, index int64, at time.Duration) string {
	var crashed, back time.Duration
	for _, e := range w.W.Trace().Events() {
		if e.At > at {
			break
		}
		switch {
		case e.Node == server && e.Kind == sim.EvCrash:
			crashed = e.At
		case e.Node == server && e.Kind == sim.EvRestart:
			back = e.At
		}
	}
	if back == 0 || back < crashed {
		return ""
	}
	for _, op := range w.History.Operations() {
		if op.Input.Key == key && op.Input.Kind.Mutates() && fmt.Sprint(op.Input.Value) == fmt.Sprint(replicas) && op.Call < crashed {
			return fmt.Sprintf("%s came back at %s, from its crash at %s, with entry %d in the log it read back from its disk, and took it as committed",
				server, suite.FormatTime(back), suite.FormatTime(crashed), index)
		}
	}
	return ""
}
