package course

func init() {
	register(Chapter{
		ID:      "ex05",
		Slug:    "the-read-that-contradicted-the-write",
		Title:   "The read that contradicted the write",
		Failure: "read-contradicted-write",
		Clauses: []Clause{OneHistory},
		Checks: []Check{
			{Name: "story", Title: "web wants 5 and has 2; controller-a counts at 100ms through server-1, controller-b at 300ms through server-2, 400–410ms from the history: no write on a read that contradicted an acknowledged one, never more than 5 pods, then exactly 5", Points: 3},
			{Name: "randomized", Title: "no write on a read that contradicted an acknowledged one, no create leaves more pods than desired, no delete removes a pod its controller never saw: random starts, a controller that crashes and restarts, web scaled 5→2→6→4 or 5→0→6→4", Points: 4},
			{Name: "converges", Title: "once the faults are over, exactly the desired number of pods, in every randomized run; none left while web is scaled to 0", Points: 3},
		},
		Hints: [3]string{
			"controller-b asks after controller-a's creates were acknowledged, and is told they never happened. " +
				"Which server answered it, from what, and how far behind the history was that copy? " +
				"What must a read be for a controller to act on it?",
			"A count you act on must show every write acknowledged before you asked: read it through the one history " +
				"(kube.Latest), not from the server's cache; waiting first only guesses how far behind the cache is. " +
				"Two consistent reads answered in the same instant can still both see web short: the source leaves that " +
				"race open, and the suite asks you only to make it harmless, with names both controllers would choose.",
			"Read the deployment and the pods with kube.Latest in every reconcile. Name pod i of web web-i; work out " +
				"which of web-0 … web-(replicas-1) are missing and which pods web owns outside that range. Delete the " +
				"extras first, each at the resourceVersion you listed, then create the missing names. Decide which " +
				"answers mean \"someone else already did it\" and are no error at all.",
		},
		Suite:   "internal/harness/suites/ex05suite",
		Binding: "New",
	})
}
