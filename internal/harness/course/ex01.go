package course

func init() {
	register(Chapter{
		ID:      "ex01",
		Slug:    "one-memory",
		Title:   "One memory",
		Failure: "missed-change",
		Clauses: []Clause{OneHistory},
		Checks: []Check{
			{Name: "reconnect", Title: "the controller's informer is cut off while a pod is deleted; after it reconnects it must know", Points: 4},
			{Name: "history", Title: "resourceVersions, conflicts, watch replay from any retained version, Gone for older ones", Points: 3},
			{Name: "two-controllers", Title: "two controllers, each cut off at random, end with the same answer and exactly the desired pods", Points: 3},
		},
		Hints: [3]string{
			"While the informer was cut off, the store accepted a deletion. When the informer came back it asked " +
				"\"what changed after resourceVersion N?\", and Store.Watch in store.go could only look at the objects " +
				"that exist now. A deleted pod does not exist now. What would the store need to have kept to answer?",
			"Keep the changes themselves, not just their results: a kube.Event for every accepted change, the object " +
				"stamped with its new resourceVersion, the last retain of them. A watch from a version older than what you " +
				"keep cannot be answered truthfully: that answer is kube.Gone, and the informer lists again. Update and " +
				"Delete have a precondition to honor too: a non-zero, stale resourceVersion is kube.Conflict.",
			"Two fields are enough: the kept events, oldest first, and the version of the newest change you dropped. " +
				"With them Watch has three answers: Gone (for which versions?), the kept changes after the asked version " +
				"(of which kind?), or wait. Decide between them on every wake, not only on entry: changes accepted while a " +
				"watch waits may push its version out of what you keep. kube.Gone's second argument is the version of the " +
				"oldest change you still keep.",
		},
		Suite:   "internal/harness/suites/ex01suite",
		Binding: "New",
	})
}
