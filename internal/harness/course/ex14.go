package course

func init() {
	register(Chapter{
		ID:      "ex14",
		Slug:    "slow-is-not-dead",
		Title:   "Slow is not dead",
		Failure: "slow-taken-for-dead",
		Clauses: []Clause{DurableAgreement},
		Checks: []Check{
			{Name: "story", Title: "a slow disk, a 36s heartbeat, a pause, two crashes (one clock a minute ahead): no live node evicted, both dead ones found in time", Points: 3},
			{Name: "accuracy", Title: "long-tailed links, pauses, skewed and stepped clocks: no node that was up is ever evicted, nor evicted the moment it is suspected", Points: 3},
			{Name: "completeness", Title: "the same worlds: every crashed node suspected and evicted within its population's bounds", Points: 3},
			{Name: "disruption", Title: "every node cut off from the store and the controller for a minute: no evictions, during the cut or after the heal", Points: 2},
		},
		Hints: [3]string{
			"Look at what Observe keeps: the time the node wrote into its heartbeat, on the node's clock. Keep instead the time you saw the heartbeat change, on your own clock (now), and count any change as a heartbeat, even one that reads earlier than the last.",
			"Keep, per node, the gaps between the heartbeats you saw (the last fifty or so). A node is suspect when its silence passes its own mean gap plus several standard deviations (with a floor on the deviation, for a node as steady as a clock), and never less than one and a half times the longest gap it has shown; until you have several gaps, assume a generous bound, such as a minute.",
			"Convict only a node whose silence passes a second, longer bound (its suspicion bound plus a tolerance, or twice it, whichever is longer). Convict nobody while most of the nodes (seven in ten or more) are late by their own rhythm (silent for longer than one and a half times their mean gap): they fell silent together, and the fault is likelier yours. When that ends, let every node's silence count from then.",
		},
		Suite:   "internal/harness/suites/ex14suite",
		Binding: "hidden.Impl{Control: Run}",
		Given:   []string{"controller.go"},
		Bonus:   true,
	})
}
