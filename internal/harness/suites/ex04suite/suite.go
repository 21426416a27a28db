package ex04suite

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

const ms = time.Millisecond

// The two API servers, as scene.New names them.
const (
	server1 sim.NodeID = "server-1"
	server2 sim.NodeID = "server-2"
)

// Run runs the hidden suite of chapter ex04 against serve, the boot function
// of each server node.
func Run(t *testing.T, serve scene.Boot) {
	suite.Run(t, "ex04", map[string]suite.CheckFunc{
		"story":        func(t *testing.T) { storyCheck(t, serve) },
		"acknowledged": func(t *testing.T) { acknowledgedCheck(t, serve) },
		"linearizable": func(t *testing.T) { linearizableCheck(t, serve) },
		"progress":     func(t *testing.T) { progressCheck(t, serve) },
	})
}

// Default seeds per check: enough to meet the slow link, the lossy link and
// the crash in many ways, few enough that the chapter runs well under a
// second.
const (
	storySeeds        = 5
	acknowledgedSeeds = 10
	linearizableSeeds = 100
	progressSeeds     = 60
)

// The story's scene: web has 3 replicas on both servers; at storyScaleAt the
// controller scales it to 5 through server-1, whose link to server-2 is
// storyLink the whole time; storyReadAfter after the controller hears yes,
// the dashboard gets and then lists deployments through server-2.
const (
	web            = "deployments/web"
	storyScaleAt   = 2000 * ms
	storyReadAfter = 5 * ms
	storyAuditAt   = 6000 * ms
)

var storyLink = scene.SlowLink{A: server1, B: server2, Link: sim.Link{Min: 400 * ms, Max: 400 * ms}, For: storyAuditAt}

// storyScene builds and runs the story's world for seed, which decides only
// the jitter of the clients' links.
func storyScene(seed int64, serve scene.Boot) *scene.Scene {
	s := scene.New(seed, serve, scene.Latency(2*ms, 5*ms), scene.RequestTimeout(requestTimeout))
	var acked sim.Queue[bool]
	acked.Name = "the controller heard yes"
	s.Client("controller", func(p *sim.Proc, api *kube.Client) {
		api = api.Pin(server1)
		if _, err := api.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3}); err != nil {
			return
		}
		p.Sleep(max(0, storyScaleAt-p.Now()))
		if _, err := api.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: 5}); err == nil {
			acked.Put(true)
		}
	})
	s.Client("dashboard", func(p *sim.Proc, api *kube.Client) {
		api = api.Pin(server2)
		acked.Get(p)
		p.Sleep(storyReadAfter)
		api.Get(web, kube.ReadOptions{ResourceVersion: kube.Latest})
		s.List(p, api, "deployments", web)
	})
	s.Inject(storyLink)
	s.Lanes("controller", server1, server2, "dashboard")
	s.AuditAt(storyAuditAt, "deployments", web)
	s.Run(storyAuditAt + 30*time.Second)
	return s
}

// storyCheck: the dashboard, reading server-2 just after server-1 said yes,
// sees 5, in its Get and in its List.
func storyCheck(t *testing.T, serve scene.Boot) {
	for _, seed := range suite.StorySeeds(storySeeds) {
		s := storyScene(seed, serve)
		ok := s.ReportRun(t) && reportStoryCopied(t, s) && reportStoryWrite(t, s) && s.ReportOneHistory(t) &&
			s.Report(t, check.Durable(s.History, s.Longest())) && s.Linearizable(t) && reportStoryReads(t, s)
		s.Close()
		if !ok {
			return
		}
	}
}

// reportStoryCopied fails a story in which server-2, when the suite read it
// seconds later, did not hold a write server-1 had said yes to: the yes came
// while the change was only on server-1, and every change server-1 sends
// after it waits on server-2 for the one in front of it.
func reportStoryCopied(t testing.TB, s *scene.Scene) bool {
	survivor, ok := s.Histories[string(server2)]
	if !ok {
		return true // the read of server-2 failed: ReportRun tells it
	}
	v := check.Durable(s.History, survivor)
	if v == nil {
		return true
	}
	op := s.History.Operations()[v.Ops[0]]
	story := fmt.Sprintf("server-1 told %s its %s was accepted at %s (when the answer was received), and at %s, when the suite read the servers, "+
		"server-2's history still did not hold it: the yes came while the change was nowhere but on server-1, and had server-1 died then it was lost",
		op.Client, op.Input, suite.FormatTime(op.Return), suite.FormatTime(storyAuditAt))
	if !reportedYes(s, "controller", op.ID) {
		story += fmt.Sprintf("; the scale to 5 sent at %s was never told yes either: server-2 applies a change only after the one in front of it", suite.FormatTime(storyScaleAt))
	}
	s.Fail(t, suite.Failure{Name: "lost-write", Clause: course.AgreementFirst, At: op.Return, Story: story,
		Details: "the scene: " + storyLink.String() + "\n" + v.Details})
	return false
}

// reportedYes says whether client was told yes to a write after the
// operation numbered after.
func reportedYes(s *scene.Scene, client string, after check.OpID) bool {
	for _, op := range s.History.Operations() {
		if op.Client == client && op.ID > after && op.Input.Kind.Mutates() && op.Acknowledged() {
			return true
		}
	}
	return false
}

// reportStoryWrite fails a story whose controller was never told yes: a
// cluster that refuses the write, or leaves it unanswered while the link is
// slow, has nothing stale to show.
func reportStoryWrite(t testing.TB, s *scene.Scene) bool {
	var unanswered *check.Operation
	for _, op := range s.History.Operations() {
		if op.Client != "controller" {
			continue
		}
		if op.Input.Kind == check.KindWrite && op.Acknowledged() {
			return true
		}
		if !op.Acknowledged() && unanswered == nil {
			unanswered = &op
		}
	}
	story := fmt.Sprintf("the controller asked server-1 to scale %s to 5 at %s and was never told yes", web, suite.FormatTime(storyScaleAt))
	if op := unanswered; op != nil {
		got := "no answer by " + suite.FormatTime(s.W.Now())
		if op.Completed() {
			got = fmt.Sprintf("%s at %s", op.Result.Outcome, suite.FormatTime(op.Return))
		}
		story = fmt.Sprintf("the controller asked server-1 to %s at %s and got %s, while the servers' link took %s each way: "+
			"a round trip over it is %s, so a call to the other server must wait longer than that",
			op.Input, suite.FormatTime(op.Call), got, suite.FormatTime(storyLink.Link.Max), suite.FormatTime(2*storyLink.Link.Max))
	}
	s.Fail(t, suite.Failure{Name: "write-refused", Clause: course.OneHistory, At: s.W.Now(),
		Story:   story + "; a cluster that keeps one answer by accepting nothing is not the fix",
		Details: "the scene: " + storyLink.String()})
	return false
}

// reportStoryReads fails a story whose dashboard got no answer: a read that
// waits forever is not stale, and not an answer either.
func reportStoryReads(t testing.TB, s *scene.Scene) bool {
	reads := 0
	for _, op := range s.History.Operations() {
		if op.Client == "dashboard" && op.Completed() {
			reads++
		}
	}
	if reads >= 2 {
		return true
	}
	s.Fail(t, suite.Failure{Name: "unanswered-read", Clause: course.OneHistory, At: s.W.Now(),
		Story: fmt.Sprintf("the dashboard's Latest get and list of deployments through server-2 did not both get an answer by %s, when the suite read the servers, "+
			"while the servers' link took %s each way: a read that waits on the other server must wait for it longer than a round trip, %s",
			suite.FormatTime(s.W.Now()), suite.FormatTime(storyLink.Link.Max), suite.FormatTime(2*storyLink.Link.Max)),
		Details: "the scene: " + storyLink.String()})
	return false
}

// The acknowledged check's scene: from ackWritesFrom the controller scales
// web through server-1 again and again, each time to a new count, over the
// story's 400ms link; at a moment of the seed's choosing in [ackCutFrom,
// ackCutFrom+ackCutSpread) server-1 is cut off from everyone, and ackDieAfter
// later it dies for good. The auditor reads server-2 at ackAuditAt.
const (
	ackWritesFrom = 2000 * ms
	ackWritesTo   = 3500 * ms
	ackCutFrom    = 2100 * ms
	ackCutSpread  = 600 * ms
	ackDieAfter   = 50 * ms
	ackAuditAt    = 20 * time.Second
)

// ackFaults are the acknowledged check's faults when server-1 is cut off at
// cut.
func ackFaults(cut time.Duration) []scene.Fault {
	return []scene.Fault{
		scene.SlowLink{A: server1, B: server2, Link: storyLink.Link, For: ackAuditAt},
		scene.Partition{Groups: [][]sim.NodeID{{server1}}, From: cut},
		scene.Crash{Node: server1, At: cut + ackDieAfter},
	}
}

func acknowledgedScene(seed int64, serve scene.Boot) *scene.Scene {
	s := scene.New(seed, serve, scene.Latency(2*ms, 5*ms), scene.RequestTimeout(requestTimeout))
	cut := ackCutFrom + time.Duration(s.W.Rand().Int63n(int64(ackCutSpread)))
	s.Client("controller", func(p *sim.Proc, api *kube.Client) {
		api = api.Pin(server1)
		if _, err := api.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3}); err != nil {
			return
		}
		p.Sleep(ackWritesFrom - p.Now())
		for n := 4; p.Now() < ackWritesTo; n++ {
			api.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: n})
			p.Sleep(20 * ms)
		}
	})
	s.Inject(ackFaults(cut)...)
	s.Lanes("controller", server1, server2)
	s.AuditAt(ackAuditAt, "deployments", web)
	s.Run(ackAuditAt + 30*time.Second)
	return s
}

// acknowledgedCheck: every write server-1 acknowledged is on server-2 when
// server-1 is gone.
func acknowledgedCheck(t *testing.T, serve scene.Boot) {
	for _, seed := range suite.StorySeeds(acknowledgedSeeds) {
		s := acknowledgedScene(seed, serve)
		ok := reportSurvivorAnyRead(t, s) && s.ReportRun(t) && reportLostOnCrash(t, s)
		s.Close()
		if !ok {
			return
		}
	}
}

// reportSurvivorAnyRead fails a survivor that would not answer the
// auditor's kube.Any read: such a read is served from what the server
// holds, stale if need be, and must not wait on a server that is gone.
func reportSurvivorAnyRead(t testing.TB, s *scene.Scene) bool {
	if s.Err != nil {
		return true // ReportRun tells it
	}
	for _, u := range s.Unread {
		if u.Server != server2 || u.Key != web || !errors.Is(u.Err, sim.ErrTimeout) {
			continue
		}
		var died time.Duration
		for _, f := range s.Declared() {
			if c, ok := f.(scene.Crash); ok {
				died = c.At
			}
		}
		s.Fail(t, suite.Failure{Name: "unanswered-read", Clause: course.OneHistory, At: ackAuditAt,
			Story: fmt.Sprintf("server-1 died at %s; at %s the suite asked server-2, the survivor, for %s with kube.Any (resourceVersion \"0\") "+
				"and got no answer in %s: an Any read is answered from what the server holds, stale if need be, and must not wait on a server that is gone",
				suite.FormatTime(died), suite.FormatTime(ackAuditAt), web, requestTimeout),
			Details: "faults:\n" + s.Describe()})
		return false
	}
	return true
}

// reportLostOnCrash tells an acknowledged write the survivor never got as
// what it is: a yes given before the change was anywhere but on the server
// that then died.
func reportLostOnCrash(t testing.TB, s *scene.Scene) bool {
	survivor, ok := s.Histories[string(server2)]
	if !ok {
		s.Fail(t, suite.Failure{Name: "no-audit", At: s.W.Now(), Story: "the suite could not read server-2's history after server-1 died"})
		return false
	}
	v := check.Durable(s.History, survivor)
	if v == nil {
		return true
	}
	op := s.History.Operations()[v.Ops[0]]
	var cut, died time.Duration
	for _, f := range s.Declared() {
		switch f := f.(type) {
		case scene.Partition:
			cut = f.From
		case scene.Crash:
			died = f.At
		}
	}
	story := fmt.Sprintf("server-1 told %s its %s was accepted at %s (when the answer was received), then was cut off at %s and died at %s, "+
		"and server-2 never applied it: the yes came while the change was nowhere but on server-1",
		op.Client, op.Input, suite.FormatTime(op.Return), suite.FormatTime(cut), suite.FormatTime(died))
	if n := len(v.Ops) - 1; n > 0 {
		story += fmt.Sprintf(" (%d more acknowledged writes went with it)", n)
	}
	s.Fail(t, suite.Failure{Name: "lost-write", Clause: course.AgreementFirst, At: op.Return, Story: story,
		Details: "faults:\n" + s.Describe() + "\n" + v.Details})
	return false
}

// linearizableCheck: one history, nothing acknowledged lost, and one order
// of every Get and List.
func linearizableCheck(t *testing.T, serve scene.Boot) {
	if !readIndexWorlds(t, serve) {
		return
	}
	scene.Search{
		Seeds: suite.Seeds(linearizableSeeds),
		Build: func(seed int64) *scene.Scene { return workloadScene(seed, serve, linearizableFaults, 2) },
		Judge: func(t *testing.T, s *scene.Scene) bool {
			return s.ReportRun(t) && s.ReportOneHistory(t) &&
				s.Report(t, check.Durable(s.History, s.Longest())) && s.Linearizable(t)
		},
		MinCompleted: 20,
		MinCovered:   0.9,
	}.Run(t)
}

// progressCheck: every request answered, one history, the same objects on
// both servers, nothing acknowledged lost.
func progressCheck(t *testing.T, serve scene.Boot) {
	scene.Search{
		Seeds: suite.Seeds(progressSeeds),
		Build: func(seed int64) *scene.Scene { return workloadScene(seed, serve, progressFaults, 1) },
		Judge: func(t *testing.T, s *scene.Scene) bool {
			return s.ReportRun(t) && reportUnanswered(t, s) && s.ReportOneHistory(t) &&
				s.Report(t, check.Converged(s.States, s.AuditedAt)) &&
				s.Report(t, check.Durable(s.History, s.Longest()))
		},
		MinCompleted: 20,
		MinCovered:   0.9,
	}.Run(t)
}

// reportUnanswered fails a run in which a Latest read or a write got no
// definite answer, or most writes were refused.
func reportUnanswered(t testing.TB, s *scene.Scene) bool {
	for _, op := range s.History.Operations() {
		if !op.Completed() {
			s.Fail(t, suite.Failure{Name: "unanswered-request", Clause: course.OneHistory, At: op.Call,
				Story: fmt.Sprintf("%s asked %s to %s at %s (when it was sent) and got no answer from the cluster (%s); faults come and go, and a request sent while the link loses messages must still be answered",
					op.Client, op.Server, op.Input, suite.FormatTime(op.Call), op.Result.Outcome),
				Details: op.String() + "\nfaults:\n" + s.Describe()})
			return false
		}
	}
	return true
}
