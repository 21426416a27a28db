package ex14suite

import (
	"fmt"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/suite"
)

// liveSuspicions counts, in one finished world, the times the controller
// tainted a node NoSchedule while the node was up and had not been paused
// in the minute before: a suspicion of a node that was only late. It also
// counts the node-seconds the world watched, for a rate.
func liveSuspicions(w *world) scene.Counts {
	n := 0
	for _, node := range w.names {
		for _, at := range w.taints(node) {
			if !w.upAt(node, at) {
				continue
			}
			if p, ok := w.pausedAround(node, at); ok && p.From+p.For > at-time.Minute {
				continue
			}
			n++
		}
	}
	return scene.Counts{"live-suspicions": n, "node-seconds": len(w.names) * int(w.end/time.Second)}
}

// maxLiveSuspicionsPerNodeHour is the page's bound on suspicions of nodes
// that were up, over every world of the accuracy check.
const maxLiveSuspicionsPerNodeHour = 3.0

// suspicionRate judges the accuracy check's worlds together: suspicion is
// cheap (a taint stops new pods), but a detector that suspects a live node
// more than once an hour of watching has only moved the fixed timeout from
// eviction to suspicion.
func suspicionRate(sum scene.Counts, seeds []int64) *suite.Failure {
	hours := float64(sum["node-seconds"]) / 3600
	if hours == 0 {
		return nil
	}
	rate := float64(sum["live-suspicions"]) / hours
	if rate <= maxLiveSuspicionsPerNodeHour {
		return nil
	}
	return &suite.Failure{Name: "suspects-the-living", Clause: course.DurableAgreement,
		Story: fmt.Sprintf("in %d worlds (%.1f node-hours) the node controller tainted a node that was up, and not just paused, %d times: %.2f an hour for each node, over the page's bound of %.0f; "+
			"a suspicion that comes at a fixed silence, however late the conviction, is the fixed timeout again, and the nodes across the long-tailed link are suspected every time their heartbeats are late",
			len(seeds), hours, sum["live-suspicions"], rate, maxLiveSuspicionsPerNodeHour)}
}
