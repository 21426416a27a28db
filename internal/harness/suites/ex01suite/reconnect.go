package ex01suite

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The reconnect check, the story of the chapter: kubectl creates
// deployments/web with 5 pods; the controller's informer lists them and
// watches. Then the controller's node is cut off from server-1, and while it
// is away kubectl deletes one pod. When the network heals, the informer
// resumes its watch from the last version it saw, as client-go's reflector
// does, and must learn of the deletion.

// owned lists the cached pods deployment owner owns, by key; none before
// the informer exists.
func owned(inf *kube.Informer, owner string) []string {
	if inf == nil {
		return nil
	}
	var out []string
	for _, o := range inf.List() {
		if o.Owner == owner {
			out = append(out, o.Key())
		}
	}
	return sortedStrings(out)
}

func reconnect(t *testing.T, mk func(int) kube.Storage) {
	for _, seed := range suite.Seeds(100) {
		if !reconnectRun(t, mk, seed) {
			return
		}
	}
}

func reconnectRun(t *testing.T, mk func(int) kube.Storage, seed int64) bool {
	t.Helper()
	w := sim.New(seed, sim.Latency(2*ms, 40*ms))
	defer w.Close()
	r := w.Rand()
	cutAt := 1000*ms + time.Duration(r.Intn(500))*ms
	deleteAt := cutAt + 200*ms + time.Duration(r.Intn(600))*ms
	healAt := deleteAt + 500*ms + time.Duration(r.Intn(1500))*ms
	judgeAt := healAt + 3000*ms
	victim := fmt.Sprintf("pods/web-%d", 1+r.Intn(5))
	cols := []sim.NodeID{"kubectl", server, "controller"}

	store := mk(1000)
	aud := newAuditor(store, 1000)
	w.AddNode(server, func(p *sim.Proc) { p.Serve(aud.Handler()) })

	var deleted kube.Object
	var deleteErr error
	w.AddNode("kubectl", func(p *sim.Proc) {
		c := kube.NewClient(p, server).Named("kubectl")
		c.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 5})
		for i := 1; i <= 5; i++ {
			c.Create(kube.Object{Kind: "pods", Name: fmt.Sprintf("web-%d", i), Owner: "deployments/web"})
		}
		p.Sleep(deleteAt - p.Now())
		p.Logf("kubectl: the controller is cut off; delete %s", victim)
		deleted, deleteErr = c.Delete(victim, 0)
	})

	// The informer lists once, then watches from the last version it has
	// seen. After a failed watch (the network is cut) it asks again from the
	// same version, every 100ms; only Gone makes it list again. That is the
	// promise a watch makes: "tell me what happened after version N" works
	// after any absence, or says plainly that it cannot.
	var inf *kube.Informer
	w.AddNode("controller", func(p *sim.Proc) {
		p.Sleep(300 * ms)
		inf = kube.NewInformer(p, kube.NewClient(p, server).Named("controller"), "pods",
			kube.ListFrom(kube.Latest), kube.WatchWait(time.Second), kube.RetryBackoff(100*ms, 100*ms))
	})

	var before int
	w.At(cutAt, func() {
		before = len(owned(inf, "deployments/web"))
		w.Partition([]sim.NodeID{"controller"}, []sim.NodeID{server, "kubectl"})
	})
	w.At(healAt, w.Heal)

	// The judge asks the store itself, in a process of its node, at the
	// same instant the controller counts.
	var truth kube.List
	var truthErr error
	var cached []string
	var cachedRV int64
	w.At(judgeAt, func() {
		cached, cachedRV = owned(inf, "deployments/web"), inf.ResourceVersion()
		w.Go(server, "judge", func(p *sim.Proc) {
			resp, err := aud.Do(p, "the check", kube.ListRequest{Kind: "pods"})
			truth, _ = resp.(kube.List)
			truthErr = err
			p.World().Stop()
		})
	})

	if err := w.Run(judgeAt + time.Second); err != nil {
		runFailure(t, w, seed, err, cols)
		return false
	}
	fail := func(name, story, details string, at time.Duration) bool {
		suite.Report(t, suite.Failure{Name: name, Clause: course.OneHistory, Story: story, At: at, Seed: seed,
			Details:  details,
			Timeline: w.Timeline(sim.TimelineOptions{Columns: cols, Focus: at, MaxRows: 40, Width: 30})})
		return false
	}
	// The auditor names the store's wrong answer; a missed change is told
	// as the scene saw it, with the answer that missed it in the details.
	found := aud.Finding()
	if found != nil && found.Name != "missed-change" {
		return fail(found.Name, found.Story, found.Details, found.At)
	}
	switch {
	case deleteErr != nil:
		return fail("wrong-answer", fmt.Sprintf("at %s kubectl deleted %s on %s and was answered %s; the pod existed, so the delete must succeed",
			suite.FormatTime(deleteAt), victim, server, errKind(deleteErr)), "", deleteAt)
	case before != 5:
		return fail("vacuous-run", fmt.Sprintf("the controller's informer held %d pods of deployments/web when it was cut off at %s, not 5: "+
			"it had not caught up, so the check would test nothing", before, suite.FormatTime(cutAt)), "", cutAt)
	case truthErr != nil:
		return fail("wrong-answer", fmt.Sprintf("at %s the store answered a list of pods with %s", suite.FormatTime(judgeAt), errKind(truthErr)), "", judgeAt)
	}
	var stored []string
	for _, o := range truth.Items {
		if o.Owner == "deployments/web" {
			stored = append(stored, o.Key())
		}
	}
	if strings.Join(stored, ",") == strings.Join(cached, ",") {
		if found != nil {
			return fail(found.Name, found.Story, found.Details, found.At)
		}
		return true
	}
	ghost := ""
	for _, k := range cached {
		if !contains(stored, k) {
			ghost = k
			break
		}
	}
	story := fmt.Sprintf("the controller's informer was cut off from %s from %s to %s; at %s kubectl sent the deletion of %s, accepted there as rv %d. ",
		server, suite.FormatTime(cutAt), suite.FormatTime(healAt), suite.FormatTime(deleteAt), victim, deleted.ResourceVersion)
	if ghost != "" {
		story += fmt.Sprintf("The informer reconnected and asked for the changes after rv %d, but at %s, when the check compared, its cache still holds %s: "+
			"the controller counts %d pods for deployments/web where %s holds %d, and will never replace the one that is gone",
			cachedRV, suite.FormatTime(judgeAt), ghost, len(cached), server, len(stored))
	} else {
		story += fmt.Sprintf("At %s, when the check compared, long after it reconnected, the informer's cache (rv %d) does not match the store: %d pods cached, %d stored",
			suite.FormatTime(judgeAt), cachedRV, len(cached), len(stored))
	}
	details := fmt.Sprintf("controller's cache (rv %d): %s\n%s (rv %d):        %s",
		cachedRV, strings.Join(cached, " "), server, truth.ResourceVersion, strings.Join(stored, " "))
	if found != nil {
		details += "\n\nthe answer that missed it: " + found.Story
	}
	return fail("missed-change", story, details, deleteAt)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
