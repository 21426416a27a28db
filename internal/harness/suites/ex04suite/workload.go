package ex04suite

import (
	"errors"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// The objects the randomized clients work on.
var keys = []string{"deployments/web", "deployments/api"}

// final is what the auditor saw once the clients were done: each server's
// objects (key → replicas), read with kube.Any, at virtual time at.
type final struct {
	states map[string]map[string]any
	at     time.Duration
}

// workload builds a world of the two servers and their clients for seed:
//
//   - kubectl creates web and api (3 replicas each) on server-1, then lets
//     the others start;
//   - controller-a and controller-b scale them, half the time as a
//     controller does (read, then update at the version read), half the
//     time unconditionally as kubectl scale does, each request to either
//     server (the load balancer's choice);
//   - dashboard-1 and dashboard-2 read them from either server;
//   - an auditor waits for everyone, lets the servers settle, and reads
//     every object from both servers with kube.Any.
//
// Every value written is new, so that a read says which write it saw. With
// slow set, links take 1–60ms, the servers' link 50ms up to a per-seed maximum
// of 100–400ms, and during one window of 1–3s the servers' link takes
// 300–400ms each way (a fault, for the checkers). Without it every link
// takes 1–400ms.
func (c chapter) workload(seed int64, slow bool) (*sim.World, *check.History, *final) {
	var w *sim.World
	if slow {
		w = sim.New(seed, sim.Latency(1*ms, 60*ms))
		c.boot(w)
		r := w.Rand()
		base := sim.Link{Min: 50 * ms, Max: time.Duration(100+r.Intn(301)) * ms}
		w.SetLinks(server1, server2, base)
		start := time.Duration(200+r.Intn(1300)) * ms
		end := start + time.Duration(1000+r.Intn(2001))*ms
		w.At(start, func() { w.SetLinks(server1, server2, sim.Link{Min: 300 * ms, Max: 400 * ms}) })
		w.At(end, func() { w.SetLinks(server1, server2, base) })
		w.Fault("slow link server-1 ⇄ server-2 (300–400ms each way)", start, end)
	} else {
		w = sim.New(seed, sim.Latency(1*ms, 400*ms))
		c.boot(w)
	}

	h := check.NewHistory()
	out := &final{}
	servers := []sim.NodeID{server1, server2}
	var ready sim.Queue[bool]
	ready.Name = "ready"
	var done sim.Group
	next := 10 // the next replica count to write: every write is new
	clients := []sim.NodeID{"controller-a", "controller-b", "dashboard-1", "dashboard-2"}
	done.Add(len(clients))

	w.AddNode("kubectl", func(p *sim.Proc) {
		cl := client{p, h}
		for _, k := range keys {
			cl.create(server1, k, 3)
		}
		for range clients {
			ready.Put(true)
		}
	})
	for _, id := range clients {
		controller := id[0] == 'c'
		w.AddNode(id, func(p *sim.Proc) {
			defer done.Done()
			ready.Get(p)
			cl := client{p, h}
			r := p.Rand()
			pick := func() sim.NodeID { return servers[r.Intn(len(servers))] }
			n, pause := 25, 30
			if controller {
				n, pause = 10, 80
			}
			for range n {
				key := keys[r.Intn(len(keys))]
				switch {
				case !controller:
					cl.get(pick(), key)
				case r.Intn(2) == 0:
					obj, err := cl.get(pick(), key)
					if err == nil {
						next++
						cl.scale(pick(), key, next, obj.ResourceVersion)
					}
				default:
					next++
					cl.scale(pick(), key, next, 0)
				}
				p.Sleep(time.Duration(r.Intn(pause)) * ms)
			}
		})
	}
	w.AddNode("auditor", func(p *sim.Proc) {
		done.Wait(p)
		p.Sleep(5 * time.Second)
		cl := client{p, h}
		states := map[string]map[string]any{}
		for _, s := range servers {
			states[string(s)] = map[string]any{}
			for _, k := range keys {
				obj, err := cl.peek(s, k)
				switch {
				case err == nil:
					states[string(s)][k] = int64(obj.Replicas)
				case errors.Is(err, kube.ErrNotFound):
				default:
					states[string(s)][k] = "error: " + err.Error()
				}
			}
		}
		out.states, out.at = states, p.Now()
	})
	return w, h, out
}
