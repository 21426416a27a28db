package course

func init() {
	register(Chapter{
		ID:      "ex12",
		Slug:    "the-edit-that-erased-a-scale",
		Title:   "The edit that erased a scale",
		Failure: "lost-update",
		Clauses: []Clause{OneHistory, AgreementFirst},
		Checks: []Check{
			{Name: "story", Title: "an autoscaler and an engineer write web 1ms apart: both changes survive, or one hears Conflict and applies again", Points: 3},
			{Name: "no-lost-update", Title: "writers add to one count through lost answers and a crash: every acknowledged increment once, none twice", Points: 4},
			{Name: "cas-linearizable", Title: "conditional updates, creates and deletes under the same faults: one order explains every answer", Points: 3},
			{Name: "no-op-no-revision", Title: "an update that changes nothing creates no revision and no watch event, and is decided in the log's order, not by a server behind it", Points: 1},
			{Name: "changes-made", Title: "writers meet a Conflict and a lost request, which then pass: every update carries the version read, and every writer's change reaches the history", Points: 2},
			{Name: "indefinite-retry", Title: "a write whose answer is lost, or that lands after its timeout: never reported failed when a read can tell it took effect, never made twice, never sent again without its precondition", Points: 2},
		},
		Hints: [3]string{
			"Look at when the precondition is checked: at the door of the server, against what that server has applied. The autoscaler's write is in the log but not yet applied when the engineer's arrives, so both pass. Where is the one place every write is seen in one order, after every write before it?",
			"Let the entry carry its ResourceVersion, and check it in apply: apply runs on every server, in the log's order, from the history alone, so every server decides the same. Answer the client with what apply decided (Conflict, or the object as stored). In apply, an update whose fields equal what is stored appends nothing and answers with the object as it is.",
			"In GuaranteedUpdate: read, apply mutate to a copy of what you read, and write it conditional on the version read; on Conflict read again and apply mutate again. After a Timeout, send the same write again only while the object is still at the version it was conditional on. Once it has moved, read: if mutate changes nothing, your change is there (success); if it would change something, you cannot tell, so return kube.ErrTimeout rather than apply it a second time.",
		},
		Suite:     "internal/harness/suites/ex12suite",
		Binding:   "hidden.Impl{Serve: Serve, Update: GuaranteedUpdate}",
		Imports:   []string{"internal/harness/suites/ex12suite/agreed"},
		Forbidden: []string{"internal/harness/kube.MemStore", "internal/harness/kube.NewMemStore"},
		Given:     []string{"history.go", "server.go"},
		Bonus:     true,
	})
}
