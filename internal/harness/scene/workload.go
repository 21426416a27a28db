package scene

import (
	"fmt"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// The workload is the randomized traffic of the pair of API servers that
// ex04 and ex06 grow: controllers that scale, create and delete deployments,
// with and without preconditions, now and then in bursts, and dashboards
// that read them every way the API offers. Every choice is drawn from the
// world's seed, so one seed gives one workload.

// The objects the workload works on: web and api exist from the start (the
// suite creates them); batch is created and deleted over and over.
var (
	WorkloadKeys    = []string{"deployments/web", "deployments/api", "deployments/batch"}
	WorkloadLasting = WorkloadKeys[:2]
	WorkloadBatch   = WorkloadKeys[2]
)

// WorkloadBurst is how many writes a burst sends at once.
const WorkloadBurst = 4

// WorkloadWrite makes one write of a controller, or a burst of them, then
// pauses for up to 40ms. Each request goes through the server pick chooses,
// so a controller may read through one server and update through another;
// value gives each write its replica count:
//
//   - an unconditional scale (kubectl scale);
//   - a scale conditional on the version just read (a controller's update),
//     now and then with a version one off either way, which must conflict;
//   - a creation of batch, a deletion without a precondition, or one at the
//     version just read (now and then one behind, which must conflict);
//   - a burst: WorkloadBurst scales sent at once, each from its own process.
func WorkloadWrite(p *sim.Proc, pick func() *kube.Client, value func() int) {
	r := p.Rand()
	api := pick()
	key := WorkloadLasting[r.Intn(len(WorkloadLasting))]
	_, name := kube.SplitKey(key)
	switch n := r.Intn(12); {
	case n >= 10:
		var done sim.Group
		done.Add(WorkloadBurst)
		for i := range WorkloadBurst {
			p.Go(fmt.Sprintf("burst-%d", i), func(q *sim.Proc) {
				defer done.Done()
				api.For(q).Update(kube.Object{Kind: "deployments", Name: name, Replicas: value()})
			})
		}
		done.Wait(p)
	case n < 4:
		api.Update(kube.Object{Kind: "deployments", Name: name, Replicas: value()})
	case n < 7:
		obj, err := api.Get(key, kube.ReadOptions{ResourceVersion: kube.Latest})
		if err != nil {
			break
		}
		rv := obj.ResourceVersion
		switch r.Intn(6) {
		case 0:
			rv-- // one behind: must conflict
		case 1:
			rv++ // one ahead: must conflict
		}
		pick().Update(kube.Object{Kind: "deployments", Name: name, Replicas: value(), ResourceVersion: rv})
	case n == 7:
		api.Create(kube.Object{Kind: "deployments", Name: "batch", Replicas: value()})
	case n == 8:
		api.Delete(WorkloadBatch, 0)
	default:
		if obj, err := api.Get(WorkloadBatch, kube.ReadOptions{ResourceVersion: kube.Latest}); err == nil {
			rv := obj.ResourceVersion
			if r.Intn(4) == 0 {
				rv-- // one behind: must conflict
			}
			pick().Delete(WorkloadBatch, rv)
		}
	}
	p.Sleep(time.Duration(r.Int63n(int64(40 * time.Millisecond))))
}

// WorkloadRead makes one read of a dashboard through api: a consistent get,
// a consistent list of the deployments, or a get with kube.Any.
func (s *Scene) WorkloadRead(p *sim.Proc, api *kube.Client) {
	switch n := p.Rand().Intn(10); {
	case n < 5:
		api.Get(WorkloadKeys[p.Rand().Intn(len(WorkloadKeys))], kube.ReadOptions{ResourceVersion: kube.Latest})
	case n < 8:
		s.List(p, api, "deployments", WorkloadKeys...)
	default:
		api.Get(WorkloadKeys[p.Rand().Intn(len(WorkloadKeys))], kube.ReadOptions{ResourceVersion: kube.Any})
	}
}

// WorkloadValues gives the replica counts a workload writes: 101, 102, and
// so on, each new, so that a read says which write it saw.
func WorkloadValues() func() int {
	next := 100
	return func() int { next++; return next }
}

// WorkloadCreate adds kubectl, which creates the objects that last
// (WorkloadLasting) through server, each with the next of value. The group
// it returns is done once kubectl has had its answers.
func (s *Scene) WorkloadCreate(server sim.NodeID, value func() int) *sim.Group {
	created := &sim.Group{}
	created.Add(1)
	s.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		defer created.Done()
		for _, key := range WorkloadLasting {
			_, name := kube.SplitKey(key)
			api.Pin(server).Create(kube.Object{Kind: "deployments", Name: name, Replicas: value()})
		}
	})
	return created
}

// WorkloadDashboards adds n dashboards, dashboard-1 to dashboard-n. Each
// begins at start (plus up to 20ms) and, as long as more says, reads
// (WorkloadRead) through a server picked anew each time, then pauses for up
// to 50ms.
func (s *Scene) WorkloadDashboards(n int, start time.Duration, more func(p *sim.Proc) bool) {
	for i := range n {
		s.Client(fmt.Sprintf("dashboard-%d", i+1), func(p *sim.Proc, api *kube.Client) {
			p.Sleep(start + time.Duration(p.Rand().Int63n(int64(20*time.Millisecond))))
			for more(p) {
				s.WorkloadRead(p, api.Pin(s.Servers[p.Rand().Intn(len(s.Servers))]))
				p.Sleep(time.Duration(p.Rand().Int63n(int64(50 * time.Millisecond))))
			}
		})
	}
}
