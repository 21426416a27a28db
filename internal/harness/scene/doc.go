// Package scene builds the worlds the hidden suites run and judges them, so
// that every chapter stands on the same ground: API servers running the
// learner's code, clients that record what they saw, faults declared once,
// one auditor, one runner over seeds and one way to report. It plays the
// part etcd-raft's interaction environment plays for its tests: a new
// scenario is a few lines that say what happens, never a new harness.
//
// # A chapter, declared
//
// A hidden suite is a Chapter: the worlds it builds, and the checks that
// judge them. A world is built and run for one seed by a Build; a judge is a
// plain function from a finished world to the failure it finds there, or nil:
//
//	scene.Chapter[*run]{
//		ID:     "ex07",
//		Worlds: map[string]scene.Build[*run]{"story": storyWorld, "random": randomWorld},
//		Checks: []scene.Check[*run]{
//			{Name: "story", Plays: []scene.Play{{World: "story", Seeds: scene.Story(10)}},
//				Judges: []scene.Judge[*run]{splitBrain, lostWrite, converged}},
//			{Name: "partitions", Plays: []scene.Play{{World: "random", Seeds: scene.Random(120),
//				Guard: &scene.Guard{MinCompleted: 10, MinCovered: 0.9}}},
//				Judges: []scene.Judge[*run]{splitBrain, lostWrite, converged, refusedWhileCalm}},
//		},
//	}.Run(t)
//
// Run builds each (world, seed) once, however many checks play it; asks
// whether it ran to its end (Ran) and then each check's judges in order, the
// most specific cause first (checks given the same list, one slice, share
// its verdict: the list judges the world once); finishes the first failure
// while the world is still there (its seed, its time, the timeline around
// it); lets the world go; and reports each check's first failure with the command that replays
// it. A Guard turns a randomized play whose faults met an idle cluster into
// the failure it is. Seeds say how SEED (replay one world) and RUNS (widen)
// change a play: Random widens, Story and Scenes do not.
//
// Run plays the worlds of a play side by side, on suite.Workers goroutines
// (sim.Parallel; the grader gives a chapter graded alone every CPU), and
// reads them in the order of their seeds: a check sees, sums, tallies and
// reports exactly what one world after another would show, whatever the
// number of workers, and one that stops at its first failing world stops
// the worlds after it. So a Build and a Judge share nothing they write with
// another world's: what one world keeps is its own.
//
// Adding to a chapter is a small change:
//
//   - a judge: a function `func(w W) *suite.Failure`, added to a check's
//     Judges where its cause ranks; its test builds a world (or a finished
//     one by hand) and asserts on the value it returns;
//   - a world: a Build added to Worlds, and a Play naming it in the checks
//     that should judge it;
//   - a check: an entry in Checks with the name the chapter's registry gives
//     it (internal/harness/course), and its points there;
//   - a chapter: its world type (a *Scene, or a type that keeps more and
//     says which scene it played with Stage), its Builds and its Checks.
//
// Chapter.Verdict judges one world of one check as Run would, for tests.
// The shared judges (Ran, OneHistory, Durable, Linearizable, Violated for any
// checker's verdict) take a *Scene; OnStage adapts them to a chapter's own
// world type.
//
// # A scene
//
//	s := scene.New(seed, serve, scene.Servers(3))          // server-1..server-3 boot serve
//	s.Client("controller-a", func(p *sim.Proc, api *kube.Client) {
//		api.Pin("server-1").Update(kube.Object{Kind: "deployments", Name: "web", Replicas: 5})
//	})
//	s.Inject(scene.Partition{Groups: [][]sim.NodeID{{"server-1"}}, From: time.Second, For: 2 * time.Second})
//	s.AuditAt(5*time.Second, "deployments", "deployments/web")
//	s.Run(20 * time.Second)
//
// Every client records into the scene's one check.History through
// kube.Client, logs every request it makes, reads of either mode, lists and
// watches included, with its answer, in Requests, and writes each request
// and its answer into the timeline ("PUT deployments/web replicas=5
// @server-1 → rv=4").
//
// # Faults
//
// A fault is a value (SlowLink, Partition, Crash, Skew, Cut) that schedules
// itself and describes itself from its own fields, so the story, the
// timeline and the book all say what was built: "partition server-1 |
// server-2 server-3 from 1000ms for 2000ms". Inject records each one in the
// world's fault list as a sim.Fault, with its kind and the nodes it touched,
// where the guard, the judges and the picture find it.
//
// # The auditor
//
// AuditAt adds a node that, at the time given, asks every server that is up
// for its whole history (a watch from resourceVersion 0) and for each key as
// it stands on that server (a read with kube.Any), then stops the world.
// Histories and States hold what it found, in the terms of the checkers.
package scene
