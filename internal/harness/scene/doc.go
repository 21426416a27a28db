// Package scene builds the worlds the hidden suites run, so that every
// chapter stands on the same ground: API servers running the learner's code,
// clients that record what they saw, faults declared once, one auditor, one
// loop over seeds and one way to report. It plays the part etcd-raft's
// interaction environment plays for its tests: a new scenario is a few lines
// that say what happens, never a new harness.
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
//	ok := s.ReportRun(t) && s.Report(t, check.OneHistory(s.Histories)) && s.Linearizable(t)
//
// Every client records into the scene's one check.History through
// kube.Client, which also writes each request and its answer into the
// timeline ("PUT deployments/web replicas=5 @server-1 → rv=4").
//
// # Faults
//
// A fault is a value (SlowLink, Partition, Crash, Skew) that schedules itself
// and describes itself from its own fields, so the story, the timeline and
// the book all say what was built: "partition server-1 | server-2 server-3
// from 1000ms for 2000ms". Inject records each one in the world's fault list,
// where the vacuous-run guard and the porcupine view find it.
//
// # The auditor
//
// AuditAt adds a node that, at the time given, asks every server that is up
// for its whole history (a watch from resourceVersion 0) and for each key as
// it stands on that server (a read with kube.Any), then stops the world.
// Histories and States hold what it found, in the terms of the checkers.
//
// # Judging
//
// Report, ReportRun and Linearizable turn a checker's verdict into a
// suite.Failure with the seed, the replay command and the timeline around the
// decisive moment, and say whether the check may go on. Search runs a
// randomized check over its seeds: one world per seed, judged, closed, and
// the guard against runs whose faults met an idle cluster.
package scene
