// Package suite is the protocol between a chapter's hidden suite and the
// grader: how a failed check tells its story to the learner and, on the same
// breath, to the grader.
//
// # Running a chapter's checks
//
// A hidden suite's Run hands its checks to Run, which runs them as subtests
// in the registry's order and fails loudly when the names disagree:
//
//	func Run(t *testing.T, newStore func() ex01.Store) {
//		suite.Run(t, "ex01", map[string]suite.CheckFunc{
//			"story":      func(t *testing.T) { ... },
//			"randomized": func(t *testing.T) { for _, seed := range suite.Seeds(200) { ... } },
//		})
//	}
//
// Seeds is where SEED (replay one world) and RUNS (widen) arrive.
//
// # Failing a check
//
// A check that finds a failure builds a Failure and calls Report:
//
//	suite.Report(t, suite.Failure{
//		Name: "missed-change", Clause: course.OneHistory, Seed: seed, At: w.Now(),
//		Story:    "the informer reconnected at rv 7 and never saw deployments/web rv 8",
//		Timeline: trace.Timeline(),
//	})
//
// Report fails the test with Failure.Text, the story for a person (what,
// where, when in virtual time; the clause; the seed and the command that
// replays it; the timeline), then logs one Marker line carrying the same
// Failure as JSON. The grader reads the Marker line back with ParseLine;
// the learner never needs to.
package suite
