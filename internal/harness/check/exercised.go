package check

import (
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/course"
)

// Exercised is the guard against vacuous passes: it checks that a run
// actually tested something. It fails unless at least minCompleted of h's
// operations completed (got a definite answer from the store: see
// Outcome.Definite) and at least one fault overlapped at least one client
// operation, from its call to its return (an operation still pending, or
// timed out, may still be in flight: it overlaps every later fault). Fault
// and operation intervals are closed; a fault at a moment overlaps an
// operation in flight at that moment.
//
// It returns nil, or the violation "vacuous-run". That is a failure of the
// test, not of the store; its clause is 1 (course.OneHistory), the clause a
// drill that never meets a client cannot show, and a caller may set another.
func Exercised(h *History, faults []Fault, minCompleted int) *Violation {
	ops := h.Operations()
	var end time.Duration
	completed := 0
	for _, op := range ops {
		end = max(end, op.Call, op.Return)
		if op.Completed() {
			completed++
		}
	}
	fail := func(at time.Duration, format string, args ...any) *Violation {
		return &Violation{Clause: course.OneHistory, Name: "vacuous-run", At: at, Story: fmt.Sprintf(format, args...)}
	}
	switch {
	case len(ops) == 0:
		return fail(0, "the run recorded no client operations: nothing was tested")
	case completed < max(minCompleted, 1):
		return fail(end, "only %d of %d client operations completed (at least %d needed): the run tested too little",
			completed, len(ops), max(minCompleted, 1))
	case len(faults) == 0:
		return fail(end, "no fault was injected: the run only showed that a calm cluster works")
	}
	for _, f := range faults {
		for _, op := range ops {
			ret := op.Return
			if op.Indefinite() {
				ret = 1<<63 - 1
			}
			if f.Start <= ret && op.Call <= f.end() {
				return nil
			}
		}
	}
	v := fail(faults[0].Start, "none of the %d faults overlapped a client operation: the faults hit an idle cluster", len(faults))
	var b strings.Builder
	fmt.Fprintf(&b, "client operations ran from %s to %s; the faults:\n", formatTime(ops[0].Call), formatTime(end))
	for _, f := range faults {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	v.Details = b.String()
	return v
}

// Coverage counts, across the seeds of a randomized check, how many runs were
// exercised (see Exercised), so that a suite whose runs mostly tested nothing
// fails loudly instead of passing.
//
//	var cov check.Coverage
//	for _, seed := range suite.Seeds(200) {
//		h, faults := run(seed)
//		cov.Add(seed, check.Exercised(h, faults, 20))
//		...
//	}
//	if v := cov.Check(0.9); v != nil { ... }
//
// The zero Coverage is ready to use.
type Coverage struct {
	Runs      int // runs added
	Exercised int // runs whose Exercised verdict was nil
	idle      []idleRun
}

type idleRun struct {
	seed  int64
	story string
}

// maxIdleListed bounds the idle runs Check lists.
const maxIdleListed = 10

// Add counts the run of seed, whose Exercised verdict was v (nil: it was
// exercised).
func (c *Coverage) Add(seed int64, v *Violation) {
	c.Runs++
	if v == nil {
		c.Exercised++
		return
	}
	if len(c.idle) < maxIdleListed {
		c.idle = append(c.idle, idleRun{seed, v.Story})
	}
}

// FirstIdle is the seed of the first run added that was not exercised, the
// one to replay to see a fault meet an idle cluster.
func (c *Coverage) FirstIdle() (seed int64, ok bool) {
	if len(c.idle) == 0 {
		return 0, false
	}
	return c.idle[0].seed, true
}

// Check returns nil if at least minFraction (0 to 1) of the runs were
// exercised, and at least one run was added; otherwise the violation
// "vacuous-run", listing the first idle seeds in Details.
func (c *Coverage) Check(minFraction float64) *Violation {
	if c.Runs == 0 {
		return &Violation{Clause: course.OneHistory, Name: "vacuous-run",
			Story: "the randomized check ran no runs at all: nothing was tested"}
	}
	if float64(c.Exercised) >= minFraction*float64(c.Runs) && c.Exercised > 0 {
		return nil
	}
	v := &Violation{Clause: course.OneHistory, Name: "vacuous-run",
		Story: fmt.Sprintf("only %d of %d runs had faults that met client operations (at least %.0f%% needed): the randomized check proved little",
			c.Exercised, c.Runs, minFraction*100)}
	var b strings.Builder
	b.WriteString("runs that tested nothing:\n")
	for _, r := range c.idle {
		fmt.Fprintf(&b, "  seed %d: %s\n", r.seed, r.story)
	}
	if n := c.Runs - c.Exercised - len(c.idle); n > 0 {
		fmt.Fprintf(&b, "  and %d more\n", n)
	}
	v.Details = b.String()
	return v
}
