package course

func init() {
	register(Chapter{
		ID:      "ex08",
		Slug:    "more-copies-is-not-more-truth",
		Title:   "More copies is not more truth",
		Failure: "overwritten-by-older-write",
		Clauses: []Clause{OneHistory, DurableAgreement, AgreementFirst},
		Checks: []Check{
			{Name: "story", Title: "five servers, one clock 400ms ahead: the later scale stays on every server", Points: 3},
			{Name: "agreement-first", Title: "a client hears yes, or reads a value, only once a majority of the disks hold it", Points: 2},
			{Name: "one-history", Title: "crashes, partitions, slow links, torn logs: one history, nothing acknowledged lost, converged", Points: 2},
			{Name: "linearizable", Title: "every client's answers fit one order of all operations", Points: 2},
			{Name: "available", Title: "with the leader and a majority up and connected, every request is answered", Points: 1},
			{Name: "catch-up", Title: "a follower away during a burst of writes answers Latest reads only once caught up, and catches up", Points: 2},
		},
		Hints: [3]string{
			"Five copies that each take writes and settle their differences by timestamp hold five opinions, and a clock decides between them. What would it take for there to be only one order, whatever the clocks say?",
			"Make servers[0] the leader and give the cluster one log: the leader decides each write against the committed state, writes it as the next entry of its log (record.go's format, synced), and sends it to the followers, who append entries only right after the ones they hold and sync before they answer. The client hears yes once a majority of the servers, the leader counted once, hold the entry on disk.",
			"Keep a log type with the entries in memory and on disk: at boot read them back with decodeEntries and Truncate the torn tail. On the leader, lead() holds a mutex from decision to commit, appends and syncs, Sends Append{Prev, Entries, Commit} to each follower and waits on a Cond until commit covers the entry; an Ack handler records how much each follower holds and moves commit to what a majority holds. A heartbeat loop re-sends every follower what it is missing, so a restarted follower catches up. A restarted leader answers nothing until its recovered log is committed again. A Latest read on a follower asks the leader for its commit index and waits until it has applied that far.",
		},
		Suite:   "internal/harness/suites/ex08suite",
		Binding: "Serve",
	})
}
