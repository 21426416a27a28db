package sim_test

import (
	"fmt"
	"testing"
	"time"

	"onehistory/internal/harness/sim"
)

// BenchmarkEvents measures simulation throughput: ten clients calling three
// servers as fast as the 1–5ms links allow. It reports events per second of
// wall time (an event is a message delivery, a wake-up or a fault).
func BenchmarkEvents(b *testing.B) {
	var events uint64
	start := time.Now()
	for i := 0; i < b.N; i++ {
		w := sim.New(int64(i), sim.Latency(ms, 5*ms))
		for s := 1; s <= 3; s++ {
			w.AddNode(sim.NodeID(fmt.Sprintf("server-%d", s)), kvServer)
		}
		servers := []sim.NodeID{"server-1", "server-2", "server-3"}
		for c := 1; c <= 10; c++ {
			w.AddNode(sim.NodeID(fmt.Sprintf("client-%d", c)), func(p *sim.Proc) {
				for {
					server := servers[p.Rand().Intn(len(servers))]
					_, _ = p.Call(server, Put{"web", p.Rand().Intn(10)}, time.Second)
				}
			})
		}
		if err := w.Run(10 * time.Second); err != nil {
			b.Fatal(err)
		}
		events += w.Steps()
		w.Close()
	}
	b.ReportMetric(float64(events)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkThirtySecondsOver400msLinks is the chapter-sized run: thirty
// virtual seconds of two servers and a client over 400ms links. Its ns/op is
// the wall time one such run costs.
func BenchmarkThirtySecondsOver400msLinks(b *testing.B) {
	for i := 0; i < b.N; i++ {
		w := sim.New(int64(i), sim.Latency(400*ms, 400*ms))
		w.AddNode("server-1", kvServer)
		w.AddNode("server-2", kvServer)
		w.AddNode("client", func(p *sim.Proc) {
			for j := 0; ; j++ {
				_, _ = p.Call("server-1", Put{"web", j}, time.Second)
				_, _ = p.Call("server-2", Get{"web"}, time.Second)
			}
		})
		if err := w.Run(30 * time.Second); err != nil {
			b.Fatal(err)
		}
		if w.Now() != 30*time.Second {
			b.Fatalf("the run stopped at %v", w.Now())
		}
		w.Close()
	}
}
