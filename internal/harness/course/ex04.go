package course

func init() {
	register(Chapter{
		ID:      "ex04",
		Slug:    "the-write-that-arrived-late",
		Title:   "The write that arrived late",
		Failure: "stale-read",
		Clauses: []Clause{OneHistory, AgreementFirst},
		Checks: []Check{
			{Name: "story", Title: "web is scaled to 5 through server-1; the dashboard then reads and lists through server-2 and must see 5", Points: 3},
			{Name: "acknowledged", Title: "server-1 says yes, then is cut off and dies: server-2 holds every write server-1 acknowledged", Points: 2},
			{Name: "linearizable", Title: "readers behind lost copies; writers on each server in turn, readers on both, lossy links: every Get and List fits one order", Points: 3},
			{Name: "progress", Title: "over slow and lossy links every request is answered and both servers end with one history, nothing lost", Points: 2},
		},
		Hints: [3]string{
			"server-1 tells the controller \"accepted\" while the change is still on its way to server-2. " +
				"Find where write answers, and ask what server-2 knows at that instant, and what it would know if that one message were lost or server-1 died.",
			"Answer a write only once every other server has applied the change: Call it, and Call again until it answers (a lost message or a lost answer only costs a retry). " +
				"On the receiving side, apply a change at the position its sender gave it (ev.Object.ResourceVersion), never twice, and never before the one in front of it. " +
				"That is half: a server shows its own writes to its readers before the other has them, so Latest reads on either server need a rule too.",
			"Give the servers a second message of your own, whose answer is how far the receiver's history goes (s.h.position()). " +
				"A Latest get or list sends it to every other server and waits on s.h.changed until its own position has got that far; kube.Any reads stay local. " +
				"For the copying, a loop around p.Call that only ends when the answer comes is the whole retry.",
		},
		Suite:   "internal/harness/suites/ex04suite",
		Binding: "Serve",
	})
}
