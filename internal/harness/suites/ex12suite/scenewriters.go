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

// edit is what the engineer's GuaranteedUpdate of web's image reported.
type edit struct {
	err  error         // its answer
	at   time.Duration // when it returned
	done bool          // whether it returned at all
}

// create creates o through c, again until an answer says it exists: it
// returns o as the store made it, or false when an earlier try had made it
// and its answer was lost, so that the client never learned its version.
func create(c *kube.Client, o kube.Object) (kube.Object, bool) {
	for {
		made, err := c.Create(o)
		if err == nil {
			return made, true
		}
		if errors.Is(err, kube.ErrAlreadyExists) {
			return kube.Object{}, false
		}
	}
}

// addCreator adds who, a client of the story server that creates web
// (storyWeb) and, if it learned web's version so, goes on with then.
func (w *world) addCreator(who sim.NodeID, then func(p *sim.Proc, c *kube.Client, created kube.Object)) {
	w.W.AddNode(who, func(p *sim.Proc) {
		c := w.clientOn(p, storyServer)
		if created, ok := create(c, storyWeb); ok {
			then(p, c, created)
		}
	})
}

// waitFor waits on c until done holds, for at most d, and reports whether
// it holds.
func waitFor(p *sim.Proc, c *sim.Cond, d time.Duration, done func() bool) bool {
	for deadline := p.Now() + d; !done() && p.Now() < deadline; {
		c.WaitTimeout(p, deadline-p.Now())
	}
	return done()
}

// noUpdateSent fails a world in which a writer's GuaranteedUpdate sent no
// update through the balancer (sent says whether it did): the suite could
// not decide what the helper does when what the world is about happens.
func noUpdateSent(w *world, balancer sim.NodeID, sent func(who sim.NodeID) bool, about string) *suite.Failure {
	for _, who := range []sim.NodeID{engineer, hpa} {
		if !sent(who) {
			return &suite.Failure{Name: "no-update-sent", Clause: course.AgreementFirst, At: w.W.Now(),
				Story: fmt.Sprintf("%s's GuaranteedUpdate sent no update through %s by %s, so the suite could not decide what it does when %s",
					who, balancer, suite.FormatTime(w.W.Now()), about)}
		}
	}
	return nil
}

// addSetup adds kubectl-setup, which creates web and api through the story
// server, again until each exists.
func (w *world) addSetup() {
	w.W.AddNode("kubectl-setup", func(p *sim.Proc) {
		c := w.clientOn(p, storyServer)
		create(c, storyWeb)
		create(c, kube.Object{Kind: "deployments", Name: "api", Replicas: apiReplicas})
	})
}

// addEditAndIncrement adds the two writers of a scene with a balancer in
// the way: the engineer changes web's image and the autoscaler adds
// hpaAdds to api, each through the learner's helper at about 1.5s, each
// reaching the store through via. The engineer's outcome goes into e.
func (w *world) addEditAndIncrement(impl Impl, via sim.NodeID, e *edit) {
	w.W.AddNode(engineer, func(p *sim.Proc) {
		p.Sleep(1500*ms + time.Duration(p.Rand().Intn(100))*ms)
		_, e.err = impl.Update(w.clientOn(p, via), web, func(o *kube.Object) { o.Image = editImage })
		e.at, e.done = p.Now(), true
	})
	w.W.AddNode(hpa, func(p *sim.Proc) {
		p.Sleep(1500*ms + time.Duration(p.Rand().Intn(100))*ms)
		w.increment(impl, p, w.clientOn(p, via), hpaAdds)
	})
}
