package course

func init() {
	register(Chapter{
		ID:      "ex04",
		Slug:    "the-write-that-arrived-late",
		Title:   "The write that arrived late",
		Failure: "stale-read",
		Clauses: []Clause{OneHistory},
		Checks: []Check{
			{Name: "story", Title: "web is scaled to 5 on server-1; the dashboard then reads server-2 and must see 5", Points: 3},
			{Name: "randomized", Title: "no stale read: concurrent clients on both servers, links up to 400ms, checked by porcupine", Points: 5},
			{Name: "progress", Title: "every request is answered and both servers end with the same state", Points: 2},
		},
		Hints: [3]string{
			"server-1 says \"done\" to the controller while the change is still on its way to server-2. " +
				"Find the place in server.go where the primary acknowledges a write, and ask what server-2 knows at that instant.",
			"Make the primary wait until server-2 has applied the change before it acknowledges (call the peer, do not p.Go). " +
				"That alone is not enough: server-1 shows the change to its own readers before server-2 has it, " +
				"so a read on server-1 and a later read on server-2 can still disagree. Reads on server-2 need a rule too.",
			"Read index: before server-2 answers a Latest read, it asks server-1 for the resourceVersion it has applied " +
				"(a ReadIndex message), then waits (s.applied.Wait) until its own store has reached that version, " +
				"and only then reads its copy. Reads with ResourceVersion \"0\" (kube.Any) may stay local and stale.",
		},
		Suite:   "internal/harness/suites/ex04suite",
		Binding: "NewServer",
	})
}
