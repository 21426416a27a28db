package course

func init() {
	register(Chapter{
		ID:      "ex13",
		Slug:    "the-controller-that-woke-up",
		Title:   "The controller that woke up",
		Failure: "deposed-leader-wrote",
		Clauses: []Clause{OneHistory, AgreementFirst},
		Checks: []Check{
			{Name: "story", Title: "the leader freezes for 20s between deciding and writing: its late writes are refused once the lease has passed", Points: 3},
			{Name: "clock-skew", Title: "clocks 20s apart or running at 0.7: a healthy leader keeps its lease, and no two act at once", Points: 2},
			{Name: "step-down", Title: "a leader cut off from the server stops acting by its renew deadline, and the other takes over in time", Points: 2},
			{Name: "fenced", Title: "pauses, clocks beyond any lease's tolerance and cuts: no write of a deposed leader is accepted", Points: 4},
		},
		Hints: [3]string{
			"Look at what happens at 80s in the story: controller-a's decision was made at 60s, while it led, and its writes arrive 20s later. No check it makes before writing can help, since the pause can fall after any check. Who can still refuse the write when it arrives? What would the write have to carry for that?",
			"Hand out the lease's Transitions as the token: Leading returns kube.Fence{LeaseKey: LeaseKey, Token: the Transitions your elector wrote when it took the lease}. The store refuses a write whose token is no longer the lease's. Then the clocks: never compare the holder's RenewTime with your clock; remember, on your own clock, when you last saw the record change, and take the lease only LeaseDuration after that.",
			"Keep, on your own clock, when your last renewal began (before the request left); Leading answers false once RenewDeadline has passed since, whatever the renew loop believes. A takeover adds one to Transitions; a renewal keeps it. A renewal that fails with Conflict means someone else wrote the lease: stop leading.",
		},
		Suite:   "internal/harness/suites/ex13suite",
		Binding: "hidden.Impl[*Elector]{Elect: NewElector}",
		Bonus:   true,
	})
}
