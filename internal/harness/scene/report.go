package scene

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// Lanes sets the timeline's columns, left to right. The default is every
// client added before the first server, then the servers, then the rest.
func (s *Scene) Lanes(ids ...sim.NodeID) { s.lanes = ids }

// Show sets which events the timeline keeps. The default keeps every note
// (each client request and its answer, and what the servers log), crashes,
// restarts and faults, and the messages the servers send each other.
func (s *Scene) Show(keep func(sim.Event) bool) { s.keep = keep }

// IsServer reports whether id is one of the scene's servers.
func (s *Scene) IsServer(id sim.NodeID) bool { return slices.Contains(s.Servers, id) }

// Timeline renders the run around virtual time at.
func (s *Scene) Timeline(at time.Duration) string {
	cols := s.lanes
	if cols == nil {
		var clients, rest []sim.NodeID
		for _, id := range s.W.Nodes() {
			switch {
			case s.IsServer(id):
			case id == Auditor:
				rest = append(rest, id)
			default:
				clients = append(clients, id)
			}
		}
		cols = append(append(append(cols, clients...), s.Servers...), rest...)
	}
	keep := s.keep
	if keep == nil {
		keep = func(e sim.Event) bool {
			switch e.Kind {
			case sim.EvDisk:
				return false
			case sim.EvNote, sim.EvCrash, sim.EvRestart, sim.EvFault:
				return true
			}
			return s.IsServer(e.Node) && s.IsServer(e.Peer)
		}
	}
	return s.W.Timeline(sim.TimelineOptions{Columns: cols, Focus: at, MaxRows: 40, Filter: keep})
}

// Fail reports f as the failure of this scene: it fills in the seed, rounds
// the time to a tenth of a millisecond, and adds the timeline around f.At
// unless f has one.
func (s *Scene) Fail(t testing.TB, f suite.Failure) {
	t.Helper()
	f.Seed = s.Seed
	f.At = f.At.Round(100 * time.Microsecond)
	if f.Timeline == "" {
		f.Timeline = s.Timeline(f.At)
	}
	suite.Report(t, f)
}

// Report reports v, if there is one, and says whether the check may go on.
func (s *Scene) Report(t testing.TB, v *check.Violation) bool {
	t.Helper()
	if v == nil {
		return true
	}
	s.Fail(t, suite.Failure{Name: v.Name, Clause: v.Clause, Story: v.Story, At: v.At, Details: v.Details})
	return false
}

// ReportRun reports a world that could not run to its end (a panic, a
// deadlock, a process stuck outside the world), answers the auditor could
// not read, or, if the scene has an auditor, an audit that never finished.
func (s *Scene) ReportRun(t testing.TB) bool {
	t.Helper()
	var f suite.Failure
	if s.Err != nil {
		f = suite.RunFailure(s.Err)
	}
	hasAuditor := slices.Contains(s.W.Nodes(), Auditor)
	switch {
	case f.Name != "":
	case len(s.Problems) > 0:
		f = suite.Failure{Name: "bad-reply", Clause: course.OneHistory, At: s.W.Now(), Story: s.Problems[0],
			Details: strings.Join(s.Problems, "\n")}
	case hasAuditor && !s.Audited:
		f = suite.Failure{Name: "no-audit", At: s.W.Now(),
			Story: fmt.Sprintf("the world ended at %s before the suite could read the servers' histories", suite.FormatTime(s.W.Now()))}
	default:
		return true
	}
	s.Fail(t, f)
	return false
}

// Linearizable checks the scene's client history with porcupine and
// reports the first contradiction, with its HTML view written to
// .onehistory/<chapter>-<check>-seed-<seed>.html, annotated with the faults.
func (s *Scene) Linearizable(t testing.TB) bool {
	t.Helper()
	return s.LinearizableRetold(t, nil)
}

// splitName turns "TestEx04/randomized" into ("ex04", "randomized").
func splitName(name string) (string, string) {
	top, check, _ := strings.Cut(name, "/")
	check = strings.ReplaceAll(check, "/", "-")
	return strings.ToLower(strings.TrimPrefix(top, "Test")), check
}

// Search is how a randomized check explores: one scene per seed.
type Search struct {
	// Seeds are the seeds to run, usually suite.Seeds(n).
	Seeds []int64
	// Build builds and runs the scene of one seed.
	Build func(seed int64) *Scene
	// Judge reports what is wrong with a scene that ran and says whether
	// the search may go on; it stops at the first failing seed.
	Judge func(t *testing.T, s *Scene) bool
	// MinCompleted and MinCovered guard against vacuous runs: a run counts
	// as exercised when at least MinCompleted operations completed and a
	// fault overlapped one, and at least MinCovered (0 to 1) of the runs
	// must be. Zero MinCovered: no guard.
	MinCompleted int
	MinCovered   float64
	// Faults picks the faults the guard counts in a scene (default: all of
	// s.Faults). A fault that lasts every whole run, such as a link that is
	// slow from start to end, overlaps every operation and proves nothing.
	Faults func(s *Scene) []check.Fault
}

// Run runs the search and reports whether every seed passed.
func (x Search) Run(t *testing.T) bool {
	t.Helper()
	var cov check.Coverage
	for _, seed := range x.Seeds {
		s := x.Build(seed)
		ok := x.Judge(t, s)
		if x.MinCovered > 0 {
			faults := s.Faults
			if x.Faults != nil {
				faults = x.Faults(s)
			}
			cov.Add(seed, check.Exercised(s.History, faults, x.MinCompleted))
		}
		s.Close()
		if !ok {
			return false
		}
	}
	if x.MinCovered > 0 {
		return suite.Coverage(t, &cov, x.MinCovered)
	}
	return true
}
