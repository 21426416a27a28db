// Package suite is the protocol between a chapter's hidden suite and the
// grader: how a failed check tells its story to the learner and, on the same
// breath, to the grader.
//
// A hidden suite is declared as a scene.Chapter, whose runner calls Run,
// Report and Figure; a suite does not call them itself.
//
// # Running a chapter's checks
//
// Run runs a chapter's checks as subtests in the registry's order, fails
// loudly when the names disagree with the registry, and gives each check's
// verdict on the grader's private channel (package verdict). Seeds,
// StorySeeds and SceneSeeds are where SEED (replay one world) and RUNS
// (widen) arrive.
//
// # Failing a check
//
// A judge returns a Failure, as data:
//
//	&suite.Failure{
//		Name: "missed-change", Clause: course.OneHistory, At: at,
//		Story: "the informer reconnected at rv 7 and never saw deployments/web rv 8",
//	}
//
// and the runner adds the seed, the timeline and the replay command, then
// calls Report, which fails the test with Failure.Text, the story for a
// person (what, where, when in virtual time; the clause; the seed and the
// command that replays it; the timeline), and logs one Marker line carrying
// the same Failure as JSON. The grader reads the Marker line back with
// ParseLine; the learner never needs to.
package suite
