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

// The story's scene, stated once: web as it stands, what each writer sets,
// and when each reads and writes.
const (
	storyReplicas = 5
	storyImage    = "web:v1"
	hpaReplicas   = 7
	editImage     = "web:v2"

	storyServer sim.NodeID = "server-1"
	engineer    sim.NodeID = "kubectl"
	hpa         sim.NodeID = "hpa"
)

// storyWeb is web as the story's scenes create it.
var storyWeb = kube.Object{Kind: "deployments", Name: "web", Replicas: storyReplicas, Image: storyImage}

var (
	engineerReads  = 1000 * ms // kubectl get -o yaml
	hpaReads       = 1050 * ms
	hpaWrites      = 2010 * ms // replicas 7, if still at the version read
	engineerWrites = 2011 * ms // kubectl replace: image web:v2 (and the replicas it read), if still at the version read
	storyAudit     = 9 * time.Second
)

// storyRun is what the story's writers did and heard.
type storyRun struct {
	read       kube.Object   // web as both read it
	hpaWrite   write         // the autoscaler's conditional update
	editWrite  write         // the engineer's
	final      kube.Object   // web as the suite read it at the end
	finalErr   error         // why it could not
	finalAt    time.Duration // when
	reapplied  []string      // who heard Conflict and applied again
	reapplyErr map[string]error
}

// write is one conditional update and its answer.
type write struct {
	who  string
	obj  kube.Object
	at   time.Duration
	got  kube.Object
	err  error
	done time.Duration
}

func storyWorld(seed int64, impl Impl) *world {
	w := newWorld(seed, impl, logLink)
	run := &storyRun{reapplyErr: map[string]error{}}
	w.story = run
	writer := func(who sim.NodeID, readAt, writeAt time.Duration, change func(o *kube.Object), slot *write) {
		w.W.AddNode(who, func(p *sim.Proc) {
			c := w.clientOn(p, storyServer)
			if who == engineer {
				create(c, storyWeb)
			}
			p.Sleep(readAt - p.Now())
			read, err := c.Get(web, kube.ReadOptions{})
			if err != nil {
				return
			}
			run.read = read
			p.Sleep(writeAt - p.Now())
			obj := read
			change(&obj)
			*slot = write{who: string(who), obj: obj, at: p.Now()}
			slot.got, slot.err = c.Update(obj)
			slot.done = p.Now()
			if errors.Is(slot.err, kube.ErrConflict) {
				run.reapplied = append(run.reapplied, string(who))
				_, run.reapplyErr[string(who)] = impl.Update(c, web, change)
			}
		})
	}
	writer(engineer, engineerReads, engineerWrites, func(o *kube.Object) { o.Image = editImage }, &run.editWrite)
	writer(hpa, hpaReads, hpaWrites, func(o *kube.Object) { o.Replicas = hpaReplicas }, &run.hpaWrite)
	w.W.AddNode("reader", func(p *sim.Proc) {
		p.Sleep(storyAudit - time.Second)
		c := w.clientOn(p, "server-2")
		run.final, run.finalErr = c.Get(web, kube.ReadOptions{})
		run.finalAt = p.Now()
	})
	return w.play(storyAudit)
}

// storyLost: web must end with the autoscaler's replicas and the engineer's
// image. A write told "accepted" whose field is gone was erased by the other.
func storyLost(w *world) *suite.Failure {
	r := w.story
	if r.finalErr != nil {
		return &suite.Failure{Name: "story-unread", Clause: course.OneHistory, At: r.finalAt,
			Story: fmt.Sprintf("at %s the suite's read of %s from server-2 failed (%v), %s after both writers had written",
				suite.FormatTime(r.finalAt), web, r.finalErr, suite.FormatTime(r.finalAt-engineerWrites))}
	}
	if r.final.Replicas == hpaReplicas && r.final.Image == editImage {
		return nil
	}
	// Whose field is gone, and who erased it.
	lost, by := r.hpaWrite, r.editWrite
	field := fmt.Sprintf("replicas %d", hpaReplicas)
	if r.final.Replicas == hpaReplicas {
		lost, by = r.editWrite, r.hpaWrite
		field = "image " + editImage
	}
	told := func(x write) string {
		if x.err != nil {
			return fmt.Sprintf("answered %v at %s", x.err, suite.FormatTime(x.done))
		}
		return fmt.Sprintf("told accepted at %s (rv %d)", suite.FormatTime(x.done), x.got.ResourceVersion)
	}
	if lost.err != nil {
		if err, tried := r.reapplyErr[lost.who]; tried {
			if err != nil {
				return &suite.Failure{Name: "conflict-not-reapplied", Clause: course.AgreementFirst, At: lost.done,
					Story: fmt.Sprintf("%s's update of %s (%s, if rv %d) was %s; it applied its change again with GuaranteedUpdate, which ended with %v, and web ends as %s",
						lost.who, web, field, r.read.ResourceVersion, told(lost), err, r.final)}
			}
			return &suite.Failure{Name: "lost-update", Clause: course.OneHistory, At: lost.done,
				Story: fmt.Sprintf("%s's update of %s (%s) was %s, and GuaranteedUpdate then reported its change made; yet web ends as %s at %s: the change was written over",
					lost.who, web, field, told(lost), r.final, suite.FormatTime(r.finalAt))}
		}
	}
	return &suite.Failure{Name: "lost-update", Clause: course.OneHistory, At: by.at,
		Story: fmt.Sprintf("at %s %s accepted %s's update of %s to %s conditional on rv %d, but rv %d had already been superseded by %s's update (%s, sent at %s and %s): web ends as %s, %s's %s is gone, and neither writer heard an error",
			suite.FormatTime(by.at), storyServer, by.who, web, fields(by.obj), r.read.ResourceVersion, r.read.ResourceVersion,
			lost.who, field, suite.FormatTime(lost.at), told(lost), fields(r.final), lost.who, field),
		Details: fmt.Sprintf("both read %s at rv %d; %s %s; %s %s", web, r.read.ResourceVersion, lost.who, told(lost), by.who, told(by))}
}

// fields is an object's fields without key and version: "replicas=5 image=web:v2".
func fields(o kube.Object) string { return fmt.Sprintf("replicas=%d image=%s", o.Replicas, o.Image) }
