package main

import (
	"fmt"
	"sort"
	"strings"
)

// The bars a chapter's suite must meet on its own mutants.
const (
	KilledBar    = 95 // percent of mutants killed, at least
	DiagnosedBar = 90 // percent of mutants killed with their declared failure, at least
	MinMutants   = 8  // mutants per chapter, at least, besides the equivalents
)

// Outcome is what grading one mutant found.
type Outcome struct {
	Mutant  Mutant
	Err     error  // the mutant could not be applied or graded: a tool error
	Passed  bool   // every check passed
	Check   string // the first failing check, if any
	Failure string // the named failure it reported (or the kind of problem)
	Story   string // the first line of its story
}

// Killed reports whether the suite caught the mutant.
func (o Outcome) Killed() bool { return o.Err == nil && !o.Passed }

// Diagnosed reports whether the suite caught the mutant with its declared
// failure.
func (o Outcome) Diagnosed() bool { return o.Killed() && o.Failure == o.Mutant.Expect }

// Line is the mutant's one line of the report.
func (o Outcome) Line() string {
	name := o.Mutant.Chapter + "/" + o.Mutant.Name
	var what string
	switch {
	case o.Err != nil:
		what = "ERROR " + o.Err.Error()
	case o.Mutant.Equivalent() && o.Passed:
		what = "passes"
	case o.Mutant.Equivalent():
		what = fmt.Sprintf("BROKEN (equivalent fails: %s: %s: %s)", o.Check, o.Failure, o.Story)
	case o.Passed:
		what = "SURVIVED"
	case o.Diagnosed():
		what = fmt.Sprintf("killed by %s: %s, diagnosed", o.Check, o.Failure)
	default:
		what = fmt.Sprintf("killed by %s: %s, MISDIAGNOSED: expected %s, story: %s", o.Check, o.Failure, o.Mutant.Expect, o.Story)
	}
	return fmt.Sprintf("%-40s %s", name, what)
}

// Summary totals one chapter's outcomes.
type Summary struct {
	Chapter     string
	Mutants     int // mutants that are not equivalents
	NeedFault   int // of which need a fault or interleaving to show
	Killed      int
	Diagnosed   int
	Equivalents int
	EquivPass   int
	Errors      int // mutants that could not be applied or graded
}

// Summarize totals outcomes per chapter, in chapter order.
func Summarize(outcomes []Outcome) []Summary {
	by := map[string]*Summary{}
	for _, o := range outcomes {
		s := by[o.Mutant.Chapter]
		if s == nil {
			s = &Summary{Chapter: o.Mutant.Chapter}
			by[o.Mutant.Chapter] = s
		}
		switch {
		case o.Err != nil:
			s.Errors++
		case o.Mutant.Equivalent():
			s.Equivalents++
			if o.Passed {
				s.EquivPass++
			}
		default:
			s.Mutants++
			if o.Mutant.NeedsFault() {
				s.NeedFault++
			}
			if o.Killed() {
				s.Killed++
			}
			if o.Diagnosed() {
				s.Diagnosed++
			}
		}
	}
	out := make([]Summary, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Chapter < out[j].Chapter })
	return out
}

// percent is 100*n/d, rounded down; 0 when d is 0.
func percent(n, d int) int {
	if d == 0 {
		return 0
	}
	return 100 * n / d
}

// Shortfalls lists the bars the chapter misses, in words; none when it
// meets them all.
func (s Summary) Shortfalls() []string {
	var out []string
	if s.Errors > 0 {
		out = append(out, fmt.Sprintf("%d mutant(s) could not be applied or graded", s.Errors))
	}
	if s.Mutants < MinMutants {
		out = append(out, fmt.Sprintf("%d mutants, at least %d are needed", s.Mutants, MinMutants))
	}
	if s.Equivalents == 0 {
		out = append(out, "no equivalent")
	}
	if 2*s.NeedFault < s.Mutants {
		out = append(out, fmt.Sprintf("only %d of %d mutants need a fault or interleaving, at least half should", s.NeedFault, s.Mutants))
	}
	// Compared in whole numbers: killed/mutants >= 95/100.
	if 100*s.Killed < KilledBar*s.Mutants {
		out = append(out, fmt.Sprintf("under %d%% killed", KilledBar))
	}
	if 100*s.Diagnosed < DiagnosedBar*s.Mutants {
		out = append(out, fmt.Sprintf("under %d%% diagnosed", DiagnosedBar))
	}
	if s.EquivPass < s.Equivalents {
		out = append(out, fmt.Sprintf("%d equivalent(s) fail", s.Equivalents-s.EquivPass))
	}
	return out
}

// Line is the chapter's summary line, with its shortfalls if any.
func (s Summary) Line() string {
	line := fmt.Sprintf("%s: killed %d/%d (%d%%), diagnosed %d/%d (%d%%), equivalents passing %d/%d",
		s.Chapter, s.Killed, s.Mutants, percent(s.Killed, s.Mutants),
		s.Diagnosed, s.Mutants, percent(s.Diagnosed, s.Mutants), s.EquivPass, s.Equivalents)
	if short := s.Shortfalls(); len(short) > 0 {
		line += "  BELOW THE BAR: " + strings.Join(short, "; ")
	}
	return line
}
