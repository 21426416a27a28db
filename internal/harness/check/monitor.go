package check

import (
	"fmt"
	"time"

	"onehistory/internal/harness/course"
)

// Invariant is a promise that must hold after every step of a run, such as
// "pods never exceed the desired count".
type Invariant struct {
	Name   string        // the failure's kebab-case name: "too-many-pods"
	Rule   string        // the promise in words: "pods never exceed the desired count"
	Clause course.Clause // the contract clause a breach breaks
	// Check returns nil while the promise holds, and otherwise an error
	// saying how it broke: "8 pods for deployments/web, 5 desired".
	Check func() error
}

// Monitor checks invariants after every step of a run and keeps the first
// violation. A suite calls Step (with the world's virtual time) after each
// step of the world, then Result at the end:
//
//	m := check.NewMonitor(check.Invariant{Name: "too-many-pods",
//		Rule: "pods never exceed the desired count", Clause: course.AgreementFirst,
//		Check: func() error { ... }})
//	... after each step: m.Step(w.Now())
//	if v := m.Result(); v != nil { ... }
//
// A Monitor is not safe for concurrent use; the world runs one step at a time.
type Monitor struct {
	invariants []Invariant
	steps      int
	first      *Violation
}

// NewMonitor returns a Monitor of the given invariants.
func NewMonitor(invariants ...Invariant) *Monitor {
	return &Monitor{invariants: invariants}
}

// Add adds an invariant, checked from the next Step on.
func (m *Monitor) Add(inv Invariant) { m.invariants = append(m.invariants, inv) }

// Step checks every invariant, in the order they were added, at virtual time
// at, and returns the first violation found so far (nil if none). Once an
// invariant has broken, later steps check nothing: the first breach is the
// story.
func (m *Monitor) Step(at time.Duration) *Violation {
	if m.first != nil {
		return m.first
	}
	m.steps++
	for _, inv := range m.invariants {
		err := inv.Check()
		if err == nil {
			continue
		}
		name := inv.Name
		if name == "" {
			name = "broken-invariant"
		}
		m.first = &Violation{
			Clause:  inv.Clause,
			Name:    name,
			At:      at,
			Story:   fmt.Sprintf("%s: broken at %s: %v", inv.Rule, formatTime(at), err),
			Details: fmt.Sprintf("the invariant held for %d steps and broke at step %d (%s)\n", m.steps-1, m.steps, formatTime(at)),
		}
		return m.first
	}
	return nil
}

// Steps is the number of steps checked.
func (m *Monitor) Steps() int { return m.steps }

// Violation is the first violation found, or nil.
func (m *Monitor) Violation() *Violation { return m.first }

// Result is the verdict at the end of a run: the first violation; or, if Step
// was never called or there are no invariants, the violation "vacuous-run",
// since nothing was checked; or nil.
func (m *Monitor) Result() *Violation {
	if m.first != nil {
		return m.first
	}
	if m.steps == 0 || len(m.invariants) == 0 {
		return &Violation{
			Clause: course.OneHistory,
			Name:   "vacuous-run",
			Story:  fmt.Sprintf("the invariants were never checked (%d invariants, %d steps): a run that checks nothing proves nothing", len(m.invariants), m.steps),
		}
	}
	return nil
}
