package ex14

import (
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// tick is how often the controller asks the detector for its verdicts.
const tick = time.Second

// Verdict is what the detector says of one node.
type Verdict int

const (
	// Healthy: nothing to do; a taint the controller set is lifted.
	Healthy Verdict = iota
	// Suspect: the node is tainted NoSchedule (Ready Unknown): no new pods
	// go there, and the pods it runs stay.
	Suspect
	// Convict: the node's pods are evicted (deleted), to be made again
	// elsewhere. The controller taints the node first if it had not.
	Convict
)

// String is "healthy", "suspect" or "convict".
func (v Verdict) String() string {
	switch v {
	case Suspect:
		return "suspect"
	case Convict:
		return "convict"
	}
	return "healthy"
}

// Run is the node controller: on p, until the world ends, it watches the
// nodes through api (an informer on "nodes"), tells the detector of every
// node as it sees it change, and every tick acts on the detector's
// verdicts. It evicts a node's pods once; a node that comes back after
// that keeps running what it runs.
func Run(p *sim.Proc, api *kube.Client, nodes []string) {
	d := NewDetector(nodes)
	inf := kube.NewInformer(p, api, "nodes", kube.WatchWait(time.Minute))
	inf.OnChange(func(ev kube.Event) {
		if ev.Type != kube.Deleted {
			d.Observe(ev.Object, p.Clock())
		}
	})
	tainted := map[string]bool{}
	evicted := map[string]bool{}
	for {
		p.Sleep(tick)
		verdicts := d.Judge(p.Clock())
		for _, name := range nodes {
			v := verdicts[name]
			if v != Healthy && !tainted[name] {
				tainted[name] = setTaint(api, name, true)
			}
			if v == Healthy && tainted[name] {
				tainted[name] = !setTaint(api, name, false)
			}
			if v == Convict && tainted[name] && !evicted[name] {
				evicted[name] = evict(api, name)
			}
		}
	}
}

// setTaint taints node name NoSchedule, Ready Unknown (on), or lifts the
// taint (off). It reports whether the write was made.
func setTaint(api *kube.Client, name string, on bool) bool {
	n, err := api.Get(kube.NodeKey(name), kube.ReadOptions{})
	if err != nil {
		return false
	}
	n.Status.NoSchedule = on
	if on {
		n.Status.Ready = kube.ConditionUnknown
	}
	_, err = api.Update(n)
	return err == nil
}

// evict deletes every pod bound to node name. It reports whether every
// delete was made.
func evict(api *kube.Client, name string) bool {
	pods, err := api.List("pods", kube.ReadOptions{})
	if err != nil {
		return false
	}
	ok := true
	for _, pod := range kube.PodsOn(pods.Items, name) {
		if _, err := api.Delete(pod.Key(), pod.ResourceVersion); err != nil {
			ok = false
		}
	}
	return ok
}
