package ex10suite

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The story's burst, stated once: at 1000ms four controllers each write five
// changes in a row through the leader (a create, then four scales), twenty
// writes in all. A controller that writes five times in a row needs five
// round trips whatever the leader does; the chapter allows one more for the
// whole burst.
const (
	burstAt     = time.Second
	burstWrites = 5
	burstBound  = burstWrites + 1 // round trips
)

var burstNames = []string{"web", "api", "db", "cache"}

// syncSlack is what the bounds allow per write on top of the round trips:
// the leader's sync and a follower's, a sync that was already running, and
// the clients' own links.
const syncSlack = 4 * diskSync

// burst is one run of a burst: clients controllers writing writes changes
// each, from at on.
type burst struct {
	*world
	clients, writes int
	start           time.Duration // when the first write was sent
	last            ack           // the last acknowledgement
	missing         []string      // writes that were not acknowledged, with why
	done            int           // controllers finished
}

// runBurst runs a burst over a cluster of servers servers (one: a log that
// only stores; three: one that agrees).
func runBurst(seed int64, serve scene.Boot, servers int, names []string, writes int, link sim.Link) *burst {
	w := newWorld(seed, serve, servers)
	for i, a := range w.Servers {
		for _, b := range w.Servers[i+1:] {
			w.W.SetLinks(a, b, link)
		}
	}
	b := &burst{world: w, clients: len(names), writes: writes, start: -1}
	for i, name := range names {
		w.Client(fmt.Sprintf("controller-%c", 'a'+i), func(p *sim.Proc, api *kube.Client) {
			c := w.writer(p, api)
			p.Sleep(burstAt + time.Duration(p.Rand().Int63n(int64(2*time.Millisecond))))
			if b.start < 0 || p.Now() < b.start {
				b.start = p.Now()
			}
			b.write(c, func() bool { return c.create(name, 1) }, fmt.Sprintf("create deployments/%s=1", name))
			for r := 2; r <= writes; r++ {
				b.write(c, func() bool { return c.scale(name, r) }, fmt.Sprintf("scale deployments/%s to %d", name, r))
			}
			if b.done++; b.done == len(names) {
				w.W.Stop()
			}
		})
	}
	w.Run(burstAt + time.Duration(len(names)*writes+5)*2*link.Max + 10*time.Second)
	return b
}

// write runs one write of the burst and keeps what became of it.
func (b *burst) write(c writer, do func() bool, what string) {
	if !do() {
		b.missing = append(b.missing, fmt.Sprintf("%s's %s at %s", c.p.Node(), what, suite.FormatTime(c.p.Now())))
		return
	}
	b.last = b.acks[len(b.acks)-1]
}

// elapsed is the burst's length: from the first write sent to the last yes.
func (b *burst) elapsed() time.Duration { return b.last.at - b.start }

// reportMissing fails a burst whose writes were not all acknowledged: with
// no faults, every write must be.
func (b *burst) reportMissing(t testing.TB) bool {
	if len(b.missing) == 0 && b.done == b.clients {
		return true
	}
	story := fmt.Sprintf("only %d of %d writes were acknowledged, with every server up and connected", len(b.acks), b.clients*b.writes)
	if len(b.missing) > 0 {
		story += ": " + b.missing[0] + " was not"
	}
	b.Fail(t, suite.Failure{Name: "write-not-acknowledged", Clause: course.AgreementFirst, At: b.W.Now(), Story: story,
		Details: strings.Join(b.missing, "\n")})
	return false
}

// reportSlow fails a burst that took longer than bound round trips.
func (b *burst) reportSlow(t testing.TB, rt time.Duration, bound int) bool {
	limit := time.Duration(bound)*rt + time.Duration(b.writes)*syncSlack
	if b.elapsed() <= limit {
		return true
	}
	n := b.clients * b.writes
	trips := float64(b.elapsed()) / float64(rt)
	why := "writes waited for one another"
	if trips >= 0.8*float64(n) {
		why = "about one round trip per write: each waited for the one before it to be agreed"
	}
	b.Fail(t, suite.Failure{Name: "one-round-trip-per-write", Clause: course.AgreementFirst, At: b.last.at,
		Story: fmt.Sprintf("%d controllers each wrote %d changes in a row through the leader from %s; the last yes reached %s at %s, "+
			"%s after the first write was sent: %.1f round trips of %s for %d writes, %s. "+
			"A controller writing %d times in a row needs %d round trips; the bound for the whole burst is %d (%s)",
			b.clients, b.writes, suite.FormatTime(b.start), b.last.client, suite.FormatTime(b.last.at),
			suite.FormatTime(b.elapsed()), trips, suite.FormatTime(rt), n, why, b.writes, b.writes, bound, suite.FormatTime(limit))})
	return false
}

// storyCheck: the burst over 400ms links is agreed, and within its bound.
func storyCheck(t *testing.T, serve scene.Boot) {
	for _, seed := range suite.StorySeeds(storySeeds) {
		b := runBurst(seed, serve, 3, burstNames, burstWrites, peerLink)
		ok := b.ReportRun(t) && b.reportEarly(t) && b.reportMissing(t) && b.reportSlow(t, roundTrip, burstBound)
		b.Close()
		if !ok {
			return
		}
		if seed == 1 {
			stored := runBurst(seed, serve, 1, burstNames, burstWrites, peerLink)
			suite.Figure(t, "latency", latencyFigure(stored.acks, b.acks))
			stored.Close()
		}
	}
}

// latencyFigure draws the latency of each write, from send to yes, of a
// cluster of one server (stored: its own disk is a majority of one) beside
// the same burst on three (agreed), in buckets of 100ms.
func latencyFigure(stored, agreed []ack) string {
	const bucket = 100 * time.Millisecond
	count := func(acks []ack) map[int]int {
		m := map[int]int{}
		for _, a := range acks {
			m[int((a.at-a.sent)/bucket)]++
		}
		return m
	}
	s, a := count(stored), count(agreed)
	top := 0
	for k := range s {
		top = max(top, k)
	}
	for k := range a {
		top = max(top, k)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "latency from send to yes, %d writes each   stored: one server   agreed: three servers, %s apart\n",
		len(agreed), describe(peerLink))
	for k := 0; k <= top; k++ {
		if s[k] == 0 && a[k] == 0 && !slices.Contains([]int{0, top}, k) {
			continue
		}
		fmt.Fprintf(&b, "%5d–%-5dms  stored %-22s agreed %s\n", k*100, (k+1)*100,
			strings.Repeat("█", s[k])+pad(s[k]), strings.Repeat("█", a[k])+pad(a[k]))
	}
	return b.String()
}

func pad(n int) string {
	if n == 0 {
		return "·"
	}
	return fmt.Sprintf(" %d", n)
}

func describe(l sim.Link) string {
	return fmt.Sprintf("%s–%s", strings.TrimSuffix(suite.FormatTime(l.Min), "ms"), suite.FormatTime(l.Max))
}
