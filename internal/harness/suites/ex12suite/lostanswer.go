package ex12suite

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The lost-answer world, stated once: a load balancer in front of server-1
// that loses the answer to each client's first update, after the server
// made it.
const (
	balancer     sim.NodeID = "lb"
	apiReplicas             = 3
	hpaAdds                 = 2
	lostAnswerAt            = 12 * time.Second
)

// lostAnswerRun is what the balancer lost and what each writer's
// GuaranteedUpdate reported.
type lostAnswerRun struct {
	lost     map[string]lost // by client: the update whose answer the balancer lost
	editErr  error           // the engineer's GuaranteedUpdate of web's image
	editAt   time.Duration   // when it returned
	editDone bool
}

// lost is an update whose answer the balancer lost.
type lost struct {
	req kube.UpdateRequest
	at  time.Duration // when the server's answer reached the balancer
	err error         // the answer the client never heard
}

func lostAnswerWorld(seed int64, impl Impl) *world {
	w := newWorld(seed, impl, logLink)
	run := &lostAnswerRun{lost: map[string]lost{}}
	w.lostAnswer = run
	w.counter, w.initial = api, apiReplicas
	w.W.AddNode(balancer, func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			reply, err := p.Call(storyServer, req, requestTimeout)
			if u, ok := req.(kube.UpdateRequest); ok {
				if _, done := run.lost[string(from)]; !done {
					run.lost[string(from)] = lost{req: u, at: p.Now(), err: err}
					p.Logf("the answer to %s's %s is lost", from, u)
					p.Sleep(2 * requestTimeout)
				}
			}
			return reply, err
		})
	})
	w.W.AddNode("kubectl-setup", func(p *sim.Proc) {
		c := w.clientOn(p, storyServer)
		for _, o := range []kube.Object{
			{Kind: "deployments", Name: "web", Replicas: storyReplicas, Image: storyImage},
			{Kind: "deployments", Name: "api", Replicas: apiReplicas},
		} {
			for {
				if _, err := c.Create(o); err == nil || errors.Is(err, kube.ErrAlreadyExists) {
					break
				}
			}
		}
	})
	w.W.AddNode(engineer, func(p *sim.Proc) {
		p.Sleep(1500*ms + time.Duration(p.Rand().Intn(100))*ms)
		_, run.editErr = impl.Update(w.clientOn(p, balancer), web, func(o *kube.Object) { o.Image = editImage })
		run.editAt, run.editDone = p.Now(), true
	})
	w.W.AddNode(hpa, func(p *sim.Proc) {
		p.Sleep(1500*ms + time.Duration(p.Rand().Intn(100))*ms)
		w.increment(impl, p, w.clientOn(p, balancer), hpaAdds)
	})
	w.auditAt(lostAnswerAt)
	w.Run(lostAnswerAt + 5*time.Second)
	return w
}

// answerNotLost: the world is about a lost answer, so each writer must
// have sent an update whose answer the balancer lost. Could not decide is
// a failure.
func answerNotLost(w *world) *suite.Failure {
	r := w.lostAnswer
	for _, who := range []sim.NodeID{engineer, hpa} {
		if _, ok := r.lost[string(who)]; !ok {
			return &suite.Failure{Name: "no-update-sent", Clause: course.AgreementFirst, At: w.W.Now(),
				Story: fmt.Sprintf("%s's GuaranteedUpdate sent no update through %s by %s, so the suite could not decide what it does when an update's answer is lost",
					who, balancer, suite.FormatTime(w.W.Now()))}
		}
	}
	return nil
}

// reportedFailed: the engineer's change is one a read can tell (web's
// image is web:v2 or it is not): GuaranteedUpdate must report it made when
// it was made, and must make it once.
func reportedFailed(w *world) *suite.Failure {
	r := w.lostAnswer
	l := r.lost[string(engineer)]
	var made []kube.Event
	for _, ev := range w.longest() {
		if ev.Object.Key() == web && ev.Type == kube.Modified {
			made = append(made, ev)
		}
	}
	if len(made) > 1 {
		return &suite.Failure{Name: "double-apply", Clause: course.OneHistory, At: l.at,
			Story: fmt.Sprintf("%s's %s was made (its answer lost at %s), and GuaranteedUpdate made it again: the history holds %d changes of %s (rv %d and rv %d), where the engineer asked for one",
				engineer, l.req, suite.FormatTime(l.at), len(made), web, made[0].Object.ResourceVersion, made[1].Object.ResourceVersion)}
	}
	if !r.editDone {
		return &suite.Failure{Name: "update-never-returned", Clause: course.AgreementFirst, At: w.W.Now(),
			Story: fmt.Sprintf("%s's GuaranteedUpdate of %s had not returned by %s", engineer, web, suite.FormatTime(w.W.Now()))}
	}
	if r.editErr != nil && len(made) == 1 && made[0].Object.Image == editImage {
		return &suite.Failure{Name: "made-reported-failed", Clause: course.AgreementFirst, At: r.editAt,
			Story: fmt.Sprintf("at %s %s's GuaranteedUpdate of %s (image %s) returned %v, but the change was made at rv %d (its answer lost at %s), and a read at any time since shows image %s: a write that took effect, reported as not known or failed",
				suite.FormatTime(r.editAt), engineer, web, editImage, r.editErr, made[0].Object.ResourceVersion, suite.FormatTime(l.at), editImage)}
	}
	return nil
}
