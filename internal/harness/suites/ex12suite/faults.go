package ex12suite

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// The faults world, stated once.
const (
	counterWriters = 3
	incrementsEach = 5
	churnSteps     = 8   // conditional writes of api by each of two clients
	lostAnswers    = 0.1 // of the servers' answers to a client, lost after the server acted
	faultsAudit    = 25 * time.Second
)

// faultLink is the servers' link to the log in the faults world: anywhere
// from next door to the story's distance.
var faultLink = sim.Link{Min: 20 * ms, Max: 200 * ms}

func faultWorld(seed int64, impl Impl) *world {
	w := newWorld(seed, impl, faultLink)
	w.counter = web
	rng := w.W.Rand()
	var clients []sim.NodeID
	client := func(name sim.NodeID, f func(p *sim.Proc, c *kube.Client)) {
		clients = append(clients, name)
		w.W.AddNode(name, func(p *sim.Proc) { f(p, w.API(p)) })
	}
	// kubectl creates web, with no replicas yet; then kubectl and
	// kubectl-2 both change api on condition, deleting it and creating it
	// again now and then, each from what it last read.
	churn := func(p *sim.Proc, c *kube.Client, first int) {
		next := first
		for range churnSteps {
			p.Sleep(time.Duration(p.Rand().Intn(400)) * ms)
			cur, err := c.Get(api, kube.ReadOptions{})
			switch {
			case errors.Is(err, kube.ErrNotFound):
				c.Create(kube.Object{Kind: "deployments", Name: "api", Replicas: next})
			case err != nil:
			case p.Rand().Intn(4) == 0:
				c.Delete(api, cur.ResourceVersion)
			default:
				cur.Replicas = next
				c.Update(cur)
			}
			next++
		}
	}
	client("kubectl", func(p *sim.Proc, c *kube.Client) {
		create(c, kube.Object{Kind: "deployments", Name: "web"})
		churn(p, c, 1)
	})
	client("kubectl-2", func(p *sim.Proc, c *kube.Client) {
		p.Sleep(300 * ms)
		churn(p, c, 1001)
	})
	for i := range counterWriters {
		client(sim.NodeID(fmt.Sprintf("writer-%d", i+1)), func(p *sim.Proc, c *kube.Client) {
			p.Sleep(500*ms + time.Duration(p.Rand().Intn(100))*ms)
			for range incrementsEach {
				w.increment(impl, p, c, 1)
				p.Sleep(time.Duration(p.Rand().Intn(200)) * ms)
			}
		})
	}
	for _, s := range w.Servers {
		for _, c := range clients {
			w.W.SetLink(s, c, sim.Link{Min: clientLink[0], Max: clientLink[1], Drop: lostAnswers})
		}
	}
	crashed := w.Servers[rng.Intn(len(w.Servers))]
	w.Inject(scene.Crash{Node: crashed, At: 700*ms + time.Duration(rng.Intn(2500))*ms, For: 500*ms + time.Duration(rng.Intn(1500))*ms})
	return w.play(faultsAudit)
}
