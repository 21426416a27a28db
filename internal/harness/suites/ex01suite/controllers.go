package ex01suite

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The two-controllers check: kubectl scales deployments/web and deletes its
// pods now and then; controller-a, a ReplicaSet controller, keeps the pods
// at the desired count; the dashboard, a second controller, only watches.
// Each of the two is cut off from server-1 at random moments. Once the
// network has healed and everything has had time to settle, both are asked
// the same question at the same virtual instant (how many pods does
// deployments/web own?) and must give the answer the store gives; and that
// answer must be exactly the desired count.

func twoControllers(t *testing.T, mk func(int) kube.Storage) {
	var cov check.Coverage
	for _, seed := range suite.Seeds(100) {
		ok, exercised := twoControllersRun(t, mk, seed)
		if !ok {
			return
		}
		cov.Add(seed, exercised)
	}
	suite.Coverage(t, &cov, 0.9)
}

// readerAnswer is what one reader says about deployments/web.
type readerAnswer struct {
	who  string
	rv   int64
	pods []string
}

func (a readerAnswer) String() string {
	return fmt.Sprintf("%-13s rv %-3d %d pods: %s", a.who+":", a.rv, len(a.pods), strings.Join(a.pods, " "))
}

func twoControllersRun(t *testing.T, mk func(int) kube.Storage, seed int64) (bool, *check.Violation) {
	t.Helper()
	w := sim.New(seed, sim.Latency(2*ms, 60*ms))
	defer w.Close()
	r := w.Rand()
	cols := []sim.NodeID{"kubectl", server, "controller-a", "dashboard"}
	const workEnd = 6000 * ms
	judgeAt := 13000 * ms

	retain := 50 + r.Intn(50)
	store := mk(retain)
	aud := newAuditor(store, retain)
	w.AddNode(server, func(p *sim.Proc) { p.Serve(aud.Handler()) })

	h := check.NewHistory()
	w.AddNode("kubectl", func(p *sim.Proc) {
		c := kube.NewClient(p, server).Named("kubectl").Record(h)
		c.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3 + p.Rand().Intn(3)})
		p.Sleep(500 * ms)
		for p.Now() < workEnd-700*ms {
			p.Sleep(time.Duration(200+p.Rand().Intn(500)) * ms)
			if p.Rand().Intn(3) == 0 {
				d, err := c.Get("deployments/web", kube.ReadOptions{})
				if err == nil {
					d.Replicas = 1 + p.Rand().Intn(6)
					c.Update(d)
				}
				continue
			}
			l, err := c.List("pods", kube.ReadOptions{})
			if err == nil && len(l.Items) > 0 {
				c.Delete(l.Items[p.Rand().Intn(len(l.Items))].Key(), 0)
			}
		}
	})

	var rc *kube.ReplicaSetController
	w.AddNode("controller-a", func(p *sim.Proc) {
		rc = kube.NewReplicaSetController(p, kube.NewClient(p, server).Named("controller-a").Record(h), 1)
		// A resync every 2s, as client-go's informers offer: it lets the
		// controller recover from a create of its own it never saw; it
		// cannot help a cache that holds a pod the store no longer has.
		rc.ResyncEvery(p, 2*time.Second)
	})
	var dashPods *kube.Informer
	w.AddNode("dashboard", func(p *sim.Proc) {
		c := kube.NewClient(p, server).Named("dashboard")
		dashPods = kube.NewInformer(p, c, "pods")
	})

	// Cut off one controller or the other, a few times, one at a time.
	at := 600 * ms
	for at < workEnd-500*ms {
		at += time.Duration(100+r.Intn(700)) * ms
		target := []sim.NodeID{"controller-a", "dashboard"}[r.Intn(2)]
		cut, heal := at, at+time.Duration(300+r.Intn(1500))*ms
		w.At(cut, func() { w.Partition([]sim.NodeID{target}) })
		w.At(heal, w.Heal)
		at = heal
	}

	var answers []readerAnswer
	var truth readerAnswer
	var desired int
	var judgeErr error
	w.At(judgeAt, func() {
		ownedBy := func(objs []kube.Object) []string {
			var out []string
			for _, o := range objs {
				if o.Owner == "deployments/web" {
					out = append(out, o.Key())
				}
			}
			return out
		}
		answers = []readerAnswer{
			{who: "controller-a", rv: rc.Pods.ResourceVersion(), pods: ownedBy(rc.Pods.List())},
			{who: "dashboard", rv: dashPods.ResourceVersion(), pods: ownedBy(dashPods.List())},
		}
		w.Go(server, "judge", func(p *sim.Proc) {
			resp, err := aud.Do(p, "the check", kube.ListRequest{Kind: "pods"})
			l, _ := resp.(kube.List)
			dresp, derr := aud.Do(p, "the check", kube.GetRequest{Key: "deployments/web"})
			d, _ := dresp.(kube.Object)
			if err == nil {
				err = derr
			}
			truth, desired, judgeErr = readerAnswer{who: string(server), rv: l.ResourceVersion, pods: ownedBy(l.Items)}, d.Replicas, err
			p.World().Stop()
		})
	})

	if err := w.Run(judgeAt + time.Second); err != nil {
		runFailure(t, w, seed, err, cols)
		return false, nil
	}
	faults := suite.Faults(w)
	exercised := check.Exercised(h, faults, 5)

	report := func(name, story string, at time.Duration) (bool, *check.Violation) {
		details := ""
		for _, a := range append(answers, truth) {
			details += a.String() + "\n"
		}
		details += fmt.Sprintf("deployments/web desires %d pods\nfaults: %s", desired, faultList(faults))
		suite.Report(t, suite.Failure{Name: name, Clause: course.OneHistory, Story: story, At: at, Seed: seed, Details: details,
			Timeline: w.Timeline(sim.TimelineOptions{Columns: cols, Focus: at, MaxRows: 40, Width: 30})})
		return false, nil
	}
	if f := aud.Finding(); f != nil {
		f.Clause, f.Seed = course.OneHistory, seed
		f.Details += "\nfaults: " + faultList(faults)
		f.Timeline = w.Timeline(sim.TimelineOptions{Columns: cols, Focus: f.At, MaxRows: 40, Width: 30})
		suite.Report(t, *f)
		return false, nil
	}
	if judgeErr != nil {
		return report("wrong-answer", fmt.Sprintf("at %s server-1 could not answer a list of pods or a get of deployments/web: %s",
			suite.FormatTime(judgeAt), errKind(judgeErr)), judgeAt)
	}
	question := fmt.Sprintf("at %s, long after the last fault healed, controller-a and the dashboard asked the same question at the same instant: "+
		"which pods does deployments/web own? ", suite.FormatTime(judgeAt))
	for _, a := range answers {
		if strings.Join(a.pods, ",") == strings.Join(truth.pods, ",") {
			continue
		}
		ghost, gone := diff(a.pods, truth.pods)
		story := question + fmt.Sprintf("%s answered %d pods (cache at rv %d), %s holds %d (rv %d). ",
			a.who, len(a.pods), a.rv, server, len(truth.pods), truth.rv)
		at := judgeAt
		if ghost != "" {
			story += fmt.Sprintf("%s's cache still holds %s", a.who, ghost)
			if op, ok := deletion(h, ghost); ok {
				story += fmt.Sprintf(", which %s deleted at %s (rv %d): the deletion never reached it", op.Client, suite.FormatTime(op.Return.Round(100*time.Microsecond)), op.Result.Version)
				at = op.Return.Round(100 * time.Microsecond)
			}
		} else {
			story += fmt.Sprintf("%s's cache lacks %s", a.who, gone)
		}
		return report("missed-change", story, at)
	}
	if len(truth.pods) != desired {
		return report("no-convergence", question+fmt.Sprintf("both agree with %s on %d pods, but deployments/web desires %d: "+
			"the controller never closed the gap", server, len(truth.pods), desired), judgeAt)
	}
	return true, exercised
}

// diff returns a key in a and not in b, and a key in b and not in a.
func diff(a, b []string) (onlyA, onlyB string) {
	for _, k := range a {
		if !contains(b, k) {
			onlyA = k
			break
		}
	}
	for _, k := range b {
		if !contains(a, k) {
			onlyB = k
			break
		}
	}
	return onlyA, onlyB
}

// deletion finds the acknowledged deletion of key in h.
func deletion(h *check.History, key string) (check.Operation, bool) {
	for _, op := range h.Operations() {
		if op.Input.Kind == check.KindDelete && op.Input.Key == key && op.Acknowledged() {
			return op, true
		}
	}
	return check.Operation{}, false
}

func faultList(fs []check.Fault) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, "; ")
}
