// Package ex02suite is the hidden suite of chapter ex02, "The 2:14 a.m.
// page": one apiserver whose store must outlive a crash of its node.
//
// Every check builds worlds in which the node "apiserver" boots the
// learner's store (open) and serves it with kube.Serve, crashes, and boots
// it again from what its disk kept. The checks, in the registry's order:
//
//   - story: the page itself. kubectl creates deployments/web with five
//     replicas, the controller-manager creates its pods, node-1 runs their
//     containers; the apiserver crashes at 02:14 and is restarted at 02:18.
//     Everything acknowledged before the crash must be there afterwards,
//     and node-1 must never have stopped a container because its pod
//     vanished.
//   - crash-points: three writers keep the write path busy while the
//     apiserver crashes twice at a random instant: before, during or after
//     the sync of a change, or with its acknowledgement in flight. No
//     acknowledged change may be lost (check.Durable), and every answer,
//     before and after the crashes, must fit one history
//     (check.Linearizable): a change never half-applied, nothing seen that
//     was later lost. Across the seeds the crashes must have hit unsynced
//     and torn records and acknowledgements in flight, or the check proved
//     nothing.
//   - outage: while the apiserver is down, clients hear Unavailable at once
//     (an honest answer: "there is no cluster right now"), and when it is
//     back its first answers hold every acknowledged change (not an empty
//     cluster, which is a dishonest answer).
//
// A failure is reported for the first failing seed only, as a story with
// the timeline around the decisive moment. Before any checker's symptom, the
// journal (journal.go) of what the apiserver answered, what each crash left
// on its disk and what each boot recovered names the cause at the first boot
// that went wrong: a write the store failed, a torn record left in the log,
// a deletion undone, an acknowledgement sent before the change was on disk,
// a synced record the boot did not read back, a change read before it was
// on disk.
package ex02suite

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// chapter is this suite's chapter ID.
const chapter = "ex02"

// apiserver is the node that runs the learner's store.
const apiserver sim.NodeID = "apiserver"

// Run runs chapter ex02's hidden suite against open, the learner's boot of
// the apiserver's store: it is called on the node "apiserver" at start and
// after every restart, and the store it returns is served with kube.Serve.
func Run[S kube.Storage](t *testing.T, open func(p *sim.Proc) S) {
	boot := func(p *sim.Proc) kube.Storage { return open(p) }
	suite.Run(t, chapter, map[string]suite.CheckFunc{
		"story":        func(t *testing.T) { story(t, boot) },
		"crash-points": func(t *testing.T) { crashPoints(t, boot) },
		"outage":       func(t *testing.T) { outage(t, boot) },
	})
}

// cluster is one world with the learner's apiserver in it.
type cluster struct {
	w     *sim.World
	h     *check.History
	store kube.Storage // the store of the apiserver's current incarnation
	boots int
	j     *journal // what the apiserver answered, what crashes left, what boots recovered

	final   []check.Change // the apiserver's history, read by audit
	audited bool
	auditEr error
}

// newCluster makes a world whose node "apiserver" boots open and serves it.
func newCluster(seed int64, open func(p *sim.Proc) kube.Storage, opts ...sim.Option) *cluster {
	c := &cluster{w: sim.New(seed, opts...), h: check.NewHistory()}
	c.j = &journal{w: c.w}
	c.w.AddNode(apiserver, func(p *sim.Proc) {
		c.boots++
		s := open(p)
		c.store = s
		c.j.booted(p, c.boots, s)
		p.Serve(c.j.serve(c.boots, s))
	})
	return c
}

// auditAt reads, at virtual time t and from inside the apiserver, the whole
// history its store holds: every retained change of every kind, in order.
func (c *cluster) auditAt(t time.Duration, kinds ...string) {
	c.w.At(t, func() {
		if !c.w.Up(apiserver) || c.store == nil {
			return
		}
		c.w.Go(apiserver, "audit", func(p *sim.Proc) {
			var evs []kube.Event
			for _, k := range kinds {
				e, err := c.store.Watch(p, k, 0, 0)
				if err != nil {
					c.auditEr = err
					return
				}
				evs = append(evs, e...)
			}
			slices.SortStableFunc(evs, func(a, b kube.Event) int {
				return int(a.Object.ResourceVersion - b.Object.ResourceVersion)
			})
			for _, ev := range evs {
				c.final = append(c.final, check.Change{Version: ev.Object.ResourceVersion, Key: ev.Object.Key(),
					Value: ev.Object.Value(), Deleted: ev.Type == kube.Deleted})
			}
			c.audited = true
		})
	})
}

// crashes lists the apiserver's crashes with their restarts (End; Open if
// it never came back).
func (c *cluster) crashes() []sim.Fault {
	var out []sim.Fault
	for _, f := range c.w.Faults() {
		if f.Node == apiserver && strings.HasPrefix(f.Desc, "crash") {
			out = append(out, f)
		}
	}
	return out
}

// faults converts the world's faults for the checkers.
func (c *cluster) faults() []check.Fault { return suite.Faults(c.w) }

// timeline renders the lanes cols around focus: what the clients did and
// heard (their notes), what the apiserver decided and synced, the crashes
// and restarts; the messages themselves are left out, since every client
// notes what it sent and what came back.
func (c *cluster) timeline(focus time.Duration, cols ...sim.NodeID) string {
	rows := 40
	if suite.Replaying() {
		rows = 120
	}
	return c.w.Timeline(sim.TimelineOptions{Columns: cols, Focus: focus, MaxRows: rows, Width: 34, Filter: func(e sim.Event) bool {
		switch e.Kind {
		case sim.EvSend, sim.EvRecv, sim.EvReply, sim.EvRecvReply:
			return false
		case sim.EvDisk:
			return !strings.HasPrefix(e.Text, "append")
		}
		return true
	}})
}

// fail reports the failure of one seed.
func fail(t *testing.T, c *cluster, seed int64, name string, at time.Duration, story, details string, cols ...sim.NodeID) {
	t.Helper()
	suite.Report(t, suite.Failure{
		Name: name, Clause: course.DurableAgreement, Story: story, At: at, Seed: seed,
		Details: details, Timeline: c.timeline(at, cols...),
	})
}

// explained reports the journal's explanation of the world, if it has one:
// the most specific cause, before any checker's symptom.
func explained(t *testing.T, c *cluster, seed int64, cols ...sim.NodeID) bool {
	t.Helper()
	f := c.j.explain()
	if f == nil {
		return false
	}
	fail(t, c, seed, f.name, f.at, f.story, f.details, cols...)
	return true
}

// runError reports a run that could not go on: a panic (in recovery, say),
// a deadlock, a stuck process.
func runError(t *testing.T, c *cluster, seed int64, err error, cols ...sim.NodeID) {
	t.Helper()
	f := suite.RunFailure(err)
	if f.At == 0 {
		f.At = c.w.Now()
	}
	if pe, ok := err.(*sim.PanicError); ok && strings.HasPrefix(pe.Proc, string(apiserver)+"/main") {
		f.Story = fmt.Sprintf("the apiserver could not boot (boot #%d) at %s: Open panicked: %v", c.boots, suite.FormatTime(pe.At), pe.Value)
	}
	f.Clause, f.Seed, f.Timeline = course.DurableAgreement, seed, c.timeline(f.At, cols...)
	suite.Report(t, f)
}

// lost checks durability: every acknowledged change is in the final
// history. It returns the story, time and details of the first one lost.
func (c *cluster) lost() *check.Violation {
	if !c.audited {
		why := "the apiserver was down at the end of the run"
		if c.auditEr != nil {
			why = "reading its history failed: " + c.auditEr.Error()
		}
		return &check.Violation{Name: "lost-acknowledged-write", Clause: course.DurableAgreement, At: c.w.Now(),
			Story: "the suite could not read the apiserver's history at the end: " + why}
	}
	return check.Durable(c.h, c.final)
}

// ackedBefore counts the changes acknowledged before t.
func (c *cluster) ackedBefore(t time.Duration) int {
	n := 0
	for _, op := range c.h.Operations() {
		if op.Acknowledged() && op.Return <= t {
			n++
		}
	}
	return n
}

// linearizable checks that every answer fits one history, and reports the
// first that does not.
func linearizable(t *testing.T, c *cluster, seed int64, cols ...sim.NodeID) bool {
	t.Helper()
	l := check.Linearizable(c.h, 0)
	if l.OK() {
		return true
	}
	v := l.Violation
	html, err := l.WriteHTML(suite.OutputDir(), fmt.Sprintf("ex02-%s-seed-%d", strings.ReplaceAll(t.Name(), "/", "-"), seed), c.faults())
	if err != nil {
		html = ""
	}
	story := v.Story
	if v.Name != "undecided" {
		story = "across the crash the answers fit no single history: " + story
	}
	suite.Report(t, suite.Failure{
		Name: v.Name, Clause: course.DurableAgreement, Story: story, At: v.At, Seed: seed,
		Details: v.Details + crashLines(c), Timeline: c.timeline(v.At, cols...), HTML: html,
	})
	return false
}

// crashLines lists the apiserver's crashes and restarts for a failure's details.
func crashLines(c *cluster) string {
	var b strings.Builder
	b.WriteString("\nthe apiserver's crashes:\n")
	for _, f := range c.crashes() {
		if f.Open {
			fmt.Fprintf(&b, "  crashed at %s, never restarted\n", suite.FormatTime(f.Start))
			continue
		}
		fmt.Fprintf(&b, "  crashed at %s, restarted at %s: %s without a cluster\n",
			suite.FormatTime(f.Start), suite.FormatTime(f.End), suite.FormatTime(f.End-f.Start))
	}
	return b.String()
}
