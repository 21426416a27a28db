package ex04suite

import (
	"math/rand"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// requestTimeout is how long a client waits for any answer. A correct write
// crosses the servers' link twice, and a few times more when the link loses
// messages for a while; a correct cluster answers well within it.
const requestTimeout = 10 * time.Second

// The times of a randomized world. Writers take phase A on one server
// (chosen by the seed) from workStart until phaseAEnd, and phase B on the
// other from phaseBStart (or once phase A's last answer is in, if later) for
// phaseLength; readers work through both servers meanwhile; the auditor
// reads both servers at auditAt.
const (
	workStart   = 300 * ms
	phaseAEnd   = 1000 * ms
	phaseBStart = 1300 * ms
	phaseLength = 700 * ms
	auditAt     = 15 * time.Second
)

// baseLink is the servers' link outside the faults.
var baseLink = sim.Link{Min: 20 * ms, Max: 80 * ms}

// faultPlan chooses a randomized world's faults from its seed.
type faultPlan func(r *rand.Rand) []scene.Fault

// window is a stretch of between min and max, starting somewhere in the
// clients' working time.
func window(r *rand.Rand, min, max time.Duration) (from, length time.Duration) {
	length = min + time.Duration(r.Int63n(int64(max-min)))
	from = workStart + time.Duration(r.Int63n(int64(phaseBStart+phaseLength/2-workStart-length)))
	return from, length
}

// linearizableFaults: a spell of the story's slow link, and a spell in which
// the link loses a fifth of its messages and repeats a fifth.
func linearizableFaults(r *rand.Rand) []scene.Fault {
	slowFrom, slowFor := window(r, 300*ms, 700*ms)
	lossFrom, lossFor := window(r, 300*ms, 700*ms)
	return []scene.Fault{
		scene.SlowLink{A: server1, B: server2, Link: sim.Link{Min: 300 * ms, Max: 400 * ms}, From: slowFrom, For: slowFor, Normal: baseLink},
		scene.SlowLink{A: server1, B: server2, Link: sim.Link{Min: 20 * ms, Max: 120 * ms, Drop: 0.2, Duplicate: 0.2}, From: lossFrom, For: lossFor, Normal: baseLink},
	}
}

// progressFaults: a long spell in which the link loses half its messages,
// then a cut of the link, the clients still reaching both servers, that
// outlasts several of any sensible call's timeouts: a server that stops
// asking its peer after a few tries says yes to a change the other never
// gets.
func progressFaults(r *rand.Rand) []scene.Fault {
	from, length := window(r, 600*ms, 1000*ms)
	cutFrom := from + length + time.Duration(r.Int63n(int64(200*ms)))
	cutFor := cutMin + time.Duration(r.Int63n(int64(cutMax-cutMin)))
	return []scene.Fault{
		scene.SlowLink{A: server1, B: server2, Link: sim.Link{Min: 20 * ms, Max: 200 * ms, Drop: 0.5, Duplicate: 0.1}, From: from, For: length, Normal: baseLink},
		scene.Cut{A: server1, B: server2, From: cutFrom, For: cutFor},
	}
}

// How long progress cuts the servers' link: long against a call to the
// other server, short against a client's requestTimeout, so that a correct
// cluster answers every request sent during the cut once it heals.
const (
	cutMin = 3 * time.Second
	cutMax = 5 * time.Second
)

// workloadScene builds and runs one randomized world for seed:
//
//   - kubectl creates web and api through the phase A server;
//   - controller-a and controller-b write through the phase A server, then
//     through the other: unconditional scales (kubectl scale), scales
//     conditional on the version just read (a controller's update, now and
//     then with a version one off either way, which must conflict),
//     creations and deletions of batch, with and without a precondition,
//     and now and then a burst of scene.WorkloadBurst scales sent at once;
//   - dashboard-1 (and dashboard-2, if dashboards is 2) get (Latest), list (Latest) and read with
//     kube.Any through either server, until the writers are done;
//   - the auditor reads both servers at auditAt.
//
// Every value written is new, so a read says which write it saw.
func workloadScene(seed int64, serve scene.Boot, plan faultPlan, dashboards int) *scene.Scene {
	s := scene.New(seed, serve, scene.Latency(1*ms, 40*ms), scene.RequestTimeout(requestTimeout))
	r := s.W.Rand()
	first, second := server1, server2
	if r.Intn(2) == 1 {
		first, second = second, first
	}
	s.W.SetLinks(server1, server2, baseLink)
	s.Inject(plan(r)...)

	value := scene.WorkloadValues()
	var phaseA sim.Group
	writers := []string{"controller-a", "controller-b"}
	phaseA.Add(len(writers))
	writersDone := 0

	s.WorkloadCreate(first, value)
	for _, name := range writers {
		s.Client(name, func(p *sim.Proc, api *kube.Client) {
			defer func() { writersDone++ }()
			p.Sleep(workStart + time.Duration(p.Rand().Int63n(int64(20*ms))))
			for p.Now() < phaseAEnd {
				scene.WorkloadWrite(p, func() *kube.Client { return api.Pin(first) }, value)
			}
			phaseA.Done()
			p.Sleep(max(0, phaseBStart-p.Now()))
			phaseA.Wait(p)
			for end := p.Now() + phaseLength; p.Now() < end; {
				scene.WorkloadWrite(p, func() *kube.Client { return api.Pin(second) }, value)
			}
		})
	}
	s.WorkloadDashboards(dashboards, workStart, func(*sim.Proc) bool { return writersDone < len(writers) })
	s.AuditAt(auditAt, "deployments", scene.WorkloadKeys...)
	s.Run(auditAt + 30*time.Second)
	return s
}
