package ex06suite

import (
	"math/rand"
	"slices"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// requestTimeout is how long a client waits for any answer. A write sent to
// a server that is not the one deciding crosses the servers' link four
// times; over the story's 400ms link that is 1.6s, well within it.
const requestTimeout = 4 * time.Second

// acceptedShare is the least share of the writes no cut could hold up that
// a randomized world must see accepted (or refused by the API's own rules).
const acceptedShare = 0.9

// The times of a randomized world: the faults fall between workStart and
// workEnd (shortEnd in a world whose cut is short); the clients work from
// workStart until then, or until afterCut after the cut heals if that is
// later, so that a world whose cut holds its writes up still completes
// enough of them; the auditor reads both servers at auditAt.
const (
	workStart = 300 * ms
	workEnd   = 2500 * ms
	shortEnd  = 1900 * ms
	afterCut  = time.Second
	auditAt   = 15 * time.Second
)

// baseLink is the servers' link until the first fault; after a cut it is
// the scene's default link again.
var baseLink = sim.Link{Min: 5 * ms, Max: 60 * ms}

// window is a stretch of between min and max inside the clients' working
// time, which ends at end.
func window(r *rand.Rand, end, min, max time.Duration) (from, length time.Duration) {
	length = min + time.Duration(r.Int63n(int64(max-min)))
	from = workStart + time.Duration(r.Int63n(int64(end-workStart-length)))
	return from, length
}

// longCut is the least length of a long cut: longer than a client waits
// for an answer, and than any call a server makes to another should wait.
const longCut = requestTimeout

// faults are a randomized world's faults: a spell of the story's slow
// link, a spell in which the link loses 30% of its messages, and a cut
// longer than most calls to the other server wait (with long set, one that
// begins early and outlasts every timeout: between longCut and a second
// more). With long set, one world in lostEvery also loses the sequencer
// for good, at least a second into the cut: whatever it acknowledged must
// already be on server-2. (The link does not
// repeat messages here: a write that reaches the one server deciding twice
// is a second write, and telling them apart is a later chapter's work.)
func faults(r *rand.Rand, end time.Duration, long bool) []scene.Fault {
	slowFrom, slowFor := window(r, end, 300*ms, 800*ms)
	lossFrom, lossFor := window(r, end, 300*ms, 800*ms)
	cutFrom, cutFor := window(r, end, 800*ms, 1200*ms)
	if long {
		cutFrom = workStart + 800*ms + time.Duration(r.Int63n(int64(700*ms)))
		cutFor = longCut + time.Duration(r.Int63n(int64(time.Second)))
	}
	fs := []scene.Fault{
		scene.SlowLink{A: server1, B: server2, Link: sim.Link{Min: 300 * ms, Max: 400 * ms}, From: slowFrom, For: slowFor, Normal: baseLink},
		scene.SlowLink{A: server1, B: server2, Link: sim.Link{Min: 5 * ms, Max: 100 * ms, Drop: 0.3}, From: lossFrom, For: lossFor, Normal: baseLink},
		scene.Cut{A: server1, B: server2, From: cutFrom, For: cutFor},
	}
	if long && r.Intn(lostEvery) == 0 {
		fs = append(fs, scene.Crash{Node: server1, At: cutFrom + time.Second + time.Duration(r.Int63n(int64(cutFor-time.Second)))})
	}
	return fs
}

// lostEvery: one world in lostEvery of the one-history check loses the
// sequencer for good.
const lostEvery = 4

// spread are the objects the controllers scale besides the workload's
// three: a design that hands the ordering out by object (each key to the
// server its hash picks) would order all three of those on one server
// often enough to pass; over nine keys of names long and short, from a to
// s, both servers order some. spreadEvery: one write in spreadEvery is to
// one of them.
var spread = []string{"auth", "cache", "search", "billing", "frontend", "scheduler"}

const spreadEvery = 3

// createSpread adds helm, which creates the spread objects through
// server-1, all at once, each with the next of value. The group it returns
// is done once helm has had its answers.
func createSpread(s *scene.Scene, value func() int) *sim.Group {
	created := &sim.Group{}
	created.Add(len(spread))
	s.Client("helm", func(p *sim.Proc, api *kube.Client) {
		for _, name := range spread {
			p.Go("create-"+name, func(q *sim.Proc) {
				defer created.Done()
				api.For(q).Pin(server1).Create(kube.Object{Kind: "deployments", Name: name, Replicas: value()})
			})
		}
	})
	return created
}

// spreadKeys are the keys of the spread objects.
func spreadKeys() []string {
	keys := make([]string, len(spread))
	for i, name := range spread {
		keys[i] = "deployments/" + name
	}
	return keys
}

// workloadScene builds and runs one randomized world for seed:
//
//   - kubectl creates web and api, and helm the spread objects, through
//     server-1;
//   - controller-a, controller-b and controller-c each write through either
//     server, the server picked anew for each write: unconditional scales
//     (kubectl scale), scales conditional on the version just read (now and
//     then one off either way, which must conflict), creations and
//     deletions of batch with and without a precondition, and now and then a
//     burst of scene.WorkloadBurst scales sent at once; one write in
//     spreadEvery is an unconditional scale of one of the spread objects;
//   - dashboards (as many as given) get (Latest), list (Latest) and read
//     with kube.Any through either server while the controllers work;
//   - the auditor reads both servers at auditAt.
//
// The clients work until the faults' window ends or afterCut after the cut
// heals, whichever is later. Every value written is new, so a read says which write it saw.
func workloadScene(seed int64, serve scene.Boot, dashboards int, long bool) *scene.Scene {
	s := scene.New(seed, serve, scene.Latency(1*ms, 30*ms), scene.RequestTimeout(requestTimeout))
	r := s.W.Rand()
	s.W.SetLinks(server1, server2, baseLink)
	end := shortEnd
	if long {
		end = workEnd
	}
	fs := faults(r, end, long)
	s.Inject(fs...)
	for _, f := range fs {
		if c, ok := f.(scene.Cut); ok {
			end = max(end, c.Until()+cutRecovery+afterCut)
		}
	}

	value := scene.WorkloadValues()
	servers := []sim.NodeID{server1, server2}
	created := s.WorkloadCreate(server1, value)
	spreadCreated := createSpread(s, value)
	for _, name := range []string{"controller-a", "controller-b", "controller-c"} {
		s.Client(name, func(p *sim.Proc, api *kube.Client) {
			created.Wait(p)
			spreadCreated.Wait(p)
			p.Sleep(max(0, workStart+time.Duration(p.Rand().Int63n(int64(20*ms)))-p.Now()))
			pick := func() *kube.Client { return api.Pin(servers[p.Rand().Intn(2)]) }
			for p.Now() < end {
				if p.Rand().Intn(spreadEvery) > 0 {
					scene.WorkloadWrite(p, pick, value)
					continue
				}
				pick().Update(kube.Object{Kind: "deployments", Name: spread[p.Rand().Intn(len(spread))], Replicas: value()})
				p.Sleep(time.Duration(p.Rand().Int63n(int64(40 * ms))))
			}
		})
	}
	s.WorkloadDashboards(dashboards, workStart, func(p *sim.Proc) bool { return p.Now() < end })
	s.AuditAt(auditAt, "deployments", append(slices.Clone(scene.WorkloadKeys), spreadKeys()...)...)
	s.Run(auditAt + 30*time.Second)
	return s
}
