package ex12suite

import (
	"errors"
	"fmt"
	"strings"
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
	w.addCreator(writerA, func(p *sim.Proc, c *kube.Client, created kube.Object) {
		run.created = created
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
		run.b = write{who: string(writerB), obj: storyWeb, at: p.Now()}
		run.b.got, run.b.err = c.Update(storyWeb)
		run.b.done = p.Now()
	})
	return w.play(behindAudit)
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

// conflictUnordered: a Conflict, like a no-op, is decided where every write
// is ordered, when the entry is applied in the log's order. A server that
// refuses a write at its door, against its own copy of the object, refuses
// writes on versions it has not applied yet: the writer read the version
// from a server further along, and in the one history the object was still
// there. The server's copy is what its Conflict says it was ("it is now
// 14"); a Conflict that says nothing of it is left to the linearizability
// checker.
func conflictUnordered(w *world) *suite.Failure {
	hist := w.longest()
	for _, r := range w.Requests.All() {
		key, rv, what := "", int64(0), ""
		switch a := r.Ask.(type) {
		case kube.UpdateRequest:
			key, rv = a.Object.Key(), a.Object.ResourceVersion
			what = fmt.Sprintf("update of %s to %s if rv=%d", key, valueText(a.Object.Value()), rv)
		case kube.DeleteRequest:
			key, rv = a.Key, a.ResourceVersion
			what = fmt.Sprintf("delete of %s if rv=%d", key, rv)
		}
		if rv == 0 || !errors.Is(r.Err, kube.ErrConflict) {
			continue
		}
		have, ok := conflictCopy(r.Err, rv)
		if !ok || have >= rv || !versionOf(hist, key, rv) {
			continue
		}
		read := ""
		if op, ok := w.lastRead(sim.NodeID(r.Client), key, r.Call); ok && op.Result.Version == rv {
			read = fmt.Sprintf(" (%s had read it at rv %d from %s at %s)", r.Client, rv, op.Server, suite.FormatTime(op.Return))
		}
		return &suite.Failure{Name: "conflict-unordered", Clause: course.OneHistory, At: r.Return,
			Story: fmt.Sprintf("%s refused %s's %s as a conflict at %s, deciding against its own copy of %s, which was at rv %d, behind the history's rv %d%s: "+
				"the server had not yet applied the version the writer read, so its Conflict was decided against an older version than the one the precondition named, not against the object where the write lands in the log's order; "+
				"a precondition, like a write that changes nothing, must be decided where every write is ordered, when the entry is applied, never at the door of a server behind the log",
				r.Server, r.Client, what, suite.FormatTime(r.Return), key, have, rv, read),
			Details: keyVersions(hist, key, have)}
	}
	return nil
}

// conflictCopy is the version a Conflict says the server's copy was at,
// as kube.Conflict words it ("you had resourceVersion 16, it is now 14"),
// when it says so for the version want.
func conflictCopy(err error, want int64) (int64, bool) {
	var se kube.StatusError
	if !errors.As(err, &se) {
		return 0, false
	}
	i := strings.Index(se.Message, "(you had resourceVersion ")
	if i < 0 {
		return 0, false
	}
	var had, have int64
	if _, err := fmt.Sscanf(se.Message[i:], "(you had resourceVersion %d, it is now %d)", &had, &have); err != nil || had != want {
		return 0, false
	}
	return have, true
}

// versionOf reports whether rv is a version key had in hist.
func versionOf(hist []kube.Event, key string, rv int64) bool {
	for _, ev := range hist {
		if ev.Object.Key() == key && ev.Object.ResourceVersion == rv && ev.Type != kube.Deleted {
			return true
		}
	}
	return false
}

// keyVersions lists key's changes in hist from version from on, one a
// line: what a server at from had yet to apply.
func keyVersions(hist []kube.Event, key string, from int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s's changes in the one history from rv %d:", key, from)
	for _, ev := range hist {
		if ev.Object.Key() == key && ev.Object.ResourceVersion >= from {
			fmt.Fprintf(&b, "\n  rv %-4d %s", ev.Object.ResourceVersion, valueText(ev.Object.Value()))
			if ev.Type == kube.Deleted {
				b.WriteString(" (deleted)")
			}
		}
	}
	return b.String()
}
