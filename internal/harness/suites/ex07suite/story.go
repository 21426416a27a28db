package ex07suite

import (
	"fmt"
	"slices"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/scene"
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
	servers int          // 3 for the story, 4 for the even split, 5 for the five split
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
	// fiveSplit cuts the sequencer off with server-3: two of five, so its
	// side must refuse, while the other three, a majority without the
	// sequencer, refuse as well (only the sequencer orders writes). The
	// side's two positions are the second and third of the five, where a
	// committed position read off the unsorted positions, or a majority of
	// 2, finds them.
	fiveSplit = split{servers: 5, sideA: []sim.NodeID{"server-1", "server-3"}, sideB: []sim.NodeID{"server-2", "server-4", "server-5"},
		viaA: "server-1", viaB: "server-4", refuseA: true}
)

// world builds and runs the split scene of a seed, which decides the
// jitter: how far apart the two scales are, and each message's delay.
func (sp split) world(serve Server) scene.Build[*run] {
	return func(seed int64) *run {
		r := newRun(seed, serve, sp.servers)
		r.controller("kubectl", sequencer, func(c ctl) { c.Create(deployment(storyKey, storyFrom, 0)) })
		jitter := time.Duration(r.W.Rand().Int63n(int64(5 * time.Millisecond)))
		r.controller("controller-a", sp.viaA, func(c ctl) {
			c.Sleep(scaleAt)
			c.Update(deployment(storyKey, scaleA, 0))
			c.Get(storyKey, anyRV)
			c.Get(storyKey, latest)
		})
		r.controller("controller-b", sp.viaB, func(c ctl) {
			c.Sleep(scaleAt + jitter)
			c.Update(deployment(storyKey, scaleB, 0))
			c.Get(storyKey, anyRV)
			c.Get(storyKey, latest)
			c.Sleep(max(0, cutAt+cutFor+healRead-c.Now()))
			c.Get(storyKey, latest)
			c.Sleep(lateAt - c.Now())
			c.Get(storyKey, latest)
			c.Update(deployment(storyKey, lateB, 0))
		})
		r.Inject(scene.Partition{Groups: [][]sim.NodeID{append(slices.Clip(sp.sideA), "controller-a"), append(slices.Clip(sp.sideB), "controller-b")},
			From: cutAt, For: cutFor})
		r.Lanes(slices.Concat([]sim.NodeID{"controller-a"}, sp.sideA, sp.sideB, []sim.NodeID{"controller-b"})...)
		return r.play(auditAt, storyKey)
	}
}

// promised judges what a split scene promises of each controller: on the
// side with the sequencer and a majority, if there is one, controller-a
// hears yes and its Latest read is answered; after the heal every write is
// answered yes.
func (sp split) promised(r *run) *suite.Failure {
	for _, op := range r.History.Operations() {
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
			return &suite.Failure{Name: "refused-while-healthy", Clause: course.AgreementFirst, At: op.Return,
				Story: fmt.Sprintf("%s asked %s (%s) at %s and heard %s, although %s. %sThe side with the sequencer and a majority must go on saying yes",
					op.Client, op.Server, op.Input, suite.FormatTime(op.Call), result(op), sp.sideOf(op), r.silence(sim.NodeID(op.Server), op.Call, op.Return)),
				Details: "the request:\n  " + op.String()}
		}
	}
	return nil
}

// sideOf says why op deserved a yes: "the split had healed at 3000ms" or
// "server-1 and server-2 held 2 of 3 servers together".
func (sp split) sideOf(op check.Operation) string {
	if op.Call >= cutAt+cutFor {
		return "the split had healed at " + suite.FormatTime(cutAt+cutFor)
	}
	return fmt.Sprintf("%s, with the sequencer, held %d of %d servers together", joinIDs(sp.sideA), len(sp.sideA), sp.servers)
}

// joinIDs lists ids as a sentence does: "server-1, server-2 and server-4".
func joinIDs(ids []sim.NodeID) string {
	s := string(ids[0])
	for i, id := range ids[1:] {
		sep := ", "
		if i == len(ids)-2 {
			sep = " and "
		}
		s += sep + string(id)
	}
	return s
}
