package ex01suite

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The reconnect check, the story of the chapter: kubectl creates
// deployments/web with 5 pods; the controller's informer lists them and
// watches. Then the controller's node is cut off from server-1, and while it
// is away kubectl deletes one pod. When the network heals, the informer
// resumes its watch from the last version it saw, as client-go's reflector
// does, and must learn of the deletion.

const (
	reconnectRetain = 1000 // more than the scene ever writes: nothing is compacted
	reconnectPods   = 5
)

// reconnected is what a reconnect world built and what its clients saw.
type reconnected struct {
	cut      scene.Partition // the controller alone, while kubectl deletes
	deleteAt time.Duration
	judgeAt  time.Duration
	victim   string

	before    int         // pods of web the informer held when it was cut off
	deleted   kube.Object // the deletion's answer
	deleteErr error
	cached    []string // the informer's pods of web when the judge asked, and its version
	cachedRV  int64
	truth     kube.List // the store's pods then
	truthErr  error
}

// reconnectWorld builds and runs the world of seed, which draws when the
// controller is cut off, when kubectl deletes, which pod, and when the
// network heals.
func reconnectWorld(seed int64, mk func(int) kube.Storage) *world {
	w := newWorld(seed, mk, 2*ms, 40*ms, func(*rand.Rand) int { return reconnectRetain })
	x := &reconnected{}
	w.reconnect = x
	r := w.W.Rand()
	cutAt := 1000*ms + time.Duration(r.Intn(500))*ms
	x.deleteAt = cutAt + 200*ms + time.Duration(r.Intn(600))*ms
	healAt := x.deleteAt + 500*ms + time.Duration(r.Intn(1500))*ms
	x.cut = scene.Partition{Groups: [][]sim.NodeID{{"controller"}}, From: cutAt, For: healAt - cutAt}
	x.judgeAt = healAt + 3000*ms
	x.victim = fmt.Sprintf("pods/web-%d", 1+r.Intn(reconnectPods))
	var inf *kube.Informer // the controller's, from 300ms on

	w.Client("kubectl", func(p *sim.Proc, _ *kube.Client) {
		api := w.unrecorded(p) // the check compares caches, not recorded histories
		api.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: reconnectPods})
		for i := 1; i <= reconnectPods; i++ {
			api.Create(kube.Object{Kind: "pods", Name: fmt.Sprintf("web-%d", i), Owner: web})
		}
		p.Sleep(x.deleteAt - p.Now())
		p.Logf("kubectl: the controller is cut off; delete %s", x.victim)
		x.deleted, x.deleteErr = api.Delete(x.victim, 0)
	})
	// The informer lists once, then watches from the last version it has
	// seen. After a failed watch (the network is cut) it asks again from the
	// same version, every 100ms; only Gone makes it list again. That is the
	// promise a watch makes: "tell me what happened after version N" works
	// after any absence, or says plainly that it cannot.
	w.Client("controller", func(p *sim.Proc, _ *kube.Client) {
		p.Sleep(300 * ms)
		inf = kube.NewInformer(p, w.unrecorded(p), "pods", kube.ListFrom(kube.Latest), kube.WatchWait(time.Second), kube.RetryBackoff(100*ms, 100*ms))
	})
	w.Inject(x.cut)
	w.W.At(cutAt, func() { x.before = len(owned(inf.List())) })
	// The judge asks the store itself at the instant the controller counts.
	w.endAt(x.judgeAt, func() { x.cached, x.cachedRV = owned(inf.List()), inf.ResourceVersion() }, func(p *sim.Proc) {
		resp, err := w.aud.Serve(p, "the check", kube.ListRequest{Kind: "pods"})
		x.truth, _ = resp.(kube.List)
		x.truthErr = err
	})
	w.Lanes("kubectl", server, "controller")
	w.Run(x.judgeAt + time.Second)
	return w
}

// wrongAnswerButMissed is the auditor's finding, unless it is a change a
// watch missed: that one is told as the scene saw it (cacheAgrees), with
// the answer that missed it in the details.
func wrongAnswerButMissed(w *world) *suite.Failure {
	if f := wrongAnswer(w); f != nil && f.Name != "missed-change" {
		return f
	}
	return nil
}

// deleted: kubectl's deletion of a pod that existed succeeded.
func deleted(w *world) *suite.Failure {
	x := w.reconnect
	if x.deleteErr == nil {
		return nil
	}
	return &suite.Failure{Name: "wrong-answer", Clause: course.OneHistory, At: x.deleteAt,
		Story: fmt.Sprintf("at %s kubectl deleted %s on %s and was answered %s; the pod existed, so the delete must succeed",
			suite.FormatTime(x.deleteAt), x.victim, server, errKind(x.deleteErr))}
}

// caughtUp: the informer held every pod when it was cut off, or the
// world tested nothing.
func caughtUp(w *world) *suite.Failure {
	x := w.reconnect
	if x.before == reconnectPods {
		return nil
	}
	return &suite.Failure{Name: "vacuous-run", Clause: course.OneHistory, At: x.cut.From,
		Story: fmt.Sprintf("the controller's informer held %d pods of %s when it was cut off at %s, not %d: "+
			"it had not caught up, so the check would test nothing", x.before, web, suite.FormatTime(x.cut.From), reconnectPods)}
}

// storeListed: the store answered the check's list.
func storeListed(w *world) *suite.Failure {
	x := w.reconnect
	if x.truthErr == nil {
		return nil
	}
	return &suite.Failure{Name: "wrong-answer", Clause: course.OneHistory, At: x.judgeAt,
		Story: fmt.Sprintf("at %s the store answered a list of pods with %s", suite.FormatTime(x.judgeAt), errKind(x.truthErr))}
}

// cacheAgrees: long after the network healed, the informer's cache holds
// the pods the store holds; if it does, a change a watch missed is told as
// the auditor found it.
func cacheAgrees(w *world) *suite.Failure {
	x := w.reconnect
	found := wrongAnswer(w)
	stored := owned(x.truth.Items)
	if slices.Equal(stored, x.cached) {
		return found
	}
	ghost := firstNotIn(x.cached, stored)
	story := fmt.Sprintf("the controller's informer was cut off from %s from %s to %s; at %s kubectl sent the deletion of %s, accepted there as rv %d. ",
		server, suite.FormatTime(x.cut.From), suite.FormatTime(x.cut.From+x.cut.For), suite.FormatTime(x.deleteAt), x.victim, x.deleted.ResourceVersion)
	if ghost != "" {
		story += fmt.Sprintf("The informer reconnected and asked for the changes after rv %d, but at %s, when the check compared, its cache still holds %s: "+
			"the controller counts %d pods for %s where %s holds %d, and will never replace the one that is gone",
			x.cachedRV, suite.FormatTime(x.judgeAt), ghost, len(x.cached), web, server, len(stored))
	} else {
		story += fmt.Sprintf("At %s, when the check compared, long after it reconnected, the informer's cache (rv %d) does not match the store: %d pods cached, %d stored",
			suite.FormatTime(x.judgeAt), x.cachedRV, len(x.cached), len(stored))
	}
	details := fmt.Sprintf("controller's cache (rv %d): %s\n%s (rv %d):        %s",
		x.cachedRV, strings.Join(x.cached, " "), server, x.truth.ResourceVersion, strings.Join(stored, " "))
	if found != nil {
		details += "\n\nthe answer that missed it: " + found.Story
	}
	return &suite.Failure{Name: "missed-change", Clause: course.OneHistory, Story: story, Details: details, At: x.deleteAt}
}
