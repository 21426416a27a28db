package check

import (
	"fmt"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/sim"
	tablefit "onehistory/internal/harness/table"
)

// Violation is one broken promise found by a checker, as data. Its fields
// map one to one onto suite.Failure, which adds the chapter, the seed and the
// replay command (scene.Violated turns one into the other).
//
// Checkers return a nil *Violation when the promise holds.
type Violation struct {
	Clause  course.Clause // the contract clause broken
	Name    string        // short kebab-case name: "stale-read", "lost-write", ...
	Story   string        // one line, a person's sentence: who did what where, and what went wrong
	At      time.Duration // virtual time of the decisive event
	Ops     []OpID        // the operations involved, the decisive one first
	Servers []string      // the servers involved
	Details string        // more lines: the operations and servers involved, as a table
}

// Error is "stale-read at 412ms: <story>", so a Violation can travel as an
// error.
func (v *Violation) Error() string {
	return fmt.Sprintf("%s at %s: %s", v.Name, formatTime(v.At), v.Story)
}

// Fault is a fault the world injected, for the vacuity guard and the
// visualization: the world's own value (sim.Fault), with its kind, the nodes
// it touched, and when it began and ended.
type Fault = sim.Fault

// formatTime prints a virtual time the one way the workbook does.
func formatTime(d time.Duration) string { return sim.FormatTime(d) }

// table renders rows as left-aligned columns, each line indented by two
// spaces, fitted to the report's width (package table). The first row is
// the header.
func table(rows [][]string) string {
	return tablefit.Table{Indent: "  ", Header: rows[0], Rows: rows[1:]}.String()
}
