package course

func init() {
	register(Chapter{
		ID:      "ex10",
		Slug:    "agreement-costs-latency",
		Title:   "Agreement costs latency",
		Failure: "one-round-trip-per-write",
		Clauses: []Clause{AgreementFirst},
		Checks: []Check{
			{Name: "story", Title: "twenty writes in a burst over 400ms links: agreed, and done within six round trips", Points: 3},
			{Name: "throughput", Title: "bursts of every size: one round trip per write in a row, plus one", Points: 2},
			{Name: "faults", Title: "leader cut off or crashed, followers down or slow: no yes before a majority holds it, one history, nothing lost", Points: 5},
		},
		Hints: [3]string{
			"Time one write: the leader syncs, sends, and waits 800ms for the followers. Now ask what the second write is doing during those 800ms. It waits for the turn. Nothing about agreement says it must: it only says that each write's yes waits for its own majority.",
			"Let write stop holding the turn: decide the write against the log's history (s.ahead), append it, and wait until s.committed has reached its index. Leave syncing and sending to processes of their own (p.Go in lead): one syncs whatever has been appended since the last sync, one per follower sends whatever is durable and not yet sent. Commit with advance whenever a follower's match or the leader's durable index moves.",
			"A follower's sender must not wait for the answer to one Append before sending the next, or each write waits for the batch ahead of it: start each Call in a process of its own. When a Call fails, or its answer's Match is below the Append's Prev (an earlier Append was lost or overtaken), send again from the follower's match. Wait with sim.Cond (Wait, WaitTimeout, Broadcast): one for \"something was appended or synced\", and s.committed.changed for a write waiting for its yes.",
		},
		Suite:   "internal/harness/suites/ex10suite",
		Binding: "Serve",
	})
}
