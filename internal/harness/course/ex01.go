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
			"Keep the changes themselves, not just their results: in accept, append a kube.Event{Type, Object} for " +
				"every accepted change (the Object stamped with its new resourceVersion), keep only the last retain " +
				"of them, and let Watch return the kept events of the asked kind after the asked version, in order. " +
				"Update and Delete also have a precondition to honor: a non-zero, stale resourceVersion is kube.Conflict.",
			"Add history []kube.Event and compacted int64 to Store. In accept: append the event; if len(history) > retain, " +
				"set compacted to the resourceVersion of the last event you drop and drop the oldest. In Watch, on every " +
				"wake: if resourceVersion < compacted, return kube.Gone(resourceVersion, compacted+1); otherwise return the " +
				"history events with Kind == kind and ResourceVersion > resourceVersion, or wait if there are none. In Update " +
				"and Delete: if the given version is not 0 and differs from the stored one, return kube.Conflict(key, given, stored).",
		},
		Suite:   "internal/harness/suites/ex01suite",
		Binding: "New",
		// The chapter asks for a history store; the harness's own one
		// (the suites' reference) would answer it.
		Forbidden: []string{"internal/harness/kube.MemStore", "internal/harness/kube.NewMemStore"},
	})
}
