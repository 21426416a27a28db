package ex06suite

import (
	"fmt"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/sim"
)

// workload shapes a randomized world: clients that scale and read a few
// Deployments through either server, while the link between the servers
// slows down to the story's 400ms now and then.
type workload struct {
	clients  int
	keys     []string
	reads    float64       // the share of operations that are reads
	duration time.Duration // how long the clients keep going
}

// The times of a randomized world: setup creates the Deployments, the clients
// work from start to start+duration, and the auditor looks after everything
// has had time to settle.
const (
	workStart = 500 * time.Millisecond
	settle    = 2 * time.Second
)

// runWorkload runs one randomized world of wl with seed.
func runWorkload(seed int64, serve Server, wl workload) *run {
	w := sim.New(seed, sim.Latency(2*time.Millisecond, 20*time.Millisecond))
	r := &run{w: w, h: check.NewHistory()}
	normal := sim.Link{Min: 5 * time.Millisecond, Max: 60 * time.Millisecond}
	slow := sim.Link{Min: 100 * time.Millisecond, Max: 400 * time.Millisecond}
	addServers(w, serve)
	w.SetLinks("server-1", "server-2", normal)

	// One or two spells of a slow link between the servers, each 300–800ms,
	// inside the clients' working time.
	rnd := w.Rand()
	for range 1 + rnd.Intn(2) {
		length := 300*time.Millisecond + time.Duration(rnd.Int63n(int64(500*time.Millisecond)))
		start := workStart + time.Duration(rnd.Int63n(int64(wl.duration-length)))
		w.At(start, func() {
			w.SetLinks("server-1", "server-2", slow)
			w.Fault("slow link server-1 ↔ server-2 (100–400ms)", start, start+length)
		})
		w.At(start+length, func() { w.SetLinks("server-1", "server-2", normal) })
	}

	w.AddNode("kubectl", func(p *sim.Proc) {
		for _, key := range wl.keys {
			newClient(p, r).create("server-1", key, 1)
		}
	})
	next := 1 // replica counts are unique per key, so a change can be found by its value
	for i := range wl.clients {
		w.AddNode(sim.NodeID(fmt.Sprintf("controller-%c", 'a'+i)), func(p *sim.Proc) {
			c := newClient(p, r)
			p.Sleep(workStart + time.Duration(p.Rand().Int63n(int64(20*time.Millisecond))))
			for p.Now() < workStart+wl.duration {
				server := servers[p.Rand().Intn(len(servers))]
				key := wl.keys[p.Rand().Intn(len(wl.keys))]
				if p.Rand().Float64() < wl.reads {
					c.get(server, key)
				} else {
					next++
					c.scale(server, key, next)
				}
				p.Sleep(time.Duration(p.Rand().Int63n(int64(40 * time.Millisecond))))
			}
		})
	}
	w.AddNode("auditor", func(p *sim.Proc) {
		p.Sleep(workStart + wl.duration + settle)
		audit(p, r, wl.keys)
	})
	r.finish(workStart + wl.duration + settle + 10*time.Second)
	return r
}
