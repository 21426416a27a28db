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
			"In commit: frame the record as a 4-byte length, a 4-byte CRC32 of the payload, then encodeEvent(ev); Append it, Sync(p), then s.mem.Apply. In Open: walk the bytes of s.wal.ReadAll(); at the first frame that is incomplete or whose checksum is wrong, stop, Truncate the file to the end of the last good frame (otherwise the next record is written after the torn one and the following recovery stops too early), and Apply each good record with decodeEvent.",
		},
		Suite:   "internal/harness/suites/ex02suite",
		Binding: "Open",
	})
}
