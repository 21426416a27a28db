package ex01suite

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
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

// The check's numbers: kubectl's work and the faults end at workEnd; the
// readers are asked at twoJudgeAt, long after.
const (
	workEnd    = 6000 * ms
	twoJudgeAt = 13000 * ms
)

// readerAnswer is what one reader says about deployments/web.
type readerAnswer struct {
	who  string
	rv   int64
	pods []string
}

func (a readerAnswer) String() string {
	return fmt.Sprintf("%-13s rv %-3d %d pods: %s", a.who+":", a.rv, len(a.pods), strings.Join(a.pods, " "))
}

// readers is what the readers of a two-controllers world and the store
// answered at twoJudgeAt.
type readers struct {
	answers  []readerAnswer // controller-a's and the dashboard's
	truth    readerAnswer   // server-1's
	desired  int            // web's replicas, as the store holds them
	judgeErr error          // the store's error to the judge's questions
}

// controllersWorld builds and runs the world of seed, which draws the
// store's retain, kubectl's work, and when each controller is cut off.
func controllersWorld(seed int64, mk func(int) kube.Storage) *world {
	w := newWorld(seed, mk, 2*ms, 60*ms, func(r *rand.Rand) int { return 50 + r.Intn(50) })
	x := &readers{}
	w.readers = x
	r := w.W.Rand()
	w.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		api.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3 + p.Rand().Intn(3)})
		p.Sleep(500 * ms)
		for p.Now() < workEnd-700*ms {
			p.Sleep(time.Duration(200+p.Rand().Intn(500)) * ms)
			if p.Rand().Intn(3) == 0 {
				d, err := api.Get(web, kube.ReadOptions{})
				if err == nil {
					d.Replicas = 1 + p.Rand().Intn(6)
					api.Update(d)
				}
				continue
			}
			l, err := api.List("pods", kube.ReadOptions{})
			if err == nil && len(l.Items) > 0 {
				api.Delete(l.Items[p.Rand().Intn(len(l.Items))].Key(), 0)
			}
		}
	})
	var rc *kube.ReplicaSetController
	w.Client("controller-a", func(p *sim.Proc, api *kube.Client) {
		rc = kube.NewReplicaSetController(p, api, 1)
		// A resync every 2s, as client-go's informers offer: it lets the
		// controller recover from a create of its own it never saw; it
		// cannot help a cache that holds a pod the store no longer has.
		rc.ResyncEvery(p, 2*time.Second)
	})
	var dash *kube.Informer
	w.Client("dashboard", func(p *sim.Proc, api *kube.Client) { dash = kube.NewInformer(p, api, "pods") })

	// Cut off one controller or the other, a few times, one at a time.
	for at := 600 * ms; at < workEnd-500*ms; {
		at += time.Duration(100+r.Intn(700)) * ms
		target := []sim.NodeID{"controller-a", "dashboard"}[r.Intn(2)]
		cut := scene.Partition{Groups: [][]sim.NodeID{{target}}, From: at, For: time.Duration(300+r.Intn(1500)) * ms}
		w.Inject(cut)
		at = cut.From + cut.For
	}

	w.endAt(twoJudgeAt, func() {
		x.answers = []readerAnswer{
			{who: "controller-a", rv: rc.Pods.ResourceVersion(), pods: owned(rc.Pods.List())},
			{who: "dashboard", rv: dash.ResourceVersion(), pods: owned(dash.List())},
		}
	}, func(p *sim.Proc) {
		resp, err := w.aud.Serve(p, "the check", kube.ListRequest{Kind: "pods"})
		l, _ := resp.(kube.List)
		dresp, derr := w.aud.Serve(p, "the check", kube.GetRequest{Key: web})
		d, _ := dresp.(kube.Object)
		if err == nil {
			err = derr
		}
		x.truth, x.desired, x.judgeErr = readerAnswer{who: string(server), rv: l.ResourceVersion, pods: owned(l.Items)}, d.Replicas, err
	})
	w.Lanes("kubectl", server, "controller-a", "dashboard")
	w.Run(twoJudgeAt + time.Second)
	return w
}

// wrongAnswerAmidFaults is the auditor's finding, with the faults of the
// world, as they were declared, in its details.
func wrongAnswerAmidFaults(w *world) *suite.Failure {
	f := wrongAnswer(w)
	if f != nil {
		f.Details += "\nfaults:\n" + w.Describe()
	}
	return f
}

// told is a failure of the readers' world, with every answer, the desired
// count and the faults in its details.
func (w *world) told(name, story string, at time.Duration) *suite.Failure {
	x := w.readers
	details := ""
	for _, a := range append(x.answers, x.truth) {
		details += a.String() + "\n"
	}
	details += fmt.Sprintf("%s desires %d pods\nfaults:\n%s", web, x.desired, w.Describe())
	return &suite.Failure{Name: name, Clause: course.OneHistory, Story: story, At: at, Details: details}
}

// storeAnswered: server-1 answered the check's list of pods and get of web.
func storeAnswered(w *world) *suite.Failure {
	if w.readers.judgeErr == nil {
		return nil
	}
	return w.told("wrong-answer", fmt.Sprintf("at %s server-1 could not answer a list of pods or a get of %s: %s",
		suite.FormatTime(twoJudgeAt), web, errKind(w.readers.judgeErr)), twoJudgeAt)
}

// question is what the readers were asked, for stories.
var question = fmt.Sprintf("at %s, long after the last fault healed, controller-a and the dashboard asked the same question at the same instant: "+
	"which pods does %s own? ", suite.FormatTime(twoJudgeAt), web)

// readersAgree: each reader's answer is the store's.
func readersAgree(w *world) *suite.Failure {
	x := w.readers
	for _, a := range x.answers {
		if slices.Equal(a.pods, x.truth.pods) {
			continue
		}
		ghost := firstNotIn(a.pods, x.truth.pods)
		story := question + fmt.Sprintf("%s answered %d pods (cache at rv %d), %s holds %d (rv %d). ",
			a.who, len(a.pods), a.rv, server, len(x.truth.pods), x.truth.rv)
		at := twoJudgeAt
		if ghost != "" {
			story += fmt.Sprintf("%s's cache still holds %s", a.who, ghost)
			if op, ok := deletion(w.History, ghost); ok {
				at = op.Return
				story += fmt.Sprintf(", which %s deleted at %s (rv %d): the deletion never reached it", op.Client, suite.FormatTime(at), op.Result.Version)
			}
		} else {
			story += fmt.Sprintf("%s's cache lacks %s", a.who, firstNotIn(x.truth.pods, a.pods))
		}
		return w.told("missed-change", story, at)
	}
	return nil
}

// converged: the store holds exactly the pods web desires.
func converged(w *world) *suite.Failure {
	x := w.readers
	if len(x.truth.pods) == x.desired {
		return nil
	}
	return w.told("no-convergence", question+fmt.Sprintf("both agree with %s on %d pods, but %s desires %d: "+
		"the controller never closed the gap", server, len(x.truth.pods), web, x.desired), twoJudgeAt)
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
