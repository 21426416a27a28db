package course

func init() {
	register(Chapter{
		ID:      "ex06",
		Slug:    "both-servers-say-yes",
		Title:   "Both servers say yes",
		Failure: "divergent-history",
		Clauses: []Clause{OneHistory, DurableAgreement},
		Checks: []Check{
			{Name: "story", Title: "5 through server-1, 2 through server-2 at the same instant: both told yes, both servers end with one history", Points: 3},
			{Name: "one-history", Title: "writers on both servers over slow, lossy and cut links: one history, converged, nothing lost, most writes accepted", Points: 4},
			{Name: "linearizable", Title: "readers on both servers too: every Get and List fits one order of all operations", Points: 3},
		},
		Hints: [3]string{
			"Each server gives the next position to whatever write reaches it first. Two writes that reach two servers at the same moment get the same position, " +
				"and the copies each server receives cannot change what it already holds there. Who could pick the positions for both of them?",
			"Let one server, servers[0], be the sequencer: every write, wherever a client sent it, is decided and numbered there, and reaches the others with replicate, " +
				"as your own writes do now. A server that is not the sequencer sends the write there in a message of your own and answers its client with what comes back.",
			"In write, on a server that is not servers[0], Call servers[0] with your message carrying the Write, and give its reply (the stored kube.Event's Object, or its error) to the client. " +
				"In handle, the sequencer answers that message with what write does today: h.apply, then replicate. Do not send the message again after a timeout: the sequencer may have ordered it already; answer kube.ErrTimeout.",
		},
		Suite:   "internal/harness/suites/ex06suite",
		Binding: "Serve",
	})
}
