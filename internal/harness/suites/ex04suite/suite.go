package ex04suite

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

const ms = time.Millisecond

// The two API servers. server-1 orders the writes (the chapter's Primary).
const (
	server1 sim.NodeID = "server-1"
	server2 sim.NodeID = "server-2"
)

// Server is what the chapter's package provides on each node: a kube.Storage
// that clients' requests are served from, and Peer, which serves the messages
// of the other server.
type Server interface {
	kube.Storage
	Peer(p *sim.Proc, from sim.NodeID, msg any) (any, error)
}

// Run runs the hidden suite of chapter ex04 against newServer, which builds
// the server of node self whose peer is peer.
func Run[S Server](t *testing.T, newServer func(self, peer sim.NodeID) S) {
	c := chapter{newServer: func(self, peer sim.NodeID) Server { return newServer(self, peer) }}
	suite.Run(t, "ex04", map[string]suite.CheckFunc{
		"story":      c.story,
		"randomized": c.randomized,
		"progress":   c.progress,
	})
}

type chapter struct {
	newServer func(self, peer sim.NodeID) Server
}

// boot adds the two servers to w: each serves the API requests from its
// Server through kube.Handler and hands everything else to Peer.
func (c chapter) boot(w *sim.World) {
	for _, pair := range [][2]sim.NodeID{{server1, server2}, {server2, server1}} {
		self, peer := pair[0], pair[1]
		w.AddNode(self, func(p *sim.Proc) {
			s := c.newServer(self, peer)
			api := kube.Handler(s)
			p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
				if kube.IsRequest(req) {
					return api(p, from, req)
				}
				return s.Peer(p, from, req)
			})
		})
	}
}

// runError reports a world that could not finish (deadlock, panic, a stuck
// process) as the failure of seed.
func runError(t *testing.T, w *sim.World, seed int64, err error) {
	t.Helper()
	f := suite.RunFailure(err)
	if f.At == 0 {
		f.At = w.Now()
	}
	f.Clause, f.Seed = course.OneHistory, seed
	f.Timeline = w.Timeline(sim.TimelineOptions{Columns: []sim.NodeID{server1, server2}, Focus: f.At, MaxRows: 40})
	suite.Report(t, f)
}

// reportViolation tells a linearizability failure: the checker's story, the
// timeline around it (the clients involved and both servers) and, when it
// could be written, porcupine's visualization.
func reportViolation(t *testing.T, w *sim.World, seed int64, h *check.History, l *check.Linearization, extra string) {
	v := l.Violation
	ops := h.Operations()
	var cols []sim.NodeID
	add := func(id sim.NodeID) {
		if id != "" && !slices.Contains(cols, id) {
			cols = append(cols, id)
		}
	}
	if len(v.Ops) > 1 {
		add(sim.NodeID(ops[v.Ops[1]].Client))
	}
	add(server1)
	add(server2)
	if len(v.Ops) > 0 {
		add(sim.NodeID(ops[v.Ops[0]].Client))
	}
	html, err := l.WriteHTML(suite.OutputDir(), fmt.Sprintf("ex04-seed-%d", seed), suite.Faults(w))
	if err != nil {
		html = ""
	}
	details := v.Details
	if extra != "" {
		details = extra + "\n" + details
	}
	focus := v.At
	if len(v.Ops) > 0 {
		focus = ops[v.Ops[0]].Call
	}
	suite.Report(t, suite.Failure{
		Name:     v.Name,
		Clause:   v.Clause,
		Story:    v.Story,
		At:       v.At,
		Seed:     seed,
		Details:  details,
		Timeline: w.Timeline(sim.TimelineOptions{Columns: cols, Focus: focus, MaxRows: 40, Width: 30}),
		HTML:     html,
	})
}
