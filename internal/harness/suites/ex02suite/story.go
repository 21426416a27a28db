package ex02suite

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
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

func (k *kubelet) run(p *sim.Proc, h *check.History) {
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
			for _, name := range sortedKeys(k.running) {
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
// for: web-1 … web-N.
func replicaController(p *sim.Proc, h *check.History) {
	look := kube.NewClient(p, apiserver).Quiet() // reads are not recorded: the story checks what survived
	act := kube.NewClient(p, apiserver).Record(h)
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

// reason is an API error's reason: "Unavailable".
func reason(err error) string {
	if se, ok := err.(*kube.StatusError); ok {
		return se.Reason
	}
	return err.Error()
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// story is the page: a crash at 02:14, a restart at 02:18, and whatever the
// controllers make of what the apiserver holds afterwards.
func story(t *testing.T, open func(p *sim.Proc) kube.Storage) {
	cols := []sim.NodeID{apiserver, "controller-manager", "node-1"}
	for _, seed := range suite.StorySeeds(3) {
		c := newCluster(seed, open, sim.Latency(time.Millisecond, 5*time.Millisecond))
		k := &kubelet{running: map[string]bool{}}
		c.w.AddNode("kubectl", func(p *sim.Proc) {
			p.Sleep(time.Duration(p.Rand().Intn(500)) * time.Millisecond)
			_, _ = kube.NewClient(p, apiserver).Record(c.h).Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 5})
		})
		c.w.AddNode("controller-manager", func(p *sim.Proc) { replicaController(p, c.h) })
		c.w.AddNode("node-1", func(p *sim.Proc) { k.run(p, c.h) })
		c.w.At(crashAt, func() { c.j.crash() })
		c.w.At(restartAt, func() { c.w.Restart(apiserver) })
		c.auditAt(storyEnd-time.Millisecond, "deployments", "pods")
		err := c.w.Run(storyEnd)
		c.w.Close()
		// The page's own telling below covers an acknowledged change lost
		// (with the journal's cause in its details); any other cause the
		// journal finds is told first.
		found := c.j.explain()
		if found != nil && (found.name != "lost-acknowledged-write" || c.lost() == nil) {
			fail(t, c, seed, found.name, found.at, found.story, found.details, cols...)
			return
		}
		if err != nil {
			runError(t, c, seed, err, cols...)
			return
		}
		acked := c.ackedBefore(crashAt)
		if acked < 6 {
			fail(t, c, seed, "vacuous-run", crashAt, fmt.Sprintf(
				"before the crash at %s the apiserver had acknowledged only %d changes (the deployment and its 5 pods make 6): the page cannot be told",
				clock(crashAt), acked), "", cols...)
			return
		}
		if v := c.lost(); v != nil {
			kept := acked - len(v.Ops)
			story := fmt.Sprintf("the apiserver acknowledged %d changes before it crashed at %s (%s) and came back at %s (%s) holding %d of them: "+
				"for %s (%.0f minutes) there was no cluster, and then a different one",
				acked, clock(crashAt), suite.FormatTime(crashAt), clock(restartAt), suite.FormatTime(restartAt), kept, suite.FormatTime(restartAt-crashAt), (restartAt - crashAt).Minutes())
			if len(k.stopped) > 0 {
				story += fmt.Sprintf("; taking it for the truth, node-1 stopped %d running containers (%s) at %s",
					len(k.stopped), strings.Join(k.stopped, ", "), suite.FormatTime(k.firstAt))
			}
			details := "first lost: " + v.Story + "\n\n" + v.Details + crashLines(c)
			if found != nil {
				details = "first lost: " + found.story + "\n\n" + v.Details + crashLines(c)
			}
			fail(t, c, seed, "lost-acknowledged-write", restartAt, story, details, cols...)
			return
		}
		if len(k.stopped) > 0 {
			fail(t, c, seed, "acted-on-emptiness", k.firstAt, fmt.Sprintf(
				"every acknowledged change survived, yet node-1 stopped %d running containers (%s) at %s because the apiserver stopped listing their pods",
				len(k.stopped), strings.Join(k.stopped, ", "), suite.FormatTime(k.firstAt)), crashLines(c), cols...)
			return
		}
		if len(k.running) != 5 {
			fail(t, c, seed, "acted-on-emptiness", storyEnd, fmt.Sprintf(
				"at %s node-1 runs %d containers where deployments/web asks for 5", clock(storyEnd), len(k.running)), crashLines(c), cols...)
			return
		}
		if !linearizable(t, c, seed, cols...) {
			return
		}
		if suite.Replaying() {
			t.Logf("seed %d: the apiserver was down from %s to %s: for %s there was no cluster; afterwards it held all %d acknowledged changes and node-1 kept its 5 containers running",
				seed, clock(crashAt), clock(restartAt), suite.FormatTime(restartAt-crashAt), acked)
		}
	}
}
