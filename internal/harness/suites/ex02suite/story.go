package ex02suite

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The page's times. The world starts at 02:10:00; the apiserver fails at
// 02:14 and is restarted four minutes later, at 02:18.
const (
	crashAt   = 4 * time.Minute
	restartAt = 8 * time.Minute
	storyEnd  = 9 * time.Minute
	period    = time.Second // how often the controllers look
)

// page is the page's fault: the apiserver down from 02:14 to 02:18.
var page = scene.Crash{Node: apiserver, At: crashAt, For: restartAt - crashAt}

// clock is a virtual time as the on-call engineer's clock shows it.
func clock(d time.Duration) string {
	t := 2*time.Hour + 10*time.Minute + d
	return fmt.Sprintf("%02d:%02d:%02d", int(t.Hours()), int(t.Minutes())%60, int(t.Seconds())%60)
}

// kubelet is node-1's agent: it runs a container for every pod the
// apiserver lists and stops the container of a pod the apiserver no longer
// lists. It cannot tell a deleted pod from a forgotten one.
type kubelet struct {
	running map[string]bool
	stopped []string      // containers stopped because their pod vanished
	firstAt time.Duration // when the first was stopped
}

func (k *kubelet) run(p *sim.Proc) {
	c := kube.NewClient(p, apiserver).Quiet()
	for {
		if l, err := c.List("pods", kube.ReadOptions{}); err == nil {
			listed := map[string]bool{}
			for _, o := range l.Items {
				listed[o.Name] = true
				if !k.running[o.Name] {
					k.running[o.Name] = true
					p.Logf("started container %s", o.Name)
				}
			}
			for _, name := range slices.Sorted(maps.Keys(k.running)) {
				if !listed[name] {
					delete(k.running, name)
					if len(k.stopped) == 0 {
						k.firstAt = p.Now()
					}
					k.stopped = append(k.stopped, name)
					p.Logf("stopped container %s: its pod is gone", name)
				}
			}
		}
		p.Sleep(period)
	}
}

// replicaController keeps, for every deployment, as many pods as it asks
// for: web-1 … web-N. act is its recording client, for the pods it creates.
func replicaController(p *sim.Proc, act *kube.Client) {
	look := kube.NewClient(p, apiserver).Quiet() // reads are not recorded: the story checks what survived
	blind := false
	for ; ; p.Sleep(period) {
		deps, err := look.List("deployments", kube.ReadOptions{})
		var pods kube.List
		if err == nil {
			pods, err = look.List("pods", kube.ReadOptions{})
		}
		if err != nil {
			if !blind {
				p.Logf("cannot observe the cluster: %s", reason(err))
				blind = true
			}
			continue
		}
		if blind {
			p.Logf("observing again: %d deployments, %d pods", len(deps.Items), len(pods.Items))
			blind = false
		}
		have := map[string]bool{}
		for _, o := range pods.Items {
			have[o.Name] = true
		}
		for _, d := range deps.Items {
			for i := 1; i <= d.Replicas; i++ {
				name := fmt.Sprintf("%s-%d", d.Name, i)
				if !have[name] {
					_, _ = act.Create(kube.Object{Kind: "pods", Name: name, Owner: d.Key()})
				}
			}
		}
	}
}

// reason is an API error's reason: "Unavailable"; for an error that is not
// itself (unwrapped) a kube.StatusError, or a pointer to one a server made,
// its text.
func reason(err error) string {
	switch se := err.(type) {
	case kube.StatusError:
		return se.Reason
	case *kube.StatusError:
		return se.Reason
	}
	return err.Error()
}

// pageWorld builds and runs the page itself for seed, which decides only
// the jitter: when kubectl creates web, and each message's delay. kubectl
// creates deployments/web with five replicas, the controller-manager
// creates its pods, node-1 runs their containers; the apiserver crashes at
// 02:14 and is restarted at 02:18.
func pageWorld(seed int64, open func(p *sim.Proc) kube.Storage) *cluster {
	c := newCluster(seed, open, []sim.NodeID{apiserver, "controller-manager", "node-1"})
	c.node1 = &kubelet{running: map[string]bool{}}
	c.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(time.Duration(p.Rand().Intn(500)) * time.Millisecond)
		_, _ = api.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 5})
	})
	c.Client("controller-manager", replicaController)
	c.W.AddNode("node-1", c.node1.run)
	c.Inject(page)
	c.auditAt(storyEnd-time.Millisecond, "deployments", "pods")
	c.Run(storyEnd)
	return c
}

// explainedButLost is the journal's explanation, unless it is an
// acknowledged change lost, which the page tells in its own words
// (pageLost), with the journal's in its details.
func explainedButLost(c *cluster) *suite.Failure {
	if f := c.j.explain(); f != nil && (f.Name != "lost-acknowledged-write" || c.lost() == nil) {
		return c.told(f)
	}
	return nil
}

// pageToldable: the apiserver acknowledged the deployment and its five pods
// before the crash, or the page cannot be told.
func pageToldable(c *cluster) *suite.Failure {
	if acked := c.ackedBefore(crashAt); acked < 6 {
		return c.told(&suite.Failure{Name: "vacuous-run", At: crashAt, Story: fmt.Sprintf(
			"before the crash at %s the apiserver had acknowledged only %d changes (the deployment and its 5 pods make 6): the page cannot be told",
			clock(crashAt), acked)})
	}
	return nil
}

// pageLost: everything acknowledged before the crash is there afterwards;
// what was lost is told as the page, with what node-1 made of it.
func pageLost(c *cluster) *suite.Failure {
	v := c.lost()
	if v == nil {
		return nil
	}
	acked, k := c.ackedBefore(crashAt), c.node1
	story := fmt.Sprintf("the apiserver acknowledged %d changes before it crashed at %s (%s) and came back at %s (%s) holding %d of them: "+
		"for %s (%.0f minutes) there was no cluster, and then a different one",
		acked, clock(crashAt), suite.FormatTime(crashAt), clock(restartAt), suite.FormatTime(restartAt), acked-len(v.Ops), suite.FormatTime(page.For), page.For.Minutes())
	if len(k.stopped) > 0 {
		story += fmt.Sprintf("; taking it for the truth, node-1 stopped %d running containers (%s) at %s",
			len(k.stopped), strings.Join(k.stopped, ", "), suite.FormatTime(k.firstAt))
	}
	first := v.Story
	if found := c.j.explain(); found != nil {
		first = found.Story
	}
	return c.told(&suite.Failure{Name: "lost-acknowledged-write", At: restartAt, Story: story,
		Details: "first lost: " + first + "\n\n" + v.Details + c.crashLines()})
}

// containersKept: node-1 never stopped a container because the apiserver
// stopped listing its pod, and runs the five web asks for.
func containersKept(c *cluster) *suite.Failure {
	k := c.node1
	switch {
	case len(k.stopped) > 0:
		return c.told(&suite.Failure{Name: "acted-on-emptiness", At: k.firstAt, Story: fmt.Sprintf(
			"every acknowledged change survived, yet node-1 stopped %d running containers (%s) at %s because the apiserver stopped listing their pods",
			len(k.stopped), strings.Join(k.stopped, ", "), suite.FormatTime(k.firstAt)), Details: c.crashLines()})
	case len(k.running) != 5:
		return c.told(&suite.Failure{Name: "acted-on-emptiness", At: storyEnd, Story: fmt.Sprintf(
			"at %s node-1 runs %d containers where deployments/web asks for 5", clock(storyEnd), len(k.running)), Details: c.crashLines()})
	}
	return nil
}
