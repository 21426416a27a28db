package ex12suite

import (
	"fmt"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// noopRun is what the no-op world's client asked and heard.
type noopRun struct {
	created kube.Object
	tries   []noopTry
}

// noopTry is one write that changes nothing, and the version it came back
// with.
type noopTry struct {
	what string
	at   time.Duration
	got  kube.Object
	err  error
}

func noopWorld(seed int64, impl Impl) *world {
	w := newWorld(seed, impl, logLink)
	run := &noopRun{}
	w.noop = run
	w.addCreator(engineer, func(p *sim.Proc, c *kube.Client, created kube.Object) {
		run.created = created
		try := func(what string, f func() (kube.Object, error)) {
			t := noopTry{what: what, at: p.Now()}
			t.got, t.err = f()
			run.tries = append(run.tries, t)
		}
		same := run.created
		try(fmt.Sprintf("an update of %s to the same %s, if rv %d", web, fields(same), same.ResourceVersion), func() (kube.Object, error) { return c.Update(same) })
		blind := same
		blind.ResourceVersion = 0
		try(fmt.Sprintf("an update of %s to the same %s, unconditional", web, fields(same)), func() (kube.Object, error) { return c.Update(blind) })
		try(fmt.Sprintf("GuaranteedUpdate of %s setting replicas %d, which it has", web, storyReplicas), func() (kube.Object, error) {
			return impl.Update(c, web, func(o *kube.Object) { o.Replicas = storyReplicas })
		})
	})
	w.auditAt(6 * time.Second)
	w.Run(10 * time.Second)
	return w
}

// noopRevision: every write that changed nothing came back with the version
// web was created at, and no server's history holds a second change of web.
func noopRevision(w *world) *suite.Failure {
	r := w.noop
	if r == nil {
		return nil
	}
	for _, t := range r.tries {
		if t.err != nil {
			return &suite.Failure{Name: "no-op-refused", Clause: course.OneHistory, At: t.at,
				Story: fmt.Sprintf("at %s %s was answered %v: a write that changes nothing, on a version that still holds, must succeed",
					suite.FormatTime(t.at), t.what, t.err)}
		}
		if t.got.ResourceVersion != r.created.ResourceVersion {
			return &suite.Failure{Name: "no-op-revision", Clause: course.OneHistory, At: t.at,
				Story: fmt.Sprintf("at %s %s came back at rv %d, not rv %d: a write that changes nothing made a revision, and every watcher of web hears of a change that is none",
					suite.FormatTime(t.at), t.what, t.got.ResourceVersion, r.created.ResourceVersion)}
		}
	}
	for _, id := range w.Servers {
		n := 0
		for _, ev := range w.events[id] {
			if ev.Object.Key() == web {
				n++
			}
		}
		if n > 1 {
			return &suite.Failure{Name: "no-op-revision", Clause: course.OneHistory, At: w.W.Now(),
				Story: fmt.Sprintf("%s's history holds %d changes of %s, where only its creation changed anything: a write that changes nothing made a revision, and a watch hears of it",
					id, n, web)}
		}
	}
	return nil
}
