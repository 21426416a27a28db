package course

func init() {
	register(Chapter{
		ID:      "ex06",
		Slug:    "both-servers-say-yes",
		Title:   "Both servers say yes",
		Failure: "divergent-history",
		Clauses: []Clause{OneHistory, DurableAgreement},
		Checks: []Check{
			{Name: "story", Title: "5 through server-1, 2 through server-2: both servers end with one history", Points: 3},
			{Name: "one-history", Title: "concurrent writes over slow links: one history, converged, nothing lost", Points: 4},
			{Name: "linearizable", Title: "every client's answers fit one order of all operations", Points: 3},
		},
		Hints: [3]string{
			"Two servers that each pick the next resourceVersion for themselves will sooner or later pick the same number for different changes. Who could pick the numbers for both of them?",
			"Let one server (servers[0]) be the sequencer: every write, wherever it arrives, is forwarded to it and gets its position there. The sequencer sends each ordered change to the other servers, and they apply changes strictly in position order, holding back any that arrive early.",
			"In write: if you are not the sequencer, Call it with Order{Write: w}, then wait (s.h.changed.Wait) until your own history has reached the event's resourceVersion before answering. In handle, buffer Apply events in a map by position and append them only when position()+1 is there. In get, for a Latest read on a follower, first Call the sequencer for its Position and wait until you have applied that far.",
		},
		Suite:   "internal/harness/suites/ex06suite",
		Binding: "Serve",
	})
}
