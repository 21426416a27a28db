package ex06suite

import (
	"fmt"
	"strings"
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

// The two API servers, as scene.New names them; server-1 is servers[0].
const (
	server1 sim.NodeID = "server-1"
	server2 sim.NodeID = "server-2"
)

// Run runs the chapter's checks against serve, the boot function of each
// server node.
func Run(t *testing.T, serve scene.Boot) {
	suite.Run(t, "ex06", map[string]suite.CheckFunc{
		"story":        func(t *testing.T) { storyCheck(t, serve) },
		"one-history":  func(t *testing.T) { oneHistoryCheck(t, serve) },
		"linearizable": func(t *testing.T) { linearizableCheck(t, serve) },
	})
}

// Default seeds per check: enough to meet the story's race and the faults
// many ways, few enough that the suite stays well under a second.
const (
	storySeeds        = 10
	oneHistorySeeds   = 100
	linearizableSeeds = 100
)

// The story's scene: deployments/web runs 3 replicas. At storyScaleAt
// controller-a scales it to 5 through server-1 and, up to storyRace later,
// controller-b scales it to 2 through server-2; the servers' link is
// storyLink the whole time, and the clients sit next to their servers. At
// storyReadAt each controller reads web back from its own server, and at
// storyAuditAt the suite asks each server what it holds.
const (
	web          = "deployments/web"
	storyScaleAt = 1000 * ms
	storyRace    = 5 * ms
	storyReadAt  = 4000 * ms
	storyAuditAt = 8000 * ms
)

var storyLink = scene.SlowLink{A: server1, B: server2, Link: sim.Link{Min: 380 * ms, Max: 400 * ms}, For: storyAuditAt}

// storyScene builds and runs the story's world for seed, which decides only
// the jitter: how far apart the two scales are, and each message's delay.
func storyScene(seed int64, serve scene.Boot) *scene.Scene {
	s := scene.New(seed, serve, scene.Latency(3*ms, 8*ms), scene.RequestTimeout(requestTimeout))
	offset := time.Duration(s.W.Rand().Int63n(int64(storyRace)))
	var created sim.Group
	created.Add(1)
	s.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		defer created.Done()
		api.Pin(server1).Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3})
	})
	scaler := func(server sim.NodeID, replicas int, offset time.Duration) func(p *sim.Proc, api *kube.Client) {
		return func(p *sim.Proc, api *kube.Client) {
			api = api.Pin(server)
			created.Wait(p)
			p.Sleep(max(0, storyScaleAt+offset-p.Now()))
			api.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: replicas})
			p.Sleep(max(0, storyReadAt-p.Now()))
			api.Get(web, kube.ReadOptions{ResourceVersion: kube.Latest})
		}
	}
	s.Client("controller-a", scaler(server1, 5, 0))
	s.Client("controller-b", scaler(server2, 2, offset))
	s.Inject(storyLink)
	s.Lanes("controller-a", server1, server2, "controller-b")
	s.AuditAt(storyAuditAt, "deployments", web)
	s.Run(storyAuditAt + 30*time.Second)
	return s
}

// storyCheck: both clients are told yes, and both servers end with one
// history holding both changes and the same Deployment.
func storyCheck(t *testing.T, serve scene.Boot) {
	for _, seed := range suite.StorySeeds(storySeeds) {
		s := storyScene(seed, serve)
		ok := reportUnansweredAnyRead(t, s) && s.ReportRun(t) && reportWritesRefused(t, s, 1.0, false) && reportStoryDivergence(t, s) &&
			s.Report(t, check.Converged(s.States, s.AuditedAt)) &&
			reportLostWrite(t, s) && s.Linearizable(t)
		s.Close()
		if !ok {
			return
		}
	}
}

// reportStoryDivergence tells the story's divergence in the story's words:
// who scaled to what where, what each server ended with, and the two
// histories side by side at the first position where they differ.
func reportStoryDivergence(t testing.TB, s *scene.Scene) bool {
	v := scene.NumberedTwice(s.Histories)
	if v == nil {
		v = check.OneHistory(s.Histories)
	}
	if v == nil {
		return true
	}
	var a, b check.Operation
	for _, op := range s.History.Operations() {
		if op.Input.Kind.Mutates() && op.Client == "controller-a" {
			a = op
		}
		if op.Input.Kind.Mutates() && op.Client == "controller-b" {
			b = op
		}
	}
	replicas := func(server sim.NodeID) string {
		if n, ok := s.States[string(server)][web]; ok {
			return fmt.Sprintf("replicas=%v", n)
		}
		return "no " + web
	}
	story := fmt.Sprintf("controller-a scaled %s to 5 through server-1 (sent at %s) and controller-b scaled it to 2 through server-2 (sent at %s); "+
		"both were told yes, and at %s server-1 holds %s while server-2 holds %s. %s",
		web, suite.FormatTime(a.Call), suite.FormatTime(b.Call), suite.FormatTime(s.AuditedAt),
		replicas(server1), replicas(server2), upperFirst(v.Story))
	s.Fail(t, suite.Failure{Name: v.Name, Clause: v.Clause, Story: story, At: max(a.Return, b.Return),
		Details: "the scene: " + storyLink.String() + "\n" + v.Details, Timeline: s.Timeline(storyScaleAt + 400*ms)})
	return false
}

// reportWritesRefused guards against the cluster that keeps one history by
// accepting nothing: of the writes that no cut link could hold up (see
// heldUp), at least share must be acknowledged, or, where the workload may
// ask for what cannot be (ruled set), refused by the API's own rules (a
// conflict, a creation of what exists).
func reportWritesRefused(t testing.TB, s *scene.Scene, share float64, ruled bool) bool {
	var calm, answered int
	var firstNo time.Duration
	var lines []string
	for _, op := range s.History.Operations() {
		if !op.Input.Kind.Mutates() || heldUp(s, op) {
			continue
		}
		calm++
		switch op.Result.Outcome {
		case check.OK:
			answered++
			continue
		case check.Conflict, check.NotFound, check.AlreadyExists:
			if ruled {
				answered++
				continue
			}
		}
		if len(lines) == 0 {
			firstNo = op.Return
		}
		lines = append(lines, "  "+op.String())
	}
	if calm > 0 && float64(answered) >= share*float64(calm) {
		return true
	}
	s.Fail(t, suite.Failure{Name: "writes-refused", Clause: course.OneHistory, At: firstNo,
		Story: fmt.Sprintf("only %d of %d writes sent while the servers' link was whole were accepted (%.0f%% at least must be); a cluster keeps one history by ordering writes, not by refusing them",
			answered, calm, 100*share),
		Details: "writes neither accepted nor refused by the API's rules:\n" + strings.Join(lines, "\n") + "\nfaults:\n" + s.Describe()})
	return false
}

// heldUp reports whether a cut link or a lost sequencer may have held op
// up: it was in flight when a cut began, or was sent during one or less
// than cutRecovery after it ended, while the servers were still getting
// their messages through; or it was in flight or sent once the sequencer
// was lost for good.
func heldUp(s *scene.Scene, op check.Operation) bool {
	end := op.Return
	if op.Indefinite() {
		end = op.Call + requestTimeout
	}
	for _, f := range s.Declared() {
		switch c := f.(type) {
		case scene.Cut:
			if end >= c.From && op.Call <= c.From+c.For+cutRecovery {
				return true
			}
		case scene.Crash:
			if end >= c.At {
				return true
			}
		}
	}
	return false
}

// sequencerLost is the crash that lost the sequencer for good, if the
// world has one.
func sequencerLost(s *scene.Scene) (scene.Crash, bool) {
	for _, f := range s.Declared() {
		if c, ok := f.(scene.Crash); ok && c.Node == server1 && c.For == 0 {
			return c, true
		}
	}
	return scene.Crash{}, false
}

// reportLostWrite: every acknowledged write is in the longest history
// left, and every acknowledged deletion at the position its acknowledgement
// named (see unheldDelete). When
// the sequencer was lost for good and the write was acknowledged once the
// cut had begun, the story says so: server-2, the server left, never
// received what server-1 had said yes to.
func reportLostWrite(t testing.TB, s *scene.Scene) bool {
	v := check.Durable(s.History, s.Longest())
	if v == nil {
		v = unheldDelete(s.History, s.Longest())
	}
	if v == nil {
		return true
	}
	if c, ok := sequencerLost(s); ok && s.History.Operations()[v.Ops[0]].Return >= cutBefore(s, c.At) {
		v.Story += fmt.Sprintf(". %s was lost for good at %s (%s), and %s, the server left, never received the change: "+
			"a yes must wait until every server holds the change, or losing the sequencer loses what it decided",
			server1, suite.FormatTime(c.At), c, server2)
	}
	return s.Report(t, v)
}

// cutBefore is when the last cut that began before at began, or at if
// none did.
func cutBefore(s *scene.Scene, at time.Duration) time.Duration {
	from := at
	for _, f := range s.Declared() {
		if c, ok := f.(scene.Cut); ok && c.From <= at {
			from = c.From
		}
	}
	return from
}

// cutRecovery is how long after a cut the servers may still be sending
// again what the cut lost.
const cutRecovery = 1500 * ms

// oneHistoryCheck: randomized concurrent writes; one history, convergence,
// nothing acknowledged lost, most writes acknowledged.
func oneHistoryCheck(t *testing.T, serve scene.Boot) {
	scene.Search{
		Seeds: suite.Seeds(oneHistorySeeds),
		Build: func(seed int64) *scene.Scene { return workloadScene(seed, serve, 1, true) },
		Judge: func(t *testing.T, s *scene.Scene) bool {
			return reportUnansweredAnyRead(t, s) && s.ReportRun(t) && s.ReportOneHistory(t) &&
				s.Report(t, check.Converged(s.States, s.AuditedAt)) &&
				reportLostWrite(t, s) && reportWritesRefused(t, s, acceptedShare, true)
		},
		MinCompleted: 20,
		MinCovered:   0.9,
	}.Run(t)
}

// linearizableCheck: randomized reads and writes; no conditional delete
// acknowledged against an object that had changed (told as such, before
// porcupine would tell it as whichever answer it cannot place), and one
// order explains every answer. Then the own-copy scenes (owncopy.go), for
// the moment the randomized worlds meet once in a thousand seeds; they come
// second so that a mistake those worlds catch is told as they tell it.
func linearizableCheck(t *testing.T, serve scene.Boot) {
	ok := scene.Search{
		Seeds: suite.Seeds(linearizableSeeds),
		Build: func(seed int64) *scene.Scene { return workloadScene(seed, serve, 2, false) },
		Judge: func(t *testing.T, s *scene.Scene) bool {
			return reportUnansweredAnyRead(t, s) && s.ReportRun(t) && s.ReportOneHistory(t) &&
				reportLostWrite(t, s) && s.Report(t, check.StaleDelete(s.History, s.Longest())) && s.Linearizable(t) &&
				reportWritesRefused(t, s, acceptedShare, true)
		},
		MinCompleted: 20,
		MinCovered:   0.9,
	}.Run(t)
	if ok {
		ownCopyWorlds(t, serve)
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
