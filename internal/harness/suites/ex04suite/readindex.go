package ex04suite

import (
	"fmt"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The read-index scenes, scripted: interleavings a randomized world meets
// about once in a few hundred seeds, built on purpose, so that a Latest read
// that trusts an old read index, or a change it has received but not
// applied, is caught on every run. One server (the writer's, chosen by the
// seed) takes two scales of web; the other lags behind it because a short
// cut of the servers' link lost the copy of the first:
//
//   - kubectl creates web with riCreated replicas through the writer's
//     server; it reaches both servers;
//   - at riFirstCut (plus up to riJitter) the servers' link is cut for
//     riCutLength (plus up to riJitter), and the controller scales web to
//     riFirst through the writer's server: its copy to the other server is
//     lost, and the writer's server can only send it again later;
//   - just after the cut, dashboard-1 gets web through the lagging server
//     (or, on some seeds, lists the deployments there): a Latest read there
//     has to wait for riFirst;
//   - riSecondAfter (plus up to riJitter) after the first cut began, kubectl
//     scales web to riSecond through the writer's server. In the first scene
//     a second cut loses its copy too; in the second ("overtaken") its copy
//     arrives, and waits on the lagging server for the lost riFirst;
//   - after that, dashboard-2 gets web through the writer's server and is
//     shown riSecond; then it reads web through the lagging server, as
//     dashboard-1 did, while dashboard-1 is still waiting there.
//     That read began after dashboard-2 was shown riSecond, so it must not
//     answer riFirst or riCreated. The lagging server has to ask again how
//     far the other's history goes, not reuse what it learned for
//     dashboard-1 (the first scene), and wait until it has applied every
//     change up to there, not merely received the last (the second).
//
// A third scene ("joined") has no lagging copy at dashboard-1's read:
// instead the way from the writer's server to the other is slow for a
// moment, so the answer to dashboard-1's ReadIndex call is slow to come
// back; right after, a cut loses the copy of the controller's scale, and
// dashboard-2, shown riFirst by the writer's server, reads the other server
// while that answer, taken before riFirst was applied, is still on its way.
// A read that joins a call made for an earlier reader, instead of asking
// for itself, answers riCreated there.
//
// A fourth scene ("long cut") cuts the servers' link for riCutLong (plus up
// to riJitter), far longer than any sensible call to the other server and
// well within a client's requestTimeout, just before the controller scales
// web to riFirst through the writer's server: dashboard-2 then gets web there
// and reads the lagging server, and dashboard-1 reads the lagging server in
// the middle of the cut. A correct cluster answers both once the cut heals;
// a Latest read that gives up on a silent peer after a timeout, and answers
// from its own copy, shows riFirst on one server and riCreated on the other.
//
// A fifth scene ("lost ask") loses a ReadIndex call instead of a copy: a
// short cut loses the copy of the controller's scale to riFirst; once it
// heals, dashboard-2 gets web through the writer's server and is shown
// riFirst; riAskCutAfter after that cut healed, a second cut of riAskCut
// (plus up to riJitter) begins, just longer than the solution's call to the
// other server, and dashboard-2 reads the lagging server at once, so the
// lagging server's first ReadIndex call is lost. That cut also loses the
// writer's first new try of the copy, and heals before the lagging server's
// second ReadIndex call: that call is answered while riFirst is still on
// its way. A read that asks again must use the new answer, and wait for it.
//
// A sixth scene ("peer down"), played after the randomized worlds, loses
// the writer's server instead: a short cut loses the copy of the
// controller's scale to riFirst; once it heals, dashboard-2 gets web
// through the writer's server and is shown riFirst; riDownAfter later the
// writer's server crashes for good, before it sends the copy again, and
// both dashboards read the lagging server. Its copy never gets riFirst, and
// the other server is down: a Latest read there cannot learn how far the
// other's history went, and must not answer from its own copy as if
// nothing were missing (it waits, or refuses).
//
// Every correct cluster passes them, whatever its timeouts: the scenes only
// make the interleavings likely, and judge the answers as the randomized
// worlds are judged.
const (
	riCreated     = 3
	riFirst       = 4
	riSecond      = 5
	riFirstCut    = 500 * ms
	riCutLength   = 80 * ms
	riSecondAfter = 400 * ms
	riJitter      = 100 * ms
	riSlowWay     = 400 * ms
	riCutLong     = 4 * time.Second
	riAskCutAfter = 100 * ms
	riAskCut      = 900 * ms
	riDownAfter   = 40 * ms
	riAuditAt     = 8 * time.Second
	riSeeds       = 5
)

// riScene is one of the read-index scenes: its name, as the chapter's
// worlds say it, and its plan, drawn from the seed's jitter and from which
// server takes the writes and which lags behind.
type riScene struct {
	name string
	plan func(jitter func() time.Duration, writer, lagging sim.NodeID) riPlan
}

// riPlan is what a read-index scene builds: its faults; when the
// controller scales web to riFirst through the writer; when kubectl scales
// it to riSecond there (0: it does not); when dashboard-1 reads the lagging
// server; and when dashboard-2 reads web from the writer with a Latest get
// and then, once that has answered, reads the lagging server as
// dashboard-1 does (not before lagAt).
type riPlan struct {
	faults                             []scene.Fault
	scale, second, read1, read2, lagAt time.Duration
}

// riScenes are the read-index scenes, in the order the linearizable check
// plays them.
var riScenes = []riScene{
	{"second cut", func(jitter func() time.Duration, _, _ sim.NodeID) riPlan {
		return twoCuts(jitter, true) // the second scale's copy lost in a second cut
	}},
	{"overtaken", func(jitter func() time.Duration, _, _ sim.NodeID) riPlan {
		return twoCuts(jitter, false) // the second scale's copy waits behind the lost first
	}},
	{"joined", joined},    // dashboard-1's ReadIndex answer slow to come back
	{"long cut", longCut}, // a cut of the servers' link that outlasts many calls' timeouts
	{"lost ask", lostAsk}, // the lagging server's first ReadIndex call lost, its second answered
}

// peerDownScene is the sixth scene, which the linearizable check plays after
// its randomized worlds.
var peerDownScene = riScene{"peer down", peerDown}

// twoCuts plans the first two scenes: a cut that loses the copy of the
// controller's scale and, riSecondAfter later, kubectl's scale to riSecond,
// whose copy a second cut loses too if second is set.
func twoCuts(jitter func() time.Duration, second bool) riPlan {
	first := scene.Cut{A: server1, B: server2, From: riFirstCut + jitter(), For: riCutLength + jitter()}
	next := scene.Cut{A: server1, B: server2, From: first.From + riSecondAfter + jitter(), For: riCutLength + jitter()}
	p := riPlan{faults: []scene.Fault{first}, scale: first.From + ms, second: next.From + ms,
		read1: first.Until() + 10*ms, read2: next.Until() + 10*ms}
	if second {
		p.faults = append(p.faults, next)
	}
	return p
}

// joined plans the joined scene.
func joined(jitter func() time.Duration, writer, lagging sim.NodeID) riPlan {
	slow := scene.SlowOneWay{Sender: writer, Receiver: lagging, Link: sim.Link{Min: riSlowWay, Max: riSlowWay},
		From: riFirstCut + jitter(), For: riCutLength/2 + jitter()/2}
	// The cut begins just after the slow spell ends, not at the same instant,
	// so that the link is cut whichever of the two the world does first.
	cut := scene.Cut{A: server1, B: server2, From: slow.From + slow.For + ms, For: riCutLength + jitter()}
	return riPlan{faults: []scene.Fault{slow, cut}, scale: cut.From + ms, read1: slow.From + ms,
		read2: cut.Until() + 10*ms}
}

// longCut plans the long-cut scene.
func longCut(jitter func() time.Duration, _, _ sim.NodeID) riPlan {
	cut := scene.Cut{A: server1, B: server2, From: riFirstCut + jitter(), For: riCutLong + jitter()}
	return riPlan{faults: []scene.Fault{cut}, scale: cut.From + ms, read1: cut.From + cut.For/2,
		read2: cut.From + 10*ms}
}

// lostAsk plans the lost-ask scene.
func lostAsk(jitter func() time.Duration, _, _ sim.NodeID) riPlan {
	first := scene.Cut{A: server1, B: server2, From: riFirstCut + jitter(), For: riCutLength + jitter()}
	ask := scene.Cut{A: server1, B: server2, From: first.Until() + riAskCutAfter, For: riAskCut + jitter()}
	return riPlan{faults: []scene.Fault{first, ask}, scale: first.From + ms, read1: ask.From + ask.For/2,
		read2: first.Until() + 10*ms, lagAt: ask.From + ms}
}

// peerDown plans the peer-down scene: the writer's server crashes
// riDownAfter after dashboard-2's read of it was sent, and the dashboards
// read the lagging server riDownAfter/2 after that.
func peerDown(jitter func() time.Duration, writer, _ sim.NodeID) riPlan {
	cut := scene.Cut{A: server1, B: server2, From: riFirstCut + jitter(), For: riCutLength + jitter()}
	read2 := cut.Until() + 10*ms
	crash := scene.Crash{Node: writer, At: read2 + riDownAfter}
	after := crash.At + riDownAfter/2
	return riPlan{faults: []scene.Fault{cut, crash}, scale: cut.From + ms, read1: after, read2: read2, lagAt: after}
}

// readIndexScene builds and runs the read-index scene ri of seed. The seed
// decides which server takes the writes, when the faults begin and how long
// they last, the jitter of every link, and whether the dashboards read the
// lagging server with a get or a list.
func readIndexScene(seed int64, serve scene.Boot, ri riScene) *scene.Scene {
	s := scene.New(seed, serve, scene.Latency(1*ms, 5*ms), scene.RequestTimeout(requestTimeout))
	r := s.W.Rand()
	writer, lagging := server1, server2
	if r.Intn(2) == 1 {
		writer, lagging = lagging, writer
	}
	plan := ri.plan(func() time.Duration { return time.Duration(r.Int63n(int64(riJitter))) }, writer, lagging)
	read := lateRead(s, r.Intn(3) == 0)
	s.Inject(plan.faults...)

	s.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		api = api.Pin(writer)
		_, err := api.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: riCreated})
		if err != nil || plan.second == 0 {
			return
		}
		p.Sleep(max(0, plan.second-p.Now()))
		api.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: riSecond})
	})
	s.Client("controller", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(plan.scale)
		api.Pin(writer).Update(kube.Object{Kind: "deployments", Name: "web", Replicas: riFirst})
	})
	s.Client("dashboard-1", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(plan.read1)
		read(p, api.Pin(lagging))
	})
	s.Client("dashboard-2", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(plan.read2)
		if _, err := api.Pin(writer).Get(web, kube.ReadOptions{ResourceVersion: kube.Latest}); err != nil {
			return
		}
		p.Sleep(max(ms, plan.lagAt-p.Now())) // begun after it ended, not at the same instant: one order, not two
		read(p, api.Pin(lagging))
	})
	s.Lanes("kubectl", "controller", writer, lagging, "dashboard-1", "dashboard-2")
	s.AuditAt(riAuditAt, "deployments", web)
	s.Run(riAuditAt + 30*time.Second)
	return s
}

// lateRead is how both dashboards read the lagging server: a Latest get of
// web, or a Latest list of the deployments.
func lateRead(s *scene.Scene, list bool) func(p *sim.Proc, api *kube.Client) {
	if list {
		return func(p *sim.Proc, api *kube.Client) { s.List(p, api, "deployments", web) }
	}
	return func(p *sim.Proc, api *kube.Client) { api.Get(web, kube.ReadOptions{ResourceVersion: kube.Latest}) }
}

// retellReadIndex says what a read-index scene built, from the declared
// cuts and the recorded operations: which write each cut met, and the rule
// the last read had to keep. The table of operations under it says who read
// what where, and when.
func retellReadIndex(s *scene.Scene) string {
	out := "the scene, as built:"
	for _, f := range s.Declared() {
		out += "\n  " + f.String()
		c, ok := f.(scene.Cut)
		if !ok {
			continue
		}
		for _, op := range s.History.Operations() {
			if !c.During(op.Call) {
				continue
			}
			if op.Input.Kind.Mutates() {
				out += fmt.Sprintf(": %s sent its %s to %s at %s, so a copy %s sent then to the other server was lost",
					op.Client, op.Input, op.Server, suite.FormatTime(op.Call), op.Server)
			} else {
				out += fmt.Sprintf(": %s sent its %s to %s at %s, so a call %s made then to the other server was lost",
					op.Client, op.Input, op.Server, suite.FormatTime(op.Call), op.Server)
			}
		}
	}
	return out + "\na Latest read must ask the other server how far its history goes after the read began, and wait until its own server has applied every change up to there: " +
		"neither how far it had to catch up for an earlier reader, nor the answer to a call made for one, nor a later change that overtook a lost one, will do; " +
		"and while the other server is silent, past any call's timeout, the read waits and asks again: an answer from its own copy alone may be stale"
}
