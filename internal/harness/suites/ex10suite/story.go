package ex10suite

import (
	"fmt"
	"slices"
	"strings"
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
// whole burst (slow).
const (
	burstAt     = time.Second
	burstWrites = 5
)

var burstNames = []string{"web", "api", "db", "cache"}

// syncSlack is what the bounds allow per write on top of the round trips:
// the leader's sync and a follower's, a sync that was already running, and
// the clients' own links.
const syncSlack = 4 * diskSync

// burst is what a burst's world keeps: its shape (clients controllers
// writing writes changes each over links link) and what became of it.
type burst struct {
	link            sim.Link
	clients, writes int
	start           time.Duration // when the first write was sent
	done            int           // controllers finished
}

// runBurst runs a burst over a cluster of servers servers (one: a log that
// only stores; three: one that agrees).
func runBurst(seed int64, serve scene.Boot, servers int, names []string, writes int, link sim.Link) *world {
	w := newWorld(seed, serve, servers, link)
	w.burst = burst{link: link, clients: len(names), writes: writes, start: -1}
	for i, name := range names {
		w.Client(fmt.Sprintf("controller-%c", 'a'+i), func(p *sim.Proc, api *kube.Client) {
			c := w.writer(p, api)
			p.Sleep(burstAt + time.Duration(p.Rand().Int63n(int64(2*time.Millisecond))))
			if w.start < 0 || p.Now() < w.start {
				w.start = p.Now()
			}
			c.create("deployments/"+name, 1)
			for r := 2; r <= writes; r++ {
				c.scale("deployments/"+name, r, 0)
			}
			if w.done++; w.done == len(names) {
				w.W.Stop()
			}
		})
	}
	w.Run(burstAt + time.Duration(len(names)*writes+5)*2*link.Max + 10*time.Second)
	return w
}

// missing fails a burst whose writes were not all acknowledged: with no
// faults, every write must be.
func missing(w *world) *suite.Failure {
	if len(w.missing) == 0 && w.done == w.clients {
		return nil
	}
	story := fmt.Sprintf("only %d of %d writes were acknowledged, with every server up and connected", len(w.acks), w.clients*w.writes)
	if len(w.missing) > 0 {
		story += ": " + w.missing[0] + " was not"
	}
	return &suite.Failure{Name: "write-not-acknowledged", Clause: course.AgreementFirst, At: w.W.Now(), Story: story,
		Details: strings.Join(w.missing, "\n")}
}

// slow fails a burst that took longer than one round trip over its links
// per write in a row, plus one, and a few syncs: from the first write sent
// to the last yes heard (missing has found every write acknowledged).
func slow(w *world) *suite.Failure {
	rt, bound := 2*w.link.Max, w.writes+1
	limit := time.Duration(bound)*rt + time.Duration(w.writes)*syncSlack
	last := w.acks[len(w.acks)-1]
	elapsed := last.at - w.start
	if elapsed <= limit {
		return nil
	}
	n := w.clients * w.writes
	trips := float64(elapsed) / float64(rt)
	if f := oneAppendAtATime(w, last, elapsed, trips, bound, limit); f != nil {
		return f
	}
	why := "more than the burst needs: writes waited for one another"
	if trips >= 0.8*float64(n) {
		why = "about one round trip per write: each waited for the one before it to be agreed"
	}
	return &suite.Failure{Name: "one-round-trip-per-write", Clause: course.AgreementFirst, At: last.at, Details: burstLatency(w),
		Story: fmt.Sprintf("%d controllers each wrote %d changes in a row through the leader from %s; the last yes reached %s at %s, "+
			"%s after the first write was sent: %.1f round trips of %s for %d writes, %s. "+
			"A controller writing %d times in a row needs %d round trips; the bound for the whole burst is %d round trips and %s for syncs (%s)",
			w.clients, w.writes, suite.FormatTime(w.start), last.client, suite.FormatTime(last.at),
			suite.FormatTime(elapsed), trips, suite.FormatTime(rt), n, why, w.writes, w.writes, bound, suite.FormatTime(limit-time.Duration(bound)*rt), suite.FormatTime(limit))}
}

// latency is the story's figure: the latency of each write of its first
// world beside the same burst on one server.
func latency(serve scene.Boot) func(w *world) string {
	return func(w *world) string {
		stored := runBurst(w.Seed, serve, 1, burstNames, burstWrites, peerLink)
		defer stored.Close()
		return latencyFigure(stored.acks, w.acks)
	}
}

// latencyFigure draws the latency of each write, from send to yes, of a
// cluster of one server (stored: its own disk is a majority of one) beside
// the same burst on three (agreed), in buckets of 100ms.
func latencyFigure(stored, agreed []ack) string {
	const bucket = 100 * time.Millisecond
	top := 0 // the slowest bucket of either
	count := func(acks []ack) map[int]int {
		m := map[int]int{}
		for _, a := range acks {
			k := int((a.at - a.sent) / bucket)
			m[k]++
			top = max(top, k)
		}
		return m
	}
	s, a := count(stored), count(agreed)
	var b strings.Builder
	fmt.Fprintf(&b, "latency from send to yes, %d writes each   stored: one server   agreed: three servers, %s–%s apart\n",
		len(agreed), strings.TrimSuffix(suite.FormatTime(peerLink.Min), "ms"), suite.FormatTime(peerLink.Max))
	for k := 0; k <= top; k++ {
		if s[k] == 0 && a[k] == 0 && !slices.Contains([]int{0, top}, k) {
			continue
		}
		fmt.Fprintf(&b, "%5d–%-5dms  stored %-22s agreed %s\n", k*100, (k+1)*100,
			strings.Repeat("█", s[k])+pad(s[k]), strings.Repeat("█", a[k])+pad(a[k]))
	}
	return b.String()
}

// burstLatency draws the latency of each acknowledged write of a slow
// burst, from send to yes, in buckets of half a round trip over its links:
// what the burst's slowness is made of, printed under its story.
func burstLatency(w *world) string {
	bucket := w.link.Max
	m, top := map[int]int{}, 0
	for _, a := range w.acks {
		k := int((a.at - a.sent) / bucket)
		m[k]++
		top = max(top, k)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "latency of each write from send to yes, %d writes, servers %s–%s apart (a round trip: %s)\n",
		len(w.acks), strings.TrimSuffix(suite.FormatTime(w.link.Min), "ms"), suite.FormatTime(w.link.Max), suite.FormatTime(2*w.link.Max))
	for k := 0; k <= top; k++ {
		fmt.Fprintf(&b, "%5d–%-5dms  %s\n", k*int(bucket/time.Millisecond), (k+1)*int(bucket/time.Millisecond), strings.Repeat("█", m[k])+pad(m[k]))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func pad(n int) string {
	if n == 0 {
		return "·"
	}
	return fmt.Sprintf(" %d", n)
}

// oneAppendAtATime tells a slow burst whose leader never had two Appends
// on their way to one follower: it batched what piled up, but sent the
// next batch only once the last one's answer was back, so a write that
// arrived while an Append was out waited a round trip for it first.
func oneAppendAtATime(w *world, last ack, elapsed time.Duration, trips float64, bound int, limit time.Duration) *suite.Failure {
	var per []string
	for _, f := range w.Servers[1:] {
		sends, most := w.appendsTo(f)
		if most > 1 || len(sends) == 0 {
			return nil
		}
		biggest := int64(0)
		for _, s := range sends {
			biggest = max(biggest, s.msg.to-s.msg.from+1)
		}
		per = append(per, fmt.Sprintf("%d Appends to %s, up to %d entries in one", len(sends), f, biggest))
	}
	return &suite.Failure{Name: "one-append-in-flight", Clause: course.AgreementFirst, At: last.at, Details: burstLatency(w),
		Story: fmt.Sprintf("the leader never had more than one Append on its way to a follower: it sent %s, each only once the answer to the one before "+
			"had come back. A write that arrived while an Append was out waited for that round trip, then for its own: "+
			"%d controllers each writing %d changes in a row from %s got their last yes at %s, %s later, %.1f round trips of %s, where the bound for the burst is %d round trips and %s for syncs (%s). "+
			"Batching shares a round trip among the writes that piled up; sending without waiting for the last answer lets a new write start its own at once",
			strings.Join(per, " and "), w.clients, w.writes, suite.FormatTime(w.start), suite.FormatTime(last.at), suite.FormatTime(elapsed),
			trips, suite.FormatTime(2*w.link.Max), bound, suite.FormatTime(limit-time.Duration(bound)*2*w.link.Max), suite.FormatTime(limit))}
}
