package course

func init() {
	register(Chapter{
		ID:      "ex05",
		Slug:    "the-read-that-contradicted-the-write",
		Title:   "The read that contradicted the write",
		Failure: "too-many-pods",
		Clauses: []Clause{OneHistory, AgreementFirst},
		Checks: []Check{
			{Name: "story", Title: "web wants 5 and has 2; controller-a reads through server-1, controller-b through server-2, 400ms behind: never more than 5 pods, then exactly 5", Points: 3},
			{Name: "randomized", Title: "no create ever leaves more pods than desired: random delays, a controller that crashes and restarts, web scaled 5→2→6", Points: 4},
			{Name: "converges", Title: "once the faults are over, exactly the desired number of pods, in every randomized run", Points: 3},
		},
		Hints: [3]string{
			"Both controllers do the arithmetic right; what they count is wrong. controller-b counts pods in server-2's cache, " +
				"which is 400ms behind the history, and neither controller can see the pods the other is creating right now. " +
				"No read, however fresh, stops two controllers from acting on the same count at the same moment: the write has to.",
			"Make each create a write that can fail if the world is not as the controller saw it. A create is conditional already: " +
				"it fails with AlreadyExists if the name is taken. Random names throw that condition away. Give the pods names " +
				"that two controllers making the same decision would both choose.",
			"Name the pods web-0 … web-(replicas-1). Read the deployment and the pods with kube.Latest, create every missing " +
				"web-i with i < replicas (AlreadyExists means someone else made it: fine, it is there), and delete the pods whose " +
				"index is ≥ replicas (or whose name is not web-i) with the resourceVersion you read (NotFound or Conflict: " +
				"re-read on the next reconcile).",
		},
		Suite:   "internal/harness/suites/ex05suite",
		Binding: "New",
	})
}
