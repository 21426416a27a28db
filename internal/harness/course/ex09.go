package course

func init() {
	register(Chapter{
		ID:      "ex09",
		Slug:    "when-the-store-goes-away",
		Title:   "When the store goes away",
		Failure: "consistent-read-hung",
		Clauses: []Clause{DurableAgreement, AgreementFirst},
		Checks: []Check{
			{Name: "story", Title: "the link server-1 ↔ etcd is cut for 3s: kubectl get pods fails within 1s, the cache still answers rv=0, the scale is refused, the controller holds, and all catches up", Points: 2},
			{Name: "consistent-reads", Title: "consistent reads fail within 1s while the store is away, never hang, never answer from the cache", Points: 1},
			{Name: "cached-reads", Title: "reads with resourceVersion \"0\" are answered from the watch cache, outage or not, and are the history as of the version they name", Points: 1},
			{Name: "writes", Title: "no write is acknowledged before the history holds it; a write the store cannot take is refused within 1s; all writes and consistent reads fit one order", Points: 2},
			{Name: "watches", Title: "watches stay open and quiet during the outage, then go on without skipping a change", Points: 1},
			{Name: "controllers", Title: "no pod is deleted, or asked to be, because the store could not be reached: checked after every step", Points: 2},
			{Name: "catch-up", Title: "3s after the link comes back: caches, watches and pods have caught up with the history", Points: 1},
		},
		Hints: [3]string{
			"Ask of each request what only the store can answer. A consistent read and a write need the store; a read with " +
				"resourceVersion \"0\" and a watch can be served from what the server has already seen. When the store cannot be " +
				"reached, the honest answer to the first kind is an error, soon; the second kind needs no store at all. And an " +
				"error is not an answer: a controller that could not read the deployment knows nothing new about it.",
			"In apiserver.go: give up on the store after a few hundred milliseconds and say so (kube.Unavailable for a read, " +
				"the store client's Timeout for a write), instead of retrying forever or keeping the write for later; a yes " +
				"must come from the store. When the watch cache's watch of the store fails, watch again from the version the " +
				"cache holds: the store replays what happened meanwhile. In controller.go: a failed Get of the deployment is " +
				"not a deployment that is gone.",
			"Serve Latest Get and List with one call to the store (its client already times out) and turn a timeout into " +
				"kube.Unavailable; answer Create, Update and Delete with the store's own reply, error included, and drop the " +
				"write-behind queue; in follow, on an error, sleep and loop with the cache's own ResourceVersion. In Reconcile, " +
				"desire 0 only on errors.Is(err, kube.ErrNotFound); on any other error return it and touch nothing.",
		},
		Suite:   "internal/harness/suites/ex09suite",
		Binding: "hidden.Impl{Serve: Serve, Reconcile: Reconcile}",
	})
}
