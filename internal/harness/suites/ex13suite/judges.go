package ex13suite

import (
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// millis prints a time as the workbook does: "80010.0ms".
func millis(d time.Duration) string { return suite.FormatTime(d) }

// term is one holder's hold on the lease, as the store's history has it:
// who took it with which token, when, and when the store last accepted its
// renewal.
type term struct {
	holder  sim.NodeID
	token   int64
	since   time.Duration
	renewed time.Duration
	lease   kube.LeaseSpec // the record as last written
}

// replay walks the store's accepted writes in order, calling f with each and
// the lease's term as it stood just before it.
func (w *world) replay(f func(a accepted, cur term, held map[sim.NodeID]int64) bool) {
	var cur term
	held := map[sim.NodeID]int64{} // the last token each controller held
	for _, a := range w.accepted {
		if !f(a, cur, held) {
			return
		}
		if a.ev.Object.Key() != leaseKey {
			continue
		}
		l := a.ev.Object.Lease
		holder := sim.NodeID(l.Holder)
		if holder != cur.holder || l.Transitions != cur.token {
			cur = term{holder: holder, token: l.Transitions, since: a.at}
		}
		cur.renewed, cur.lease = a.at, l
		if holder != "" {
			held[holder] = l.Transitions
		}
	}
}

// noLeader: some controller must take the lease within the first seconds.
func noLeader(w *world) *suite.Failure {
	const by = 5 * time.Second
	for _, a := range w.accepted {
		if a.ev.Object.Key() == leaseKey && a.ev.Object.Lease.Holder != "" {
			if a.at <= by {
				return nil
			}
			break
		}
	}
	return &suite.Failure{Name: "no-leader", Clause: course.AgreementFirst, At: by,
		Story: fmt.Sprintf("by %s neither controller held %s: the store accepted no write of it naming a holder, so nothing reconciled web (a first holder creates the lease, or takes it by a conditional update once it has expired)",
			millis(by), leaseKey)}
}

// storyPlayed: the story needs its leader to decide to create web's pods
// after the scale, so that the pause falls between decision and writes.
func storyPlayed(w *world) *suite.Failure {
	if len(w.paused) > 0 {
		return nil
	}
	return &suite.Failure{Name: "story-not-played", Clause: course.AgreementFirst, At: w.end,
		Story: fmt.Sprintf("web was scaled to %d at %s, and by %s no controller had decided to create its missing pods: the leader never acted on the scale",
			storyReplicas, millis(storyScale), millis(w.end))}
}

// deposedWrote: every pod the store accepted from a controller was written
// while that controller held the lease. A write accepted from one whose
// lease had passed to another is two controllers acting on one history.
func deposedWrote(w *world) *suite.Failure {
	var f *suite.Failure
	w.replay(func(a accepted, cur term, held map[sim.NodeID]int64) bool {
		if a.ev.Object.Kind != "pods" || a.ev.Type != kube.Added || (a.from != ctrlA && a.from != ctrlB) || a.from == cur.holder {
			return true
		}
		fence := fenceOf(a.req)
		holding := fmt.Sprintf("holding lease token %d", held[a.from])
		if _, ever := held[a.from]; !ever {
			holding = "which had never held the lease"
		}
		how := "its write carried no fence, so the store could not tell it from the leader's"
		switch {
		case fence == (kube.Fence{}):
		case fence.Token == held[a.from]:
			how = fmt.Sprintf("its write carried %s, which the lease still had: the new holder took it without counting a transition", fenceText(fence))
		default:
			how = fmt.Sprintf("its write carried %s, not the token %d it held the lease with: the store took it for the new holder's", fenceText(fence), held[a.from])
		}
		story := fmt.Sprintf("at %s %s created %s %s, but %s has held the lease with token %d since %s: a deposed leader wrote (%s)",
			millis(a.at), a.from, a.ev.Object.Key(), holding, cur.holder, cur.token, millis(cur.since), how)
		if cur.holder == "" {
			story = fmt.Sprintf("at %s %s created %s %s, but nobody held the lease then (%s)", millis(a.at), a.from, a.ev.Object.Key(), holding, how)
		}
		if d := w.decisionBefore(a.from, a.at); d != nil && d.resumed != 0 && d.resumed <= a.at {
			story += fmt.Sprintf("; it had decided at %s, when web wanted %d pods and had %d, and its node was paused from then until %s",
				millis(d.at), d.want, d.have, millis(d.resumed))
		}
		if want, have := w.podsAtEnd(); have > want {
			story += fmt.Sprintf(": web ends with %d pods where %d were wanted", have, want)
		}
		f = &suite.Failure{Name: "deposed-leader-wrote", Clause: safety, At: a.at, Story: story,
			Details: "what the scene did:\n" + w.describe() + "\n" + w.leaseHistory()}
		return false
	})
	return f
}

// fenceOf is the fence a write request carried.
func fenceOf(req any) kube.Fence {
	switch r := req.(type) {
	case kube.CreateRequest:
		return r.Object.Fence
	case kube.UpdateRequest:
		return r.Object.Fence
	}
	return kube.Fence{}
}

// decisionBefore is who's last decision to create pods made at or before at.
func (w *world) decisionBefore(who sim.NodeID, at time.Duration) *decision {
	var out *decision
	for _, d := range w.paused {
		if d.who == who && d.at <= at {
			out = d
		}
	}
	if out == nil {
		if d := w.decided[who]; d != nil && d.at <= at {
			return d
		}
	}
	return out
}

// podsAtEnd is what web wants and how many pods it has, in the store, at
// the end of the world.
func (w *world) podsAtEnd() (want, have int) {
	for _, o := range w.store.Objects() {
		switch {
		case o.Key() == web:
			want = o.Replicas
		case o.Kind == "pods" && o.Owner == web:
			have++
		}
	}
	return want, have
}

// leaseHistory lists the lease's holders, for a story's details.
func (w *world) leaseHistory() string {
	var b strings.Builder
	b.WriteString("the lease's holders, as the store accepted them:")
	last := term{}
	w.replay(func(a accepted, cur term, _ map[sim.NodeID]int64) bool {
		if cur.holder != last.holder || cur.token != last.token {
			fmt.Fprintf(&b, "\n  %s with token %d, accepted by the store at %s", cur.holder, cur.token, millis(cur.since))
			last = cur
		}
		return true
	})
	return b.String()
}

// tooManyPods: after every accepted change web has at most the pods it wants.
func tooManyPods(w *world) *suite.Failure {
	want, pods := 0, map[string]sim.NodeID{}
	for _, a := range w.accepted {
		o := a.ev.Object
		switch {
		case o.Key() == web && a.ev.Type != kube.Deleted:
			want = o.Replicas
		case o.Kind == "pods" && o.Owner == web && a.ev.Type == kube.Added:
			pods[o.Key()] = a.from
		case o.Kind == "pods" && a.ev.Type == kube.Deleted:
			delete(pods, o.Key())
		}
		if len(pods) > want {
			return &suite.Failure{Name: "too-many-pods", Clause: safety, At: a.at,
				Story:   fmt.Sprintf("at %s the store accepted %s from %s, and web had %d pods where %d were wanted", millis(a.at), o.Key(), a.from, len(pods), want),
				Details: "what the scene did:\n" + w.describe() + "\n" + w.leaseHistory()}
		}
	}
	return nil
}

// converged: at the end web has the pods it wants.
func converged(w *world) *suite.Failure {
	want, have := w.podsAtEnd()
	if have == want {
		return nil
	}
	story := fmt.Sprintf("at %s, the end of the world, web has %d pods where %d are wanted", millis(w.end), have, want)
	fenced := 0
	for _, t := range w.tries {
		if t.err != nil && strings.Contains(t.err.Error(), "Fenced") {
			fenced++
			if fenced == 1 {
				story += fmt.Sprintf("; the store refused %s's create of %s at %s: %v", t.who, t.pod, millis(t.at), t.err)
			}
		}
	}
	if fenced == 0 {
		story += "; no controller reconciled web after its last scale"
	}
	return &suite.Failure{Name: "never-converged", Clause: course.AgreementFirst, At: w.end, Story: story,
		Details: w.leaseHistory()}
}

// liveLeaseTaken: in the clock world nothing pauses or is cut: the first
// holder renews in time, and nobody may take its lease.
func liveLeaseTaken(w *world) *suite.Failure {
	var f *suite.Failure
	w.replay(func(a accepted, cur term, _ map[sim.NodeID]int64) bool {
		l := a.ev.Object.Lease
		if a.ev.Object.Key() != leaseKey || cur.holder == "" || sim.NodeID(l.Holder) == cur.holder {
			return true
		}
		story := fmt.Sprintf("at %s %s took %s (token %d) from %s, whose last renewal the store had accepted at %s, %s before by the world's clock, well within the lease's %s: a healthy leader lost its lease. The lease's renewTime, %s, was written by %s's clock; %s's clock read %s when it took it over (%s)",
			millis(a.at), l.Holder, leaseKey, l.Transitions, cur.holder, millis(cur.renewed), millis(a.at-cur.renewed), millis(leaseDuration),
			millis(cur.lease.RenewTime), cur.holder, l.Holder, millis(l.AcquireTime), w.clockStory())
		if a.at-cur.renewed >= leaseDuration {
			// The taker waited long enough: the holder is the one at fault.
			story = fmt.Sprintf("at %s %s took %s (token %d) from %s, whose last renewal the store had accepted at %s, %s before by the world's clock, longer than the lease's %s: %s, which nothing paused or cut off, stopped renewing a lease it held, and lost it",
				millis(a.at), l.Holder, leaseKey, l.Transitions, cur.holder, millis(cur.renewed), millis(a.at-cur.renewed), millis(leaseDuration), cur.holder)
		}
		f = &suite.Failure{Name: "live-lease-taken", Clause: safety, At: a.at, Story: story,
			Details: w.leaseHistory()}
		return false
	})
	return f
}

// clockStory says what was wrong with the clocks.
func (w *world) clockStory() string {
	var parts []string
	for _, id := range []sim.NodeID{ctrlA, ctrlB} {
		if s := w.clocks[id]; s != "" {
			parts = append(parts, strings.TrimSuffix(s, "; "))
		}
	}
	if len(parts) == 0 {
		return "every clock true"
	}
	return strings.Join(parts, "; ")
}

// twoLeaders: no two controllers' elector answered "leading" for the same
// span of time. A "yes" holds from the answer until the next one.
func twoLeaders(w *world) *suite.Failure {
	spans := func(id sim.NodeID) [][2]time.Duration {
		var out [][2]time.Duration
		s := w.samples[id]
		for i, x := range s {
			if !x.leading {
				continue
			}
			end := w.end
			if i+1 < len(s) {
				end = s[i+1].at
			}
			out = append(out, [2]time.Duration{x.at, end})
		}
		return out
	}
	for _, a := range spans(ctrlA) {
		for _, b := range spans(ctrlB) {
			from, to := max(a[0], b[0]), min(a[1], b[1])
			if from < to {
				return &suite.Failure{Name: "two-leaders-at-once", Clause: safety, At: from,
					Story: fmt.Sprintf("from %s to %s both controllers' electors answered that they lead (controller-a from %s, controller-b from %s), with no pause and no cut, only clocks that disagree (%s)",
						millis(from), millis(to), millis(a[0]), millis(b[0]), w.clockStory()),
					Details: w.leaseHistory()}
			}
		}
	}
	return nil
}

// deadlineSlack is how much later than the store's acceptance of a renewal
// an elector may count it from: the answer's way back.
const deadlineSlack = 50 * ms

// leadingWithoutLease: a leader cut off from the server must stop acting
// once its renew deadline has passed on its clock, before another can take
// the lease. The cut world's clocks run true, so its own clock's
// RenewDeadline after the last renewal the store accepted from it (which
// left no later than the store took it) is the same span of the world's:
// every answer of "leading" after that, the few milliseconds of the
// answer's way back aside, is a leader without a lease. The controller asks
// every half second, so a deadline even 1s too long is seen.
func leadingWithoutLease(w *world) *suite.Failure {
	c := w.cut
	if c == nil || c.crash || c.who == "" {
		return nil
	}
	for _, s := range w.samples[c.who] {
		if !s.leading || s.at < c.at || s.at >= c.at+c.span {
			continue
		}
		var renewed time.Duration
		w.replay(func(a accepted, cur term, _ map[sim.NodeID]int64) bool {
			if a.at > s.at {
				return false
			}
			if a.ev.Object.Key() == leaseKey && a.ev.Object.Lease.Holder == string(c.who) {
				renewed = a.at
			}
			return true
		})
		if s.at-renewed <= renewDeadline+deadlineSlack {
			continue
		}
		return &suite.Failure{Name: "leader-without-a-lease", Clause: course.AgreementFirst, At: s.at,
			Story: fmt.Sprintf("at %s %s's elector still answered that it leads (fence %s), though it had been cut off from %s since %s and the store last accepted its renewal at %s, %s before: past its %s renew deadline, counted on its own clock (which runs true here) from that renewal, it cannot know it still holds the lease, and %s after its last renewal another may take it",
				millis(s.at), c.who, fenceText(s.fence), server, millis(c.at), millis(renewed), millis(s.at-renewed), millis(renewDeadline), millis(leaseDuration))}
	}
	return nil
}

// tookOver: once the leader is cut off or crashed, the other controller
// must take over and create web's missing pods within a lease, a retry and
// a little more.
func tookOver(w *world) *suite.Failure {
	c := w.cut
	if c == nil || c.who == "" {
		return nil
	}
	by := c.at + leaseDuration + time.Duration(jitter*float64(retryPeriod)) + 2*time.Second
	want, pods, took := 0, 0, time.Duration(0)
	var other sim.NodeID
	for _, a := range w.accepted {
		if a.at > by {
			break
		}
		o := a.ev.Object
		switch {
		case o.Key() == web:
			want = o.Replicas
		case o.Kind == "pods" && o.Owner == web && a.ev.Type == kube.Added:
			pods++
		case o.Key() == leaseKey && a.at > c.at && sim.NodeID(o.Lease.Holder) != c.who && took == 0:
			took, other = a.at, sim.NodeID(o.Lease.Holder)
		}
		if pods >= want && want == cutReplica {
			return nil
		}
	}
	what := "cut off from everyone"
	if c.crash {
		what = "crashed"
	}
	story := fmt.Sprintf("%s, the leader, was %s at %s and web scaled to %d at %s; by %s (the %s lease, %s of retries and 2000ms more) web had %d pods",
		c.who, what, millis(c.at), cutReplica, millis(cutScale), millis(by), millis(leaseDuration), millis(time.Duration(jitter*float64(retryPeriod))), pods)
	if took == 0 {
		story += ": the other controller never took the lease"
	} else {
		story += fmt.Sprintf(": %s took the lease at %s and did not create them", other, millis(took))
	}
	return &suite.Failure{Name: "no-takeover", Clause: course.AgreementFirst, At: by, Story: story, Details: w.leaseHistory()}
}

// takeoverSlack is what a taker's own reads may lag the store by: a request
// leaves a little before the store answers it.
const takeoverSlack = 100 * ms

// earlyTakeover: where every controller's clock runs true, a lease that
// passes to another must have gone unrenewed in the store for a whole
// LeaseDuration (less the few milliseconds a read takes). A taker that
// took it sooner did not wait a lease of its own clock after seeing it
// change, whatever its fence then hides.
func earlyTakeover(w *world) *suite.Failure {
	if len(w.clocks) > 0 {
		return nil
	}
	var f *suite.Failure
	w.replay(func(a accepted, cur term, _ map[sim.NodeID]int64) bool {
		l := a.ev.Object.Lease
		if a.ev.Object.Key() != leaseKey || cur.holder == "" || sim.NodeID(l.Holder) == cur.holder || l.Holder == "" {
			return true
		}
		since := a.at - cur.renewed
		if since >= leaseDuration-takeoverSlack {
			return true
		}
		f = &suite.Failure{Name: "live-lease-taken", Clause: safety, At: a.at,
			Story: fmt.Sprintf("%s took %s (token %d) at %s, %s after the store accepted %s's renewal at %s, with every clock true: a lease must be seen unchanged for %s of the taker's own clock before it is taken, and %s may still have believed it led",
				l.Holder, leaseKey, l.Transitions, millis(a.at), millis(since), cur.holder, millis(cur.renewed), millis(leaseDuration), cur.holder),
			Details: "what the scene did:\n" + w.describe() + "\n" + w.leaseHistory()}
		return false
	})
	return f
}
