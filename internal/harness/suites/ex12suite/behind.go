package ex12suite

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/suites/ex12suite/agreed"
)

// The no-op-behind world, stated once: server-2 sits further from the log
// than server-1, so it applies each entry later. writer-a sets web's
// replicas to 7 through server-1; 1ms after it is acknowledged, writer-b
// sets them back to 5 through server-2, which has not applied 7 yet: to
// server-2 the update looks like one that changes nothing.
const (
	writerA       sim.NodeID = "writer-a"
	writerB       sim.NodeID = "writer-b"
	laggingServer sim.NodeID = "server-2"
	writerAWrites            = 2000 * ms
	behindRead               = 5 * time.Second
	behindAudit              = 6 * time.Second
)

// laggingLink is server-2's link to the log: further than every other
// server's, so that it applies each entry at least 100ms after them.
var laggingLink = sim.Link{Min: 300 * ms, Max: 350 * ms}

// behindRun is what the no-op-behind world's writers asked and heard.
type behindRun struct {
	created kube.Object   // web as it was created
	a, b    write         // writer-a's update through server-1, writer-b's through server-2
	aDone   sim.Cond      // broadcast when writer-a's update returns
	final   kube.Object   // web as server-1 read it at the end
	finalOK bool          // whether that read succeeded
	finalAt time.Duration // when it returned
}

func noopBehindWorld(seed int64, impl Impl) *world {
	w := newWorld(seed, impl, logLink)
	w.W.SetLinks(laggingServer, agreed.Node, laggingLink)
	run := &behindRun{aDone: sim.Cond{Name: "writer-a answered"}}
	w.behind = run
	w.W.AddNode(writerA, func(p *sim.Proc) {
		c := w.clientOn(p, storyServer)
		for {
			o, err := c.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: storyReplicas, Image: storyImage})
			if err == nil {
				run.created = o
				break
			}
			if errors.Is(err, kube.ErrAlreadyExists) {
				return
			}
		}
		p.Sleep(writerAWrites - p.Now())
		obj := run.created
		obj.Replicas, obj.ResourceVersion = hpaReplicas, 0
		run.a = write{who: string(writerA), obj: obj, at: p.Now()}
		run.a.got, run.a.err = c.Update(obj)
		run.a.done = p.Now()
		run.aDone.Broadcast()
		p.Sleep(behindRead - p.Now())
		if got, err := c.Get(web, kube.ReadOptions{ResourceVersion: kube.Latest}); err == nil {
			run.final, run.finalOK, run.finalAt = got, true, p.Now()
		}
	})
	w.W.AddNode(writerB, func(p *sim.Proc) {
		c := w.clientOn(p, laggingServer)
		if !run.aDone.WaitTimeout(p, behindRead) || run.a.err != nil {
			return
		}
		p.Sleep(ms)
		obj := kube.Object{Kind: "deployments", Name: "web", Replicas: storyReplicas, Image: storyImage}
		run.b = write{who: string(writerB), obj: obj, at: p.Now()}
		run.b.got, run.b.err = c.Update(obj)
		run.b.done = p.Now()
	})
	w.auditAt(behindAudit)
	w.Run(behindAudit + 5*time.Second)
	return w
}

// noopUnordered: writer-b's update began after writer-a's was acknowledged,
// so it comes after it in the one order; it changes web back to replicas 5,
// and must be answered from there, never from an older version that a
// server behind the log still holds.
func noopUnordered(w *world) *suite.Failure {
	r := w.behind
	if r == nil {
		return nil
	}
	if r.a.done == 0 || r.a.err != nil || r.b.at == 0 {
		why := "writer-a's update had not returned"
		if r.a.done != 0 {
			why = fmt.Sprintf("writer-a's update of %s (%s) through %s was answered %v at %s", web, fields(r.a.obj), storyServer, r.a.err, suite.FormatTime(r.a.done))
		}
		return &suite.Failure{Name: "no-op-unplayed", Clause: course.OneHistory, At: w.W.Now(),
			Story: fmt.Sprintf("%s by %s, so writer-b never wrote, and the suite could not decide how a server behind the log answers an update that looks like it changes nothing", why, suite.FormatTime(w.W.Now()))}
	}
	if r.b.err != nil || r.b.got.ResourceVersion > r.a.got.ResourceVersion {
		return nil
	}
	ordered := "without ordering it in the log"
	for _, ev := range w.longest() {
		if ev.Object.Key() == web && ev.Object.ResourceVersion > r.a.got.ResourceVersion {
			ordered = "before it was ordered in the log"
			break
		}
	}
	end := ""
	if r.finalOK {
		end = fmt.Sprintf("; at %s %s read web as %s (rv %d)", suite.FormatTime(r.finalAt), storyServer, fields(r.final), r.final.ResourceVersion)
	}
	return &suite.Failure{Name: "no-op-unordered", Clause: course.OneHistory, At: r.b.done,
		Story: fmt.Sprintf("%s answered writer-b's update of %s (%s) as unchanged at %s from what it had applied (rv %d), %s, but rv %d (writer-a's %s, acknowledged at %s) came before it: a write that changes nothing must be decided where every write is ordered, too%s",
			laggingServer, web, fields(r.b.obj), suite.FormatTime(r.b.done), r.b.got.ResourceVersion, ordered,
			r.a.got.ResourceVersion, fields(r.a.obj), suite.FormatTime(r.a.done), end),
		Details: fmt.Sprintf("writer-a sent its update at %s through %s, told accepted at %s (rv %d); writer-b sent its update at %s through %s, which sits %s–%s from the log, and was told accepted at %s (rv %d)",
			suite.FormatTime(r.a.at), storyServer, suite.FormatTime(r.a.done), r.a.got.ResourceVersion,
			suite.FormatTime(r.b.at), laggingServer, suite.FormatTime(laggingLink.Min), suite.FormatTime(laggingLink.Max), suite.FormatTime(r.b.done), r.b.got.ResourceVersion)}
}

// behindLinearizable: one order explains every answer of the no-op-behind
// world, writer-b's and the last read included.
func behindLinearizable(w *world) *suite.Failure {
	if w.behind == nil {
		return nil
	}
	return scene.Linearizable(w.Scene)
}
