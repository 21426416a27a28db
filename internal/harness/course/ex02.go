package course

func init() {
	register(Chapter{
		ID:      "ex02",
		Slug:    "the-page",
		Title:   "The 2:14 a.m. page",
		Failure: "lost-acknowledged-write",
		Clauses: []Clause{DurableAgreement},
		Checks: []Check{
			{Name: "story", Title: "the apiserver crashes at 02:14 and comes back at 02:18 with the deployment and its five pods", Points: 4},
			{Name: "crash-points", Title: "crashes anywhere in the write path lose no acknowledged change and half-apply none", Points: 4},
			{Name: "outage", Title: "while the apiserver is down clients hear Unavailable, and afterwards the cluster is all there", Points: 2},
		},
		Hints: [3]string{
			"Ask where each acknowledged change lives at the instant the client hears \"ok\". If the only answer is \"in the memory of the apiserver\", a crash at that instant takes it away. The node's disk is the only thing a crash leaves behind: p.Disk().Open(\"wal\").",
			"Write each change to the log before it is applied or acknowledged, and Sync the log before you Apply it and return: Sync is what makes the bytes survive a crash. On restart, Open reads the log back and Applies every change in order. A crash during Sync may leave only the first part of the last record on disk: your reader must recognise a short record and stop there.",
			"Frame each record so that a reader can tell where it ends and whether it arrived whole: a length and a " +
				"checksum in front of encodeEvent's bytes are one way. commit appends, syncs, and only then applies. Open walks " +
				"the frames and applies the whole ones; at the first short or damaged frame it stops. What must it do to the " +
				"file before anything is appended after that frame?",
		},
		Suite:   "internal/harness/suites/ex02suite",
		Binding: "Open",
	})
}
