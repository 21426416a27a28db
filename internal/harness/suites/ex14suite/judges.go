package ex14suite

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/table"
)

// slowTakenForDead: the controller evicted the pod of a node that was up.
// The story names what made the node fall silent: its link's long tail, a
// pause, or a clock that reads differently from the controller's.
func slowTakenForDead(w *world) *suite.Failure {
	for _, node := range w.byEviction() {
		t, evicted := w.eviction(node)
		if !evicted || !w.upAt(node, t) {
			continue
		}
		return &suite.Failure{Name: "slow-taken-for-dead", Clause: course.DurableAgreement, At: t,
			Story: fmt.Sprintf("at %s the node controller evicted pods/%s from %s, which was alive: %s. Slow is not dead: the controller convicted a node that was only late",
				suite.FormatTime(t), podName(node), node, w.silence(node, t)),
			Details: w.record(node, t)}
	}
	return nil
}

// byEviction is the nodes in the order the controller evicted their pods,
// the nodes it never evicted last: a judge tells the first eviction.
func (w *world) byEviction() []string {
	out := slices.Clone(w.names)
	slices.SortStableFunc(out, func(a, b string) int {
		ta, oka := w.eviction(a)
		tb, okb := w.eviction(b)
		switch {
		case oka && okb:
			return cmp.Compare(ta, tb)
		case oka:
			return -1
		case okb:
			return 1
		}
		return 0
	})
	return out
}

// silence tells what node's heartbeats did around t, and why it was silent.
func (w *world) silence(node string, t time.Duration) string {
	hb := w.heartbeats(node)
	var last, next time.Duration
	longest, prev := time.Duration(0), time.Duration(-1)
	for _, at := range hb {
		if at > t {
			next = at
			break
		}
		if prev >= 0 {
			longest = max(longest, at-prev)
		}
		prev, last = at, at
	}
	pop := w.pop[node]
	var b strings.Builder
	fmt.Fprintf(&b, "%s is a %s node (heartbeats every %s of its clock, over a link of %s)", node, pop.Name, suite.FormatTime(interval), describeLink(pop.Up))
	fmt.Fprintf(&b, "; its last heartbeat had reached the store at %s, %s before", suite.FormatTime(last), suite.FormatTime(t-last))
	if next > 0 {
		fmt.Fprintf(&b, ", and the next arrived at %s", suite.FormatTime(next))
	}
	if longest > 0 {
		fmt.Fprintf(&b, " (its longest gap until then: %s)", suite.FormatTime(longest))
	}
	for _, f := range w.spells {
		if string(f.Node) == node && f.From <= t && t <= f.From+f.For+f.Delay {
			fmt.Fprintf(&b, "; from %s its link to the store took %s for %s, and the heartbeat it sent then was %s on the way", suite.FormatTime(f.From), suite.FormatTime(f.Delay), suite.FormatTime(f.For), suite.FormatTime(f.Delay))
		}
	}
	if p, ok := w.pausedAround(node, t); ok && p.From+p.For >= last-interval {
		fmt.Fprintf(&b, "; it was paused from %s for %s, a long garbage collection, its memory kept", suite.FormatTime(p.From), suite.FormatTime(p.For))
	}
	if step, at, ok := w.stepOf(node, t); ok {
		dir := "back"
		if step > 0 {
			dir = "forward"
		}
		fmt.Fprintf(&b, "; its clock was stepped %s %s at %s, and the heartbeat's time is written on that clock", dir, suite.FormatTime(abs(step)), suite.FormatTime(at))
	} else if sk := w.skewOf(node, t); sk != 0 && (sk >= time.Second || sk <= -time.Second) {
		dir := "ahead of"
		if sk < 0 {
			dir = "behind"
		}
		fmt.Fprintf(&b, "; its clock ran %s %s the world's, and the heartbeat's time is written on that clock", suite.FormatTime(abs(sk)), dir)
	}
	for _, f := range w.Faults {
		if f.Kind == sim.FaultSlowDisk && f.Start <= t && t <= f.End+interval*3 {
			fmt.Fprintf(&b, "; the store's disk was slow from %s to %s, and every heartbeat waited for it", suite.FormatTime(f.Start), suite.FormatTime(f.End))
			break
		}
	}
	return b.String()
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// describeLink is "100–10000ms, 5% up to 35000ms".
func describeLink(l sim.Link) string {
	s := fmt.Sprintf("%s–%s", strings.TrimSuffix(suite.FormatTime(l.Min), "ms"), suite.FormatTime(l.Max))
	if l.Tail > 0 {
		s += fmt.Sprintf(", %g%% up to %s", 100*l.Tail, suite.FormatTime(l.TailMax))
	}
	return s
}

// record is what the store accepted about node around t: its heartbeats,
// and what the controller wrote about it, one a line, with the node's crash
// or pause from the world's own record. The window runs from a minute before
// t (or earlier, to take in the node's last heartbeat before it crashed or
// paused, the crash or pause itself, and the taint in force at t or lifted
// last) to half a minute after.
func (w *world) record(node string, t time.Duration) string {
	from := w.recordFrom(node, t)
	tb := table.Table{Indent: "  ", Header: []string{"virtual ms", "what"}, Right: []bool{true}}
	type row struct {
		at   time.Duration
		what string
	}
	var truth []row
	if c, ok := w.crashedAt(node); ok && c >= from && c <= t+30*time.Second {
		truth = append(truth, row{c, fmt.Sprintf("(the world) %s crashes", node)})
	}
	if p, ok := w.pausedAround(node, t+30*time.Second); ok && p.From >= from {
		truth = append(truth, row{p.From, fmt.Sprintf("(the world) %s pauses for %s, its memory kept", node, suite.FormatTime(p.For))})
	}
	tainted := false
	for _, a := range w.accepted {
		for len(truth) > 0 && truth[0].at <= a.at {
			tb.Rows = append(tb.Rows, []string{suite.FormatTime(truth[0].at), truth[0].what})
			truth = truth[1:]
		}
		was := tainted
		if a.obj.Key() == kube.NodeKey(node) && !a.delete {
			tainted = a.obj.Status.NoSchedule
		}
		if a.at < from || a.at > t+30*time.Second {
			continue
		}
		var what string
		switch {
		case a.obj.Key() == kube.NodeKey(node) && a.from == sim.NodeID(node):
			what = fmt.Sprintf("heartbeat of %s (its clock: %s)", node, suite.FormatTime(a.obj.Status.Heartbeat))
		case a.obj.Key() == kube.NodeKey(node) && was && !a.obj.Status.NoSchedule:
			what = fmt.Sprintf("%s lifts the NoSchedule taint: %s", a.from, a.obj.Status)
		case a.obj.Key() == kube.NodeKey(node) && !was && a.obj.Status.NoSchedule:
			what = fmt.Sprintf("%s taints it NoSchedule: %s", a.from, a.obj.Status)
		case a.obj.Key() == kube.NodeKey(node):
			what = fmt.Sprintf("%s sets %s", a.from, a.obj.Status)
		case a.delete && a.obj.NodeName == node:
			what = fmt.Sprintf("%s evicts pods/%s", a.from, a.obj.Name)
		default:
			continue
		}
		tb.Rows = append(tb.Rows, []string{suite.FormatTime(a.at), what})
	}
	for _, r := range truth {
		tb.Rows = append(tb.Rows, []string{suite.FormatTime(r.at), r.what})
	}
	return fmt.Sprintf("what the store accepted about %s from %s to %s:\n", node, suite.FormatTime(from), suite.FormatTime(t+30*time.Second)) + strings.TrimRight(tb.String(), "\n")
}

// recordFrom is where node's record around t begins: a minute before t, or
// earlier to take in its last heartbeat before a crash or pause, the crash
// or pause, and the last taint set or lifted before t.
func (w *world) recordFrom(node string, t time.Duration) time.Duration {
	from := max(t-time.Minute, 0)
	lastBefore := func(at time.Duration) {
		from = min(from, at)
		var hb time.Duration = -1
		for _, h := range w.heartbeats(node) {
			if h <= at {
				hb = h
			}
		}
		if hb >= 0 {
			from = min(from, hb)
		}
	}
	if c, ok := w.crashedAt(node); ok && c <= t {
		lastBefore(c)
	}
	if p, ok := w.pausedAround(node, t); ok && p.From+p.For+time.Minute >= t {
		lastBefore(p.From)
	}
	for _, ch := range w.taintChanges(node) {
		if ch.set && ch.at <= t && ch.at >= t-5*time.Minute {
			from = min(from, ch.at)
			break
		}
	}
	return from
}

// A taintChange is the node's NoSchedule taint set (set) or lifted at at.
type taintChange struct {
	at  time.Duration
	set bool
}

// taintChanges are the times node's NoSchedule taint was set or lifted, in
// order.
func (w *world) taintChanges(node string) []taintChange {
	var out []taintChange
	tainted := false
	for _, a := range w.accepted {
		if a.obj.Key() != kube.NodeKey(node) || a.delete {
			continue
		}
		if a.obj.Status.NoSchedule != tainted {
			out = append(out, taintChange{a.at, a.obj.Status.NoSchedule})
		}
		tainted = a.obj.Status.NoSchedule
	}
	return out
}

// untainted tells why node, crashed at c, was not tainted NoSchedule at by:
// it never was, or the controller set the taint and lifted it again while
// the node was still silent.
func (w *world) untainted(node string, c, by time.Duration) string {
	var parts []string
	for _, ch := range w.taintChanges(node) {
		if ch.at < c || ch.at > by {
			continue
		}
		if ch.set {
			parts = append(parts, "tainted it NoSchedule at "+suite.FormatTime(ch.at))
		} else {
			parts = append(parts, "lifted the taint at "+suite.FormatTime(ch.at))
		}
	}
	if len(parts) == 0 {
		return "the node controller had still not tainted it NoSchedule"
	}
	return "the node controller had " + strings.Join(parts, ", then ") + ", while the node was still silent, and had not tainted it again"
}

// convictedOnSuspicion: an eviction that did not follow a suspicion (a
// NoSchedule taint) held for tolerance at least.
func convictedOnSuspicion(w *world) *suite.Failure {
	for _, node := range w.byEviction() {
		t, evicted := w.eviction(node)
		if !evicted {
			continue
		}
		var since time.Duration = -1
		for _, at := range w.taints(node) {
			if at <= t {
				since = at
			}
		}
		if since >= 0 && t-since >= tolerance {
			continue
		}
		how := "without having tainted it NoSchedule first"
		if since >= 0 {
			how = fmt.Sprintf("%s after it tainted the node NoSchedule", suite.FormatTime(t-since))
		}
		return &suite.Failure{Name: "convicted-on-suspicion", Clause: course.DurableAgreement, At: t,
			Story: fmt.Sprintf("at %s the node controller evicted pods/%s from %s %s: suspicion must come before conviction, by %s at least, so that a node that is only late can answer",
				suite.FormatTime(t), podName(node), node, how, suite.FormatTime(tolerance)),
			Details: w.record(node, t)}
	}
	return nil
}

// taintedAt reports whether node's object carried the NoSchedule taint at t.
func (w *world) taintedAt(node string, t time.Duration) bool {
	tainted := false
	for _, a := range w.accepted {
		if a.at > t {
			break
		}
		if a.obj.Key() == kube.NodeKey(node) && !a.delete {
			tainted = a.obj.Status.NoSchedule
		}
	}
	return tainted
}

// deadUnsuspected: a crashed node not suspected within its population's bound.
func deadUnsuspected(w *world) *suite.Failure {
	for _, node := range w.names {
		c, crashed := w.silentFrom(node)
		pop := w.pop[node]
		by := c + pop.SuspectWithin
		if !crashed || by > w.end {
			continue
		}
		if _, evicted := w.eviction(node); evicted && w.evictedBy(node, by) {
			continue
		}
		if w.taintedAt(node, by) {
			continue
		}
		return &suite.Failure{Name: "dead-node-unsuspected", Clause: course.DurableAgreement, At: by,
			Story: fmt.Sprintf("%s crashed %s, and at %s, %s later, %s: %s%s. A crashed %s node must be suspected within %s",
				node, w.fellSilent(node, c), suite.FormatTime(by), suite.FormatTime(pop.SuspectWithin), w.untainted(node, c, by), w.deadSilence(node, c), w.noneTainted(by), pop.Name, suite.FormatTime(pop.SuspectWithin)),
			Details: w.record(node, by)}
	}
	return nil
}

// noneTainted is "", or, when the controller had tainted no node at all by
// t, what that says: its detector has judged no node anything but healthy,
// so the fault is in whether it judges at all, not in how long it waits.
func (w *world) noneTainted(t time.Duration) string {
	for _, n := range w.names {
		if ts := w.taints(n); len(ts) > 0 && ts[0] <= t {
			return ""
		}
	}
	return fmt.Sprintf("; by then the controller had tainted no node at all in %s: every verdict it was given for the nodes it watches was healthy, the crashed one's included, whatever its silence", suite.FormatTime(t))
}

// silentFrom is when a crashed node fell silent for good: its crash, or
// the arrival of a heartbeat it sent before and the store accepted after
// (a heartbeat in flight outlives its sender), whichever is later. The
// bounds count from there: no detector can know of a crash before.
func (w *world) silentFrom(node string) (time.Duration, bool) {
	c, crashed := w.crashedAt(node)
	if !crashed {
		return 0, false
	}
	for _, at := range w.heartbeats(node) {
		c = max(c, at)
	}
	return c, true
}

// evictedBy reports whether node's pod was evicted at or before t.
func (w *world) evictedBy(node string, t time.Duration) bool {
	at, ok := w.eviction(node)
	return ok && at <= t
}

// deadKept: a crashed node whose pod was not evicted within its
// population's bound.
func deadKept(w *world) *suite.Failure {
	for _, node := range w.names {
		c, crashed := w.silentFrom(node)
		pop := w.pop[node]
		by := c + pop.EvictWithin
		if !crashed || by > w.end || w.evictedBy(node, by) {
			continue
		}
		when := "and it was never evicted"
		if at, ok := w.eviction(node); ok {
			when = fmt.Sprintf("and it was evicted only at %s, %s after that", suite.FormatTime(at), suite.FormatTime(at-c))
		}
		return &suite.Failure{Name: "dead-node-kept", Clause: course.DurableAgreement, At: by,
			Story: fmt.Sprintf("%s crashed %s, and at %s, %s later, its pod pods/%s was still bound to it, %s: %s%s. The pods of a crashed %s node must be evicted within %s",
				node, w.fellSilent(node, c), suite.FormatTime(by), suite.FormatTime(pop.EvictWithin), podName(node), when, w.deadSilence(node, c), w.livingSuspected(by), pop.Name, suite.FormatTime(pop.EvictWithin)),
			Details: w.record(node, by)}
	}
	return nil
}

// livingSuspected is "", or, when the controller held most of the nodes
// that were up tainted at t, what that says: a detector that finds nearly
// every node late at once takes it for its own disruption and convicts
// nobody, the dead included.
func (w *world) livingSuspected(t time.Duration) string {
	var up, tainted []string
	for _, n := range w.names {
		if w.upAt(n, t) {
			up = append(up, n)
			if w.taintedAt(n, t) {
				tainted = append(tainted, n)
			}
		}
	}
	if len(up) == 0 || float64(len(tainted)) < 0.5*float64(len(up)) {
		return ""
	}
	return fmt.Sprintf("; at that moment the controller also held %d of the %d nodes that were up tainted (%s), though their heartbeats came as usual: a detector whose bounds are shorter than the gaps its nodes show suspects the living, and with most nodes late together it holds every conviction back as a disruption", len(tainted), len(up), strings.Join(tainted, ", "))
}

// fellSilent is "at 200000ms", or, when a heartbeat it sent before its crash
// arrived after, "at 198731.2ms, and its last heartbeat arrived at 219992.9ms".
func (w *world) fellSilent(node string, from time.Duration) string {
	c, _ := w.crashedAt(node)
	if from == c {
		return "at " + suite.FormatTime(c)
	}
	return fmt.Sprintf("at %s, and a heartbeat it had sent before arrived at %s", suite.FormatTime(c), suite.FormatTime(from))
}

// deadSilence tells what a crashed node's last heartbeat said.
func (w *world) deadSilence(node string, c time.Duration) string {
	var last time.Duration
	var stamp time.Duration
	for _, a := range w.accepted {
		if a.from == sim.NodeID(node) && !a.delete && a.at <= c {
			last, stamp = a.at, a.obj.Status.Heartbeat
		}
	}
	s := fmt.Sprintf("its last heartbeat reached the store at %s", suite.FormatTime(last))
	if sk := w.skewOf(node, c); sk >= interval {
		s += fmt.Sprintf(", stamped %s on its clock, which ran %s ahead: judged by the writer's timestamp, a dead node looks alive %s longer", suite.FormatTime(stamp), suite.FormatTime(sk), suite.FormatTime(sk))
	}
	return s
}

// evictedInDisruption: an eviction during, or after, a cut of every node
// from the store, when no node was dead.
func evictedInDisruption(w *world) *suite.Failure {
	for _, node := range w.byEviction() {
		t, evicted := w.eviction(node)
		if !evicted || t < w.cutFrom || !w.upAt(node, t) {
			continue
		}
		n := 0
		for _, other := range w.names {
			if _, ok := w.eviction(other); ok {
				n++
			}
		}
		return &suite.Failure{Name: "evicted-in-disruption", Clause: course.DurableAgreement, At: t,
			Story: fmt.Sprintf("every node was cut off from the store and the controller from %s to %s, all %d silent at once, and at %s%s the node controller evicted pods/%s from %s, which was alive (%d of %d nodes' pods evicted in all): when most nodes fall silent together, the likelier fault is the controller's own network, and a controller that evicts then empties a healthy cluster",
				suite.FormatTime(w.cutFrom), suite.FormatTime(w.cutTo), nodeCount, suite.FormatTime(t), afterHeal(t, w.cutTo), podName(node), node, n, nodeCount),
			Details: w.record(node, t)}
	}
	return nil
}

// afterHeal is ", 12000ms after the heal," for an eviction after the cut
// healed at healed, and empty for one during it.
func afterHeal(t, healed time.Duration) string {
	if t < healed {
		return ""
	}
	return fmt.Sprintf(", %s after the heal,", suite.FormatTime(t-healed))
}

// stepOf is the last step of node's clock at or before t: by how much the
// clock was moved (negative: back) and when, if it was stepped at all.
func (w *world) stepOf(node string, t time.Duration) (time.Duration, time.Duration, bool) {
	var prev, step, at time.Duration
	found := false
	for _, s := range scene.DeclaredOf[scene.Skew](w.Scene) {
		if s.Node != sim.NodeID(node) || s.From > t {
			continue
		}
		if s.From > 0 {
			step, at, found = s.By-prev, s.From, true
		}
		prev = s.By
	}
	return step, at, found
}
