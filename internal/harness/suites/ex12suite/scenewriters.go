package ex12suite

import (
	"errors"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// edit is what the engineer's GuaranteedUpdate of web's image reported.
type edit struct {
	err  error         // its answer
	at   time.Duration // when it returned
	done bool          // whether it returned at all
}

// addSetup adds kubectl-setup, which creates web and api through the story
// server, again until each exists.
func (w *world) addSetup() {
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
