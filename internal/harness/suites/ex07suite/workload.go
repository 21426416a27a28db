package ex07suite

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// workload shapes a randomized world: three servers, a controller next to
// each, every kind of request through every server, now and then in bursts,
// while the network splits, servers crash and links slow down past every
// timeout.
type workload struct {
	keys  []string
	reads float64 // the share of requests that are reads
}

// The times of a randomized world: kubectl creates the Deployments, the
// controllers work from workStart to workEnd, faults come and go between
// faultsFrom and faultsUntil, and the auditor reads every server at
// workAudit, after everything has had time to heal and settle.
const (
	workStart   = 300 * time.Millisecond
	faultsFrom  = 400 * time.Millisecond
	faultsUntil = 2000 * time.Millisecond
	workEnd     = faultsUntil + settle + 600*time.Millisecond
	workAudit   = workEnd + bound + 300*time.Millisecond
)

// slow is a link whose delays outlast any server's timeout and the bound
// itself.
var slow = sim.Link{Min: 400 * time.Millisecond, Max: 1500 * time.Millisecond}

var (
	partitionsWork   = workload{keys: []string{"deployments/web", "deployments/api"}, reads: 0.4}
	linearizableWork = workload{keys: []string{"deployments/web", "deployments/api"}, reads: 0.6}
)

// world builds and runs the randomized worlds of wl.
func (wl workload) world(serve Server) scene.Build[*run] {
	return func(seed int64) *run {
		r := newRun(seed, serve, 3)
		rnd := r.W.Rand()
		homes := map[sim.NodeID]sim.NodeID{}
		var clients []sim.NodeID
		for i, server := range r.Servers {
			c := sim.NodeID(fmt.Sprintf("controller-%c", 'a'+i))
			homes[c] = server
			clients = append(clients, c)
		}
		r.Inject(faults(rnd, r.Servers, homes)...)

		r.controller("kubectl", sequencer, func(c ctl) {
			for _, key := range wl.keys {
				c.Create(deployment(key, 1, 0))
			}
		})
		next := 1 // replica counts are unique across the world, so a change is found by its value
		for _, name := range clients {
			r.controller(string(name), homes[name], func(c ctl) {
				c.Sleep(workStart + time.Duration(c.Rand().Int63n(int64(20*time.Millisecond))))
				for c.Now() < workEnd {
					next++
					err := c.request(wl, next)
					pause := 20*time.Millisecond + time.Duration(c.Rand().Int63n(int64(80*time.Millisecond)))
					switch {
					case refused(err): // a controller backs off when the cluster says no
						pause += 100*time.Millisecond + time.Duration(c.Rand().Int63n(int64(150*time.Millisecond)))
					case c.Rand().Intn(10) == 0: // now and then a burst: the next request at once
						pause = 0
					}
					c.Sleep(pause)
				}
			})
		}
		r.Lanes(append(clients, r.Servers...)...)
		return r.play(workAudit, wl.keys...)
	}
}

// request makes one request of every kind a controller makes: reads and
// lists, Latest and Any, scales and deletes with and without a
// precondition, and creates. value is unique to this request. It returns
// the error of the last request it made.
func (c ctl) request(wl workload, value int) error {
	rnd := c.Rand()
	key := wl.keys[rnd.Intn(len(wl.keys))]
	var err error
	switch x := rnd.Float64(); {
	case x < wl.reads*0.5:
		_, err = c.Get(key, latest)
	case x < wl.reads*0.75:
		_, err = c.Get(key, anyRV)
	case x < wl.reads*0.9:
		_, err = c.List("deployments", latest)
	case x < wl.reads:
		_, err = c.List("deployments", anyRV)
	case x < wl.reads+(1-wl.reads)*0.5:
		_, err = c.Update(deployment(key, value, 0))
	case x < wl.reads+(1-wl.reads)*0.75:
		// read, then scale only if nobody changed it since
		var cur kube.Object
		if cur, err = c.Get(key, latest); err == nil {
			_, err = c.Update(deployment(key, value, cur.ResourceVersion))
		}
	case x < wl.reads+(1-wl.reads)*0.8:
		_, err = c.Delete(key, 0)
	case x < wl.reads+(1-wl.reads)*0.9:
		// read, then delete only if nobody changed it since (now and then
		// at the version before, which must conflict)
		var cur kube.Object
		if cur, err = c.Get(key, latest); err == nil {
			rv := cur.ResourceVersion
			if rnd.Intn(4) == 0 {
				rv--
			}
			_, err = c.Delete(key, rv)
		}
	default:
		_, err = c.Create(deployment(key, value, 0))
	}
	return err
}

// faults plans one to three faults, one after another, between faultsFrom
// and faultsUntil: a partition of the servers (each controller on its
// server's side), a crash of a server other than the sequencer that comes
// back with its memory gone, a link between the sequencer and another
// server slowed past every timeout, or, last and now and then, the
// sequencer lost for good.
func faults(rnd *rand.Rand, servers []sim.NodeID, homes map[sim.NodeID]sim.NodeID) []scene.Fault {
	var planned []scene.Fault
	at := faultsFrom + time.Duration(rnd.Int63n(int64(300*time.Millisecond)))
	for n := 1 + rnd.Intn(3); n > 0 && at < faultsUntil-300*time.Millisecond; n-- {
		length := min(300*time.Millisecond+time.Duration(rnd.Int63n(int64(1200*time.Millisecond))), faultsUntil-at)
		switch x := rnd.Float64(); {
		case x < 0.5:
			planned = append(planned, scene.Partition{Groups: randomSplit(rnd, servers, homes), From: at, For: length})
		case x < 0.7:
			planned = append(planned, scene.SlowLink{A: sequencer, B: servers[1+rnd.Intn(len(servers)-1)], Link: slow, From: at, For: length})
		case x < 0.9 || n > 1:
			planned = append(planned, scene.Crash{Node: servers[1+rnd.Intn(len(servers)-1)], At: at, For: length})
		default:
			return append(planned, scene.Crash{Node: sequencer, At: at})
		}
		at += length + time.Duration(rnd.Int63n(int64(400*time.Millisecond)))
	}
	return planned
}

// randomSplit splits the servers in two or three groups, each with the
// controllers whose server it holds.
func randomSplit(rnd *rand.Rand, servers []sim.NodeID, homes map[sim.NodeID]sim.NodeID) [][]sim.NodeID {
	var groups [][]sim.NodeID
	if rnd.Intn(4) == 0 { // every server alone
		for _, s := range servers {
			groups = append(groups, []sim.NodeID{s})
		}
	} else { // one server cut off from the other two
		alone := rnd.Intn(len(servers))
		groups = [][]sim.NodeID{{servers[alone]}, nil}
		for i, s := range servers {
			if i != alone {
				groups[1] = append(groups[1], s)
			}
		}
	}
	for i, g := range groups {
		for _, c := range slices.Sorted(maps.Keys(homes)) {
			if slices.Contains(g, homes[c]) {
				groups[i] = append(groups[i], c)
			}
		}
	}
	return groups
}
