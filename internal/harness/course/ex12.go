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
			"Let the entry carry its ResourceVersion, and decide it in apply: apply runs on every server, in the log's order, from the history alone, so every server decides the same. Answer the client with what apply decided, Conflict or the object as stored. And an update whose fields equal what is stored: what should apply append for it, what should it answer, and which server may tell that it changes nothing?",
			"In GuaranteedUpdate, write on condition of the version you read; on Conflict, read again and apply mutate to what you read now, never to the old copy. A Timeout is not a no: the write may have landed, or may land later. Its precondition is what makes sending the same write again safe, for as long as the object has not moved. Once it has, apply mutate to a fresh read: a mutate that changes nothing says your change is there; one that would change something cannot tell you, and then kube.ErrTimeout is the honest answer.",
		},
		Suite:     "internal/harness/suites/ex12suite",
		Binding:   "hidden.Impl{Serve: Serve, Update: GuaranteedUpdate}",
		Imports:   []string{"internal/harness/suites/ex12suite/agreed"},
		Forbidden: []string{"internal/harness/kube.MemStore", "internal/harness/kube.NewMemStore"},
		Given:     []string{"history.go", "server.go"},
		Bonus:     true,
	})
}
