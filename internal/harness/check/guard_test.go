package check_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/sim"
)

func TestMonitor(t *testing.T) {
	// The chapter 5 story: two reconcilers, each sure it was alone,
	// created 8 pods where 5 were desired.
	desired, pods := 5, 0
	m := check.NewMonitor(check.Invariant{
		Name:   "too-many-pods",
		Rule:   "pods never exceed the desired count",
		Clause: course.AgreementFirst,
		Check: func() error {
			if pods > desired {
				return fmt.Errorf("%d pods for deployments/web, %d desired", pods, desired)
			}
			return nil
		},
	})
	assert.Equal(t, "vacuous-run", m.Result().Name, "nothing checked yet")

	for step, n := range []int{1, 3, 5, 5, 8, 9, 5} {
		pods = n
		m.Step(ms(100 * (step + 1)))
	}
	v := m.Result()
	require.NotNil(t, v)
	assert.Equal(t, "too-many-pods", v.Name)
	assert.Equal(t, course.AgreementFirst, v.Clause)
	assert.Equal(t, ms(500), v.At, "the first breach is kept, not the later ones")
	assert.Equal(t, "pods never exceed the desired count: broken at 500ms: 8 pods for deployments/web, 5 desired", v.Story)
	assert.Equal(t, 5, m.Steps(), "after the first breach nothing more is checked")
	assert.Same(t, v, m.Violation())

	ok := check.NewMonitor()
	ok.Add(check.Invariant{Rule: "always", Check: func() error { return nil }})
	for i := range 10 {
		assert.Nil(t, ok.Step(ms(i)))
	}
	assert.Nil(t, ok.Result())

	bad := check.NewMonitor(check.Invariant{Rule: "never", Check: func() error { return errors.New("broken") }})
	assert.Equal(t, "broken-invariant", bad.Step(ms(1)).Name)
}

func TestExercised(t *testing.T) {
	// busy: a client writes and reads from 1000ms to 5000ms.
	busy := func() *check.History {
		h := check.NewHistory()
		for i := range 20 {
			at := 1000 + 200*i
			done(h, "kubectl", "server-1", check.Write("deployments/web", i), at, at+50, check.Acked(int64(i+1)))
			done(h, "controller-a", "server-2", check.Read("deployments/web"), at+100, at+150, check.Found(i, int64(i+1)))
		}
		return h
	}
	partition := check.Fault{Kind: sim.FaultPartition, Desc: "partition server-1 | server-2", Start: ms(2000), End: ms(4000)}
	tests := []struct {
		name    string
		history *check.History
		faults  []check.Fault
		story   string
	}{
		{
			name:    "faults during client operations",
			history: busy(),
			faults:  []check.Fault{partition},
		},
		{
			name:    "a crash at a moment a request is in flight",
			history: busy(),
			faults:  []check.Fault{{Kind: sim.FaultCrash, Desc: "crash server-1", Nodes: []sim.NodeID{"server-1"}, Start: ms(1020)}},
		},
		{
			name:    "a suite that ran nothing",
			history: check.NewHistory(),
			faults:  []check.Fault{partition},
			story:   "the run recorded no client operations: nothing was tested",
		},
		{
			// The chaos drill of the story: the server was killed while
			// nobody wrote.
			name:    "faults that hit an idle cluster",
			history: busy(),
			faults:  []check.Fault{{Kind: sim.FaultCrash, Desc: "crash server-1", Nodes: []sim.NodeID{"server-1"}, Start: ms(9000)}, {Kind: sim.FaultPartition, Desc: "partition server-1 | server-2", Start: ms(100), End: ms(900)}},
			story:   "none of the 2 faults overlapped a client operation: the faults hit an idle cluster",
		},
		{
			name:    "no faults at all",
			history: busy(),
			story:   "no fault was injected: the run only showed that a calm cluster works",
		},
		{
			// The clients got a prompt answer to most of what they sent,
			// but sent too little: the test's failure.
			name: "too few operations sent",
			history: func() *check.History {
				h := check.NewHistory()
				done(h, "kubectl", "server-1", check.Write("deployments/web", 5), 2000, 2010, check.Acked(1))
				timedOut(h, "kubectl", "server-1", check.Write("deployments/web", 6), 2200, 3200)
				done(h, "kubectl", "server-1", check.Read("deployments/web"), 6300, 6310, check.Found(5, 1))
				return h
			}(),
			faults: []check.Fault{partition},
			story:  "only 2 of 3 client operations completed (at least 10 needed): the run tested too little",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := check.Exercised(tt.history, tt.faults, 10)
			if tt.story == "" {
				assert.Nil(t, v)
				return
			}
			require.NotNil(t, v)
			t.Log("\n" + v.Error() + "\n" + v.Details)
			assert.Equal(t, "vacuous-run", v.Name)
			assert.Equal(t, tt.story, v.Story)
		})
	}
}

// A leader that never commits: the clients keep asking, and the cluster
// answers almost nothing. That is the cluster's failure, not an idle drill,
// and the verdict names the writes it left unanswered.
func TestExercisedTellsAClusterThatAnsweredNothingFromAnIdleDrill(t *testing.T) {
	h := check.NewHistory()
	timedOut(h, "client-a", "server-2", check.Write("deployments/web", 21), 210, 1210)
	done(h, "client-b", "server-1", check.Read("deployments/web"), 230, 1230, check.Fail(check.Refused))
	done(h, "client-c", "server-3", check.Read("deployments/db"), 250, 260, check.Found(nil, 0))
	timedOut(h, "client-b", "server-1", check.Write("deployments/api", 31), 1400, 2400)
	h.Call("client-a", "server-2", check.Write("deployments/db", 41), ms(1500))
	crash := []check.Fault{{Kind: sim.FaultCrash, Desc: "crash server-3", Nodes: []sim.NodeID{"server-3"}, Start: ms(300), End: ms(900)}}

	v := check.Exercised(h, crash, 10)
	found(t, v, check.Unanswered, course.OneHistory) // the clients sent requests: the cluster left them unanswered
	assert.Equal(t, ms(210), v.At, "the first write left unanswered")
	assert.Equal(t, "the cluster answered only 1 of the 5 requests its clients sent (2 timed out, 1 was refused, "+
		"1 was still waiting when the run ended; at least 10 answers needed to judge the run): "+
		"client-a's write deployments/web=21 through server-2, sent at 210ms, never got one", v.Story)
	assert.Contains(t, v.Details, "client-b write deployments/api=31 via server-1 [1400ms, 2400ms] → timed out")
	assert.Contains(t, v.Details, "client-a write deployments/db=41 via server-2 [1500ms, …] → pending")
	assert.NotContains(t, v.Details, "deployments/db via server-3", "an answered read is not listed")

	// The same faults over a cluster that answered everything it was
	// sent, but was sent little: the drill's failure.
	quiet := check.NewHistory()
	done(quiet, "client-a", "server-2", check.Write("deployments/web", 21), 210, 230, check.Acked(2))
	v = check.Exercised(quiet, crash, 10)
	require.NotNil(t, v)
	assert.Equal(t, check.Vacuous, v.Name)
}

// A leader that commits only on its next heartbeat: it answers nearly
// every request, but each takes a heartbeat, so clients that wait for one
// answer before asking again send too few to judge the run. That is the
// cluster's failure, told by its pace, not an idle drill.
func TestExercisedTellsAClusterThatAnsweredTooSlowly(t *testing.T) {
	h := check.NewHistory()
	for i := range 4 {
		at := 200 + 130*i
		done(h, "controller-a", "server-1", check.Write("deployments/web", i), at, at+110, check.Acked(int64(i+1)))
		done(h, "controller-b", "server-2", check.Read("deployments/web"), at+5, at+105, check.Found(i, int64(i+1)))
	}
	done(h, "controller-b", "server-2", check.Read("deployments/api"), 800, 1210, check.Found(nil, 0))
	crash := []check.Fault{{Kind: sim.FaultCrash, Desc: "crash server-3", Nodes: []sim.NodeID{"server-3"}, Start: ms(300), End: ms(900)}}

	v := check.Exercised(h, crash, 10)
	found(t, v, check.Slow, course.OneHistory)
	assert.Equal(t, ms(800), v.At, "the slowest answer")
	assert.Equal(t, "the cluster answered all 9 requests its clients sent, too few to judge the run (at least 10 needed), "+
		"because it answered slowly: a median of 110ms, and 410ms to controller-b's read deployments/api through server-2, sent at 800ms; "+
		"its clients, each waiting for an answer before asking again, spent 62% of their time waiting", v.Story)

	var cov check.Coverage
	cov.Add(1, v)
	cov.Add(2, nil)
	v = cov.Check(0.9)
	require.NotNil(t, v)
	assert.Equal(t, check.Slow, v.Name)
	assert.True(t, strings.HasPrefix(v.Story, "in 1 of 2 runs the cluster answered too slowly, so too few runs could be judged (at least 90% needed); in the first, the cluster answered all 9"), v.Story)
}

func TestCoverage(t *testing.T) {
	idle := &check.Violation{Name: "vacuous-run", Story: "none of the 1 faults overlapped a client operation: the faults hit an idle cluster"}

	var none check.Coverage
	require.NotNil(t, none.Check(0.5))
	assert.Equal(t, "the randomized check ran no runs at all: nothing was tested", none.Check(0.5).Story)

	var mostly check.Coverage
	for seed := int64(1); seed <= 100; seed++ {
		if seed%10 == 0 {
			mostly.Add(seed, idle)
		} else {
			mostly.Add(seed, nil)
		}
	}
	assert.Equal(t, 100, mostly.Runs)
	assert.Equal(t, 90, mostly.Exercised)
	assert.Nil(t, mostly.Check(0.9))

	v := mostly.Check(0.95)
	require.NotNil(t, v)
	assert.Equal(t, "vacuous-run", v.Name)
	assert.Equal(t, "only 90 of 100 runs had faults that met client operations (at least 95% needed): the randomized check proved little", v.Story)
	assert.Contains(t, v.Details, "seed 10: none of the 1 faults")

	// A store that answers nothing leaves every run unjudged: the
	// coverage names it, not the drill, and replays its first such run.
	unanswered := &check.Violation{Name: check.Unanswered, Clause: course.AgreementFirst,
		Story: "the cluster answered only 0 of the 13 requests its clients sent"}
	var silent check.Coverage
	for seed := int64(1); seed <= 60; seed++ {
		if seed%20 == 0 {
			silent.Add(seed, idle)
		} else {
			silent.Add(seed, unanswered)
		}
	}
	v = silent.Check(0.9)
	require.NotNil(t, v)
	assert.Equal(t, check.Unanswered, v.Name)
	assert.Equal(t, course.AgreementFirst, v.Clause, "the clause the runs' verdicts gave")
	assert.Equal(t, "in 57 of 60 runs the cluster left most requests without an answer, so too few runs could be judged "+
		"(at least 90% needed); in the first, the cluster answered only 0 of the 13 requests its clients sent", v.Story)
	assert.Contains(t, v.Details, "runs in which the cluster answered too few requests to judge:\n  seed 1: ")
	assert.Contains(t, v.Details, "runs that tested nothing:\n  seed 20: ")
	seed, ok := silent.FirstIdle()
	assert.True(t, ok)
	assert.Equal(t, int64(1), seed)

	// Runs the drill wasted outnumber those the store left unanswered:
	// the drill is to blame.
	var wasteful check.Coverage
	for seed := int64(1); seed <= 10; seed++ {
		switch {
		case seed <= 2:
			wasteful.Add(seed, unanswered)
		case seed <= 7:
			wasteful.Add(seed, idle)
		default:
			wasteful.Add(seed, nil)
		}
	}
	v = wasteful.Check(0.9)
	require.NotNil(t, v)
	assert.Equal(t, check.Vacuous, v.Name)
	seed, _ = wasteful.FirstIdle()
	assert.Equal(t, int64(3), seed, "the run to replay is one the drill wasted")

	var allIdle check.Coverage
	for seed := int64(1); seed <= 30; seed++ {
		allIdle.Add(seed, idle)
	}
	v = allIdle.Check(0)
	require.NotNil(t, v, "even with no minimum, a check with no exercised run fails")
	assert.Contains(t, v.Details, "and 20 more")
}
