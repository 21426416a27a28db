package ex07suite

import (
	"fmt"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// A split scene, the story's and the even split's: deployments/web runs
// storyFrom replicas. At cutAt the network splits in two for cutFor, each
// side with its servers and its controller. At scaleAt (plus a few
// milliseconds of jitter) controller-a scales web to scaleA through a
// server on its side, and controller-b to scaleB through one on the other,
// as in ex06 but with the network cut between them; each then reads web
// from its server, Any and Latest. healRead after the heal, before its
// server has heard from the sequencer again, controller-b reads web
// (Latest): its server is behind the one history by the change the other
// side said yes to, and must catch up before it answers. At lateAt
// controller-b reads web (Latest) again and scales it to lateB; the auditor
// reads every server at auditAt.
type split struct {
	servers int          // 3 for the story, 4 for the even split
	sideA   []sim.NodeID // the servers on controller-a's side, the sequencer among them
	sideB   []sim.NodeID // the servers on controller-b's side
	viaA    sim.NodeID   // where controller-a scales
	viaB    sim.NodeID   // where controller-b scales
	refuseA bool         // the chapter's answer to controller-a's scale during the split: refused (the even split) or yes
}

// The story's numbers. Three servers; server-3 is cut off with
// controller-b; the sequencer server-1 and server-2 stay together with
// controller-a.
const (
	storyKey  = "deployments/web"
	storyFrom = 3
	scaleA    = 5
	scaleB    = 2
	lateB     = 4
	cutAt     = 1000 * time.Millisecond
	cutFor    = 2000 * time.Millisecond
	scaleAt   = 1200 * time.Millisecond
	healRead  = 10 * time.Millisecond
	lateAt    = cutAt + cutFor + settle + 500*time.Millisecond
	auditAt   = lateAt + 2*bound
)

var (
	story = split{servers: 3, sideA: []sim.NodeID{"server-1", "server-2"}, sideB: []sim.NodeID{"server-3"},
		viaA: "server-1", viaB: "server-3"}
	evenSplit = split{servers: 4, sideA: []sim.NodeID{"server-1", "server-2"}, sideB: []sim.NodeID{"server-3", "server-4"},
		viaA: "server-2", viaB: "server-4", refuseA: true}
)

// run builds and runs the scene with seed, which decides the jitter: how
// far apart the two scales are, and each message's delay.
func (sp split) run(seed int64, serve Server) *run {
	s := newScene(seed, serve, sp.servers)
	r := &run{s: s, pl: newPlan(s.Servers), rec: &recorder{}}
	s.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		newCtl(p, api, sequencer, r.rec).create(storyKey, storyFrom)
	})
	jitter := time.Duration(s.W.Rand().Int63n(int64(5 * time.Millisecond)))
	s.Client("controller-a", func(p *sim.Proc, api *kube.Client) {
		c := newCtl(p, api, sp.viaA, r.rec)
		p.Sleep(scaleAt)
		c.scale(storyKey, scaleA, 0)
		c.getAny(storyKey)
		c.get(storyKey)
	})
	s.Client("controller-b", func(p *sim.Proc, api *kube.Client) {
		c := newCtl(p, api, sp.viaB, r.rec)
		p.Sleep(scaleAt + jitter)
		c.scale(storyKey, scaleB, 0)
		c.getAny(storyKey)
		c.get(storyKey)
		p.Sleep(max(0, cutAt+cutFor+healRead-p.Now()))
		c.get(storyKey)
		p.Sleep(lateAt - p.Now())
		c.get(storyKey)
		c.scale(storyKey, lateB, 0)
	})
	r.pl.partition(s, [][]sim.NodeID{append(sp.sideA[:len(sp.sideA):len(sp.sideA)], "controller-a"),
		append(sp.sideB[:len(sp.sideB):len(sp.sideB)], "controller-b")}, cutAt, cutFor)
	s.Lanes(append(append(append([]sim.NodeID{"controller-a"}, sp.sideA...), sp.sideB...), "controller-b")...)
	s.Show(showNotes)
	s.AuditAt(auditAt, "deployments", storyKey)
	s.Run(auditAt + 10*time.Second)
	return r
}

// showNotes keeps what a person follows in a split: each request and its
// answer, what the servers log, crashes, restarts and faults. Messages
// between servers are left out: a sequencer's heartbeats would fill the
// page.
func showNotes(e sim.Event) bool {
	switch e.Kind {
	case sim.EvNote, sim.EvCrash, sim.EvRestart, sim.EvFault:
		return true
	}
	return false
}

// storyCheck: the story's split, over StorySeeds. On the majority side
// controller-a hears yes and its Latest read is answered; cut off, controller-b hears Unavailable within
// the bound and still reads web with "0"; after the heal server-3 holds the
// one history and says yes again.
//
// The first world's timeline is logged as the figure "split", whatever the
// verdict: the book quotes the solution's, where the cut-off side refuses.
func storyCheck(t *testing.T, serve Server) {
	for i, seed := range suite.StorySeeds(storySeeds) {
		r := story.run(seed, serve)
		if i == 0 {
			suite.Figure(t, "split", r.s.Timeline(cutAt+cutFor/2))
		}
		if !story.judge(t, r) {
			return
		}
	}
}

// evenSplitCheck: four servers split two and two. Neither side holds a
// majority, so both refuse within the bound; after the heal both say yes.
func evenSplitCheck(t *testing.T, serve Server) {
	for _, seed := range suite.StorySeeds(evenSplitSeeds) {
		if !evenSplit.judge(t, evenSplit.run(seed, serve)) {
			return
		}
	}
}

// judge judges a split scene: the general judges, then what the scene
// promises of each controller.
func (sp split) judge(t *testing.T, r *run) bool {
	defer r.s.Close()
	ok := r.s.ReportRun(t) && r.splitBrain(t) && r.appliedTwice(t) && r.ackedAlone(t) && r.lostWrite(t) && r.readAlone(t) &&
		r.slowAnswer(t) && r.converged(t) && r.refusedWhileCalm(t) && r.caughtUp(t) && r.s.Linearizable(t)
	if !ok {
		return false
	}
	for _, op := range r.s.History.Operations() {
		if op.Client == "kubectl" {
			continue
		}
		inSplit := op.Call < cutAt+cutFor
		majoritySide := inSplit && op.Client == "controller-a" && !sp.refuseA
		answered := op.Acknowledged()
		wantYes := op.Input.Kind.Mutates() && (!inSplit || majoritySide)
		if op.Input.Kind == check.KindRead {
			// A Latest read on the majority side must be answered too; one
			// right after the heal may still be refused (the judge of calm
			// moments takes over once the cluster has settled).
			answered, wantYes = op.Completed(), majoritySide
		}
		if wantYes && !answered {
			r.s.Fail(t, suite.Failure{Name: "refused-while-healthy", Clause: course.AgreementFirst, At: op.Return,
				Story: fmt.Sprintf("%s asked %s (%s) at %s and heard %s, although %s: the side with the sequencer and a majority must go on saying yes",
					op.Client, op.Server, op.Input, suite.FormatTime(op.Call.Round(100*time.Microsecond)), result(op), sp.sideOf(op)),
				Details: "the request:\n  " + op.String()})
			return false
		}
	}
	if len(r.s.Histories) != sp.servers {
		r.s.Fail(t, suite.Failure{Name: "no-audit", At: r.s.AuditedAt,
			Story: fmt.Sprintf("the suite read %d of %d servers", len(r.s.Histories), sp.servers)})
		return false
	}
	return true
}

// sideOf says why op deserved a yes: "the split had healed at 3000ms" or
// "server-1 and server-2 held 2 of 3 servers together".
func (sp split) sideOf(op check.Operation) string {
	if op.Call >= cutAt+cutFor {
		return "the split had healed at " + suite.FormatTime(cutAt+cutFor)
	}
	return fmt.Sprintf("%s, with the sequencer, held %d of %d servers together", joinIDs(sp.sideA), len(sp.sideA), sp.servers)
}

func joinIDs(ids []sim.NodeID) string {
	s := ""
	for i, id := range ids {
		switch {
		case i == 0:
		case i == len(ids)-1:
			s += " and "
		default:
			s += ", "
		}
		s += string(id)
	}
	return s
}
