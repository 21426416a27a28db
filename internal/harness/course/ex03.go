package course

func init() {
	register(Chapter{
		ID:      "ex03",
		Slug:    "silence-is-not-agreement",
		Title:   "Silence is not agreement",
		Failure: "silence-mistaken-for-agreement",
		Clauses: []Clause{OneHistory},
		Checks: []Check{
			{Name: "catches-async-replication", Title: "the drill fails a cluster that acknowledges first and copies to the other server later (and never cries wolf)", Points: 3},
			{Name: "catches-lost-write", Title: "the drill fails a cluster that loses acknowledged writes when a server crashes (and never cries wolf)", Points: 3},
			{Name: "catches-divergence", Title: "the drill fails a cluster whose two servers never reconcile (and never cries wolf)", Points: 2},
			{Name: "catches-degraded-mode", Title: "the drill fails a cluster that, once server-2 has been away, acknowledges writes on server-1 alone and answers from server-2's stale copy while server-1 is away (and never cries wolf)", Points: 2},
			{Name: "passes-correct-clusters", Title: "the drill passes every correct cluster on every seed, and catches at least one broken one", Points: 2},
		},
		Hints: [3]string{
			"Your drill can only find what it looks at. While server-1 is down, what is anyone writing? " +
				"And which server answers your reads? Start one client that writes during the fault and reads from both servers.",
			"Record every operation: kube.NewClient(p, c.Servers()...).Record(h) behind the balancer, and .Pin(\"server-1\") / " +
				".Pin(\"server-2\") to read each server on its own. After each acknowledged write, read the key back from every server. " +
				"Errors such as Unavailable or Timeout are honest refusals, not findings; an answer that contradicts another is.",
			"Give the drill writers that keep writing values no one has written before, for the whole run, and faults " +
				"that land in the middle of it: a crash and a restart, a partition and its healing, on each server. While one server " +
				"is down or cut off, keep asking the other on its own, again soon after each refusal: some clusters answer wrongly only then, " +
				"and only once they have given up on the other server. Then judge what the " +
				"clients recorded as one history (the check package has the checker), and compare a last read of each " +
				"key pinned to each server.",
		},
		Suite:   "internal/harness/suites/ex03suite",
		Binding: "Drill",
		Imports: []string{"internal/harness/suites/ex03suite/drill"},
	})
}
