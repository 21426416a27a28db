package ex06suite

import (
	"time"

	"onehistory/internal/harness/check"

	"onehistory/internal/harness/sim"
)

// The story's scenario: deployments/web runs 3 replicas. At 1000ms
// controller-a scales it to 5 through server-1 and, a few milliseconds later,
// controller-b scales it to 2 through server-2. The servers are 380–400ms
// apart; the clients sit next to their servers. Both controllers read the
// Deployment back at 2500ms, and at 3000ms the suite asks each server what
// it holds.
const (
	storyKey     = "deployments/web"
	storyScaleAt = 1000 * time.Millisecond
	storyReadAt  = 2500 * time.Millisecond
	storyAuditAt = 3000 * time.Millisecond
)

// runStory runs the story's world with seed, which decides only the jitter:
// how far apart the two scales are, and each message's delay.
func runStory(seed int64, serve Server) *run {
	w := sim.New(seed, sim.Latency(3*time.Millisecond, 8*time.Millisecond))
	r := &run{w: w, h: check.NewHistory()}
	addServers(w, serve)
	w.SetLinks("server-1", "server-2", sim.Link{Min: 380 * time.Millisecond, Max: 400 * time.Millisecond})
	w.AddNode("kubectl", func(p *sim.Proc) {
		newClient(p, r).create("server-1", storyKey, 3)
	})
	scaler := func(server sim.NodeID, replicas int, offset time.Duration) func(p *sim.Proc) {
		return func(p *sim.Proc) {
			c := newClient(p, r)
			p.Sleep(storyScaleAt + offset)
			c.scale(server, storyKey, replicas)
			p.Sleep(storyReadAt - p.Now())
			c.get(server, storyKey)
		}
	}
	offset := time.Duration(w.Rand().Int63n(int64(5 * time.Millisecond)))
	w.AddNode("controller-a", scaler("server-1", 5, 0))
	w.AddNode("controller-b", scaler("server-2", 2, offset))
	w.AddNode("auditor", func(p *sim.Proc) {
		p.Sleep(storyAuditAt)
		audit(p, r, []string{storyKey})
	})
	r.finish(storyAuditAt + 10*time.Second)
	return r
}
