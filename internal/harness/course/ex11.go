package course

func init() {
	register(Chapter{
		ID:      "ex11",
		Slug:    "the-leader-that-did-not-come-back",
		Title:   "The leader that did not come back",
		Failure: "two-leaders-one-term",
		Clauses: []Clause{OneHistory, DurableAgreement, AgreementFirst},
		Bonus:   true,
		Given:   []string{"history.go", "log.go", "record.go"},
		Checks: []Check{
			{Name: "story", Title: "the leader dies, a 400ms spike between the other two: one leader per term, and writes resume", Points: 3},
			{Name: "election-safety", Title: "crashes, partitions, one-way cuts: never two leaders of one term, on any server, at any step", Points: 3},
			{Name: "log-safety", Title: "the logs match, leaders only append, every committed entry stays in every later leader's log", Points: 4},
			{Name: "linearizable", Title: "every client's answers fit one order of all operations, across leader changes", Points: 3},
			{Name: "persistence", Title: "a server crashed at any of its disk writes comes back without voting twice or losing its term", Points: 2},
			{Name: "liveness", Title: "after the last fault a leader takes writes; a calm cluster holds one term", Points: 2},
			{Name: "no-disruption", Title: "(beyond the core) a follower cut off alone does not depose a healthy leader when it returns", Points: 1},
		},
		Hints: [3]string{
			"A server that has not heard the leader for a while cannot tell a dead leader from a slow link. If two servers each decide on their own that they lead, what stops them both from doing so in the same term?",
			"Make leadership something a majority grants, once per term: a candidate bumps its term, votes for itself and asks the others; a server votes at most once per term (saving term and vote on its disk before it answers), only for a log at least as up to date as its own, and a candidate with a majority of votes leads. Any message with a higher term makes a server a follower in that term.",
			"Keep term and vote in a file of their own, synced before any reply. Appends carry (Prev, PrevTerm): a follower refuses unless its entry at Prev has PrevTerm, and cuts off a conflicting suffix it has not committed. A new leader appends a no-op in its term; it commits by counting only entries of its own term. Send Latest reads through the log too, so a deposed leader cannot answer them. For no-disruption (beyond the core, and needed to pass like every other check): a pre-vote round before bumping the term; a leader that steps down when it has not heard a majority for an election timeout is allowed, not needed.",
		},
		Suite:   "internal/harness/suites/ex11suite",
		Binding: "Serve",
	})
}
