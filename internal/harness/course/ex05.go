package course

func init() {
	register(Chapter{
		ID:      "ex05",
		Slug:    "the-read-that-contradicted-the-write",
		Title:   "The read that contradicted the write",
		Failure: "read-contradicted-write",
		Clauses: []Clause{OneHistory},
		Checks: []Check{
			{Name: "story", Title: "web wants 5 and has 2; controller-a reads and writes through server-1, controller-b through server-2, 400–410ms from the history: never more than 5 pods, then exactly 5", Points: 3},
			{Name: "randomized", Title: "no create leaves more pods than desired, no delete removes a pod its controller never saw: random starts, a controller that crashes and restarts, web scaled 5→2→6→4 or 5→0→6→4", Points: 4},
			{Name: "converges", Title: "once the faults are over, exactly the desired number of pods, in every randomized run; none left while web is scaled to 0", Points: 3},
		},
		Hints: [3]string{
			"Both controllers count correctly; what they count stops being true as soon as the other one creates. " +
				"No read, however fresh, keeps two controllers from acting on the same count at the same moment. " +
				"The history accepts every create it is sent: what could make it refuse the second controller's?",
			"A create is conditional already: it fails with AlreadyExists when the name is taken. Random names throw that " +
				"condition away. Choose names two controllers making the same decision would both choose, so that the " +
				"history accepts one create per name. And read the desired count where a scale-down cannot hide from you.",
			"Name pod i of web web-i. Read the deployment and the pods with kube.Latest; work out which of web-0 … " +
				"web-(replicas-1) are missing and which pods fall outside that range. Delete the extras first, each at the " +
				"resourceVersion you read, then create the missing names. Decide which answers mean \"someone else already " +
				"did it\" and are no error at all.",
		},
		Suite:   "internal/harness/suites/ex05suite",
		Binding: "New",
	})
}
