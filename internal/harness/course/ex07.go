package course

func init() {
	register(Chapter{
		ID:      "ex07",
		Slug:    "the-partition",
		Title:   "The partition",
		Failure: "split-brain",
		Clauses: []Clause{DurableAgreement, AgreementFirst},
		Checks: []Check{
			{Name: "story", Title: "server-3 cut off: 5 through server-1 is acknowledged, 2 through server-3 refused within 1s, one history after the heal", Points: 2},
			{Name: "even-split", Title: "four servers split two and two: both sides refuse within 1s, yes again after the heal", Points: 2},
			{Name: "partitions", Title: "random splits, crashes, slow links: one history, no yes without a majority, nothing lost, answers within 1s, yes when calm", Points: 3},
			{Name: "linearizable", Title: "through splits and heals, every answer fits one order of all operations", Points: 3},
		},
		Hints: [3]string{
			"A server that hears nothing from the others cannot tell whether they are gone or it is the one cut off. What could a server count, before it says yes, that two sides of a split can never both have?",
			"Keep servers[0] as the only server that orders writes, and make its yes wait until a majority of the servers (len(servers)/2+1, itself included) hold the history up to that write. Have it keep sending each server the history from where that server says it is, so a server that was cut off or restarted catches up; stop waiting after a deadline and answer kube.Unavailable.",
			"In Serve, start one process per other server on the sequencer (p.Go) that loops: Call the peer with the entries after the position it last reported (h.after), record the position it answers, recompute the highest position a majority holds, Broadcast a sim.Cond; wait a heartbeat when there is nothing to send. In order, wait on that Cond with WaitTimeout until that position reaches your write, or return Unavailable. A follower forwards writes with a Call whose timeout keeps the whole answer under 1 s. For a Latest read, have the sequencer wait until a majority has answered a round sent after the read arrived, then answer from a server that holds everything committed; serve Any reads locally.",
		},
		Suite:   "internal/harness/suites/ex07suite",
		Binding: "Serve",
	})
}
