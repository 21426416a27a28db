package ex04suite

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

const web = "deployments/web"

// story is the page's scene, with the timing of the incident: web has 3
// replicas; a controller scales it to 5 on server-1, whose link to server-2
// takes 400ms each way; 5ms after server-1 acknowledges, a dashboard asks
// server-2 for web. It must be told 5.
func (c chapter) story(t *testing.T) {
	for _, seed := range suite.StorySeeds(5) {
		if !c.storyRun(t, seed) {
			return
		}
	}
}

func (c chapter) storyRun(t *testing.T, seed int64) bool {
	w := sim.New(seed, sim.Latency(2*ms, 5*ms))
	defer w.Close()
	c.boot(w)
	w.SetLinks(server1, server2, sim.Link{Min: 400 * ms, Max: 400 * ms})
	w.Fault("link server-1 ⇄ server-2 at 400ms each way", 0, 10*time.Second)

	h := check.NewHistory()
	var acked sim.Queue[kube.Object]
	acked.Name = "acknowledged"
	var scaled, read *kube.Object
	var scaleErr, readErr error
	w.AddNode("controller", func(p *sim.Proc) {
		cl := client{p, h}
		if _, err := cl.create(server1, web, 3); err != nil {
			scaleErr = fmt.Errorf("creating %s with 3 replicas on server-1: %w", web, err)
			return
		}
		p.Sleep(2 * time.Second) // long enough for both servers to hold web=3
		obj, err := cl.scale(server1, web, 5, 0)
		if err != nil {
			scaleErr = fmt.Errorf("scaling %s to 5 on server-1: %w", web, err)
			return
		}
		scaled = &obj
		acked.Put(obj)
	})
	w.AddNode("dashboard", func(p *sim.Proc) {
		acked.Get(p)
		p.Sleep(5 * ms)
		obj, err := client{p, h}.get(server2, web)
		read, readErr = &obj, err
	})
	if err := w.Run(10 * time.Second); err != nil {
		runError(t, w, seed, err)
		return false
	}
	scene := "the scene: web has 3 replicas on both servers; at 2000ms the controller scales it to 5 on server-1 " +
		"(server-1 ⇄ server-2 takes 400ms each way); 5ms after server-1 says yes, the dashboard reads web from server-2"
	if l := check.Linearizable(h, 0); !l.OK() {
		reportViolation(t, w, seed, h, l, scene)
		return false
	}
	fail := func(name, story string) bool {
		suite.Report(t, suite.Failure{Name: name, Clause: course.OneHistory, Story: story, At: w.Now(), Seed: seed, Details: scene,
			Timeline: w.Timeline(sim.TimelineOptions{Columns: []sim.NodeID{"controller", server1, server2, "dashboard"}, Focus: 2000 * ms, MaxRows: 40, Width: 30})})
		return false
	}
	switch {
	case scaleErr != nil:
		return fail("write-failed", "the controller's write was not accepted: "+scaleErr.Error())
	case scaled == nil:
		return fail("write-failed", "the controller never heard back from server-1 about scaling web to 5")
	case read == nil:
		return fail("unanswered-read", "the dashboard's read of web on server-2 never returned")
	case readErr != nil:
		return fail("unanswered-read", "the dashboard's read of web on server-2 failed: "+readErr.Error())
	case read.Replicas != 5:
		return fail("stale-read", fmt.Sprintf("the dashboard read web=%d from server-2 after server-1 had acknowledged web=5", read.Replicas))
	}
	return true
}

// randomized runs concurrent controllers and dashboards against both
// servers, with a window in which the link between the servers is at its
// slowest, and asks porcupine for one history. It stops at the first seed
// that has none.
func (c chapter) randomized(t *testing.T) {
	var cov check.Coverage
	for _, seed := range suite.Seeds(100) {
		ok, v := c.randomizedRun(t, seed)
		if !ok {
			return
		}
		cov.Add(seed, v)
	}
	suite.Coverage(t, &cov, 0.9)
}

func (c chapter) randomizedRun(t *testing.T, seed int64) (bool, *check.Violation) {
	w, h, _ := c.workload(seed, true)
	defer w.Close()
	if err := w.Run(time.Minute); err != nil {
		runError(t, w, seed, err)
		return false, nil
	}
	fs := suite.Faults(w)
	if l := check.Linearizable(h, 0); !l.OK() {
		var lines []string
		for _, f := range fs {
			lines = append(lines, "fault: "+f.String())
		}
		reportViolation(t, w, seed, h, l, strings.Join(lines, "\n"))
		return false, nil
	}
	return true, check.Exercised(h, fs, 20)
}

// progress runs the same clients over links of up to 400ms everywhere and
// requires that every request gets a definite answer and that, once the
// clients are done, both servers hold the same objects. A server that
// refuses, or waits forever, has no stale reads; it has no cluster either.
func (c chapter) progress(t *testing.T) {
	for _, seed := range suite.Seeds(50) {
		if !c.progressRun(t, seed) {
			return
		}
	}
}

func (c chapter) progressRun(t *testing.T, seed int64) bool {
	w, h, final := c.workload(seed, false)
	defer w.Close()
	if err := w.Run(time.Minute); err != nil {
		runError(t, w, seed, err)
		return false
	}
	cols := []sim.NodeID{server1, server2}
	ops := h.Operations()
	if len(ops) == 0 {
		suite.Report(t, suite.Failure{Name: "vacuous-run", Clause: course.OneHistory, Seed: seed, At: w.Now(),
			Story: "no client made a single request: the run tested nothing"})
		return false
	}
	for _, op := range ops {
		if !op.Completed() {
			suite.Report(t, suite.Failure{Name: "unanswered-request", Clause: course.OneHistory, Seed: seed, At: op.Call,
				Story:    fmt.Sprintf("%s asked %s to %s at %s and got no answer from the store (%s)", op.Client, op.Server, op.Input, suite.FormatTime(op.Call), op.Result.Outcome),
				Details:  op.String(),
				Timeline: w.Timeline(sim.TimelineOptions{Columns: append(cols, sim.NodeID(op.Client)), Focus: op.Call, MaxRows: 40, Width: 30})})
			return false
		}
	}
	if len(final.states) == 0 {
		suite.Report(t, suite.Failure{Name: "unanswered-request", Clause: course.OneHistory, Seed: seed, At: w.Now(),
			Story: "the clients never finished, so the servers' final state could not be read"})
		return false
	}
	if v := check.Converged(final.states, final.at); v != nil {
		suite.Report(t, suite.Failure{Name: v.Name, Clause: course.OneHistory, Story: v.Story, At: v.At, Seed: seed, Details: v.Details,
			Timeline: w.Timeline(sim.TimelineOptions{Columns: cols, Focus: final.at, MaxRows: 40, Width: 30})})
		return false
	}
	return true
}
