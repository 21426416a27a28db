package ex05suite

import (
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// remembering is a run of a controller's reconciles, one after another,
// that were told web's desired count but read none of web's pods: each
// acted on a count of pods it had not read in it, one it kept from an
// earlier reconcile. A read of any pod ends the run.
type remembering struct {
	n           int           // reconciles in the run
	first, last time.Duration // when the first and the last of them ended
	writes      int           // creates and deletes they sent
}

// remembered notes the end, at now, of a reconcile of b: one more in the
// run of reconciles that read no pod, or the end of that run.
func (b *belief) remembered(now time.Duration) {
	switch {
	case b.readPods:
		b.remembering = remembering{}
	case b.told:
		if b.remembering.n == 0 {
			b.remembering.first = now
		}
		b.remembering.n++
		b.remembering.last = now
		b.remembering.writes += b.unread
	}
}

// rememberedPods judges a world that ends without web's desired count of
// pods (or with pods that stood while web wanted none) where a controller,
// since the history's pods last changed, reconciled web again and again
// without reading its pods: it acted, or did nothing, on a count it had
// not read in those reconciles (remembered-pods). The change its count
// missed, its last list, and the reconciles that did not read again are
// the story; converged tells any other failure to converge.
func (cl *cluster) rememberedPods() *suite.Failure {
	ended := cl.converged()
	if ended == nil {
		return nil
	}
	var told []string
	for _, id := range []sim.NodeID{controllerA, controllerB} {
		b := cl.beliefs[id]
		run := b.remembering
		if run.n < 2 || !b.pods.ok {
			continue
		}
		// The first change to web's pods by another hand since its last
		// list, which that count could not show, before the reconciles
		// that did not read.
		var c change
		for _, x := range cl.log {
			if x.ofWeb && x.key != web && x.by != id && x.at > b.pods.at && x.at < run.last {
				c = x
				break
			}
		}
		if c.key == "" {
			continue
		}
		sent := "sent nothing"
		if run.writes > 0 {
			sent = fmt.Sprintf("sent %d %s on it", run.writes, plural(run.writes, "write"))
		}
		told = append(told, fmt.Sprintf("%s reconciled web %d times (they ended from %s to %s), reading web through %s each time but never its pods, and %s: "+
			"it acted on its last list of pods, answered at %s (%d pods of web, %s), which none of those reconciles read again, "+
			"though etcd had accepted %s (by %s) at %s since",
			id, run.n, suite.FormatTime(run.first), suite.FormatTime(run.last), b.server, sent,
			suite.FormatTime(b.pods.at), b.pods.value, b.pods.how(b.server), c.told(), c.by, suite.FormatTime(c.at)))
	}
	if len(told) == 0 {
		return nil
	}
	story := strings.Join(told, "; ") + ". " + suite.UpperFirst(ended.Story) +
		". A count of pods is true only when it is read: every reconcile reads the pods again, as it reads the desired count"
	return &suite.Failure{Name: "remembered-pods", Clause: course.OneHistory, At: ended.At, Story: story, Details: ended.Details}
}
