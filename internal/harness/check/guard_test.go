package check_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
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
	partition := check.Fault{Name: "partition server-1 | server-2", Start: ms(2000), End: ms(4000)}
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
			faults:  []check.Fault{{Name: "crash server-1", Start: ms(1020)}},
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
			faults:  []check.Fault{{Name: "crash server-1", Start: ms(9000)}, {Name: "partition server-1 | server-2", Start: ms(100), End: ms(900)}},
			story:   "none of the 2 faults overlapped a client operation: the faults hit an idle cluster",
		},
		{
			name:    "no faults at all",
			history: busy(),
			story:   "no fault was injected: the run only showed that a calm cluster works",
		},
		{
			name: "too few operations completed",
			history: func() *check.History {
				h := check.NewHistory()
				done(h, "kubectl", "server-1", check.Write("deployments/web", 5), 2000, 2100, check.Fail(check.Refused))
				timedOut(h, "kubectl", "server-1", check.Write("deployments/web", 6), 2200, 3200)
				done(h, "kubectl", "server-1", check.Read("deployments/web"), 3300, 3400, check.Found(3, 1))
				return h
			}(),
			faults: []check.Fault{partition},
			story:  "only 1 of 3 client operations completed (at least 10 needed): the run tested too little",
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

	var allIdle check.Coverage
	for seed := int64(1); seed <= 30; seed++ {
		allIdle.Add(seed, idle)
	}
	v = allIdle.Check(0)
	require.NotNil(t, v, "even with no minimum, a check with no exercised run fails")
	assert.Contains(t, v.Details, "and 20 more")
}
