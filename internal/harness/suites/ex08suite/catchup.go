package ex08suite

import (
	"fmt"
	"math/rand"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The catch-up scene. Three servers; at awayAt one follower goes away (it
// crashes, or a partition cuts it off: the seed decides which follower and
// how) for awayFor, while burstWriters writers send writes through the
// leader and the other follower as fast as they are answered: a burst of
// far more than burstAtLeast writes is committed without it. From the
// moment it is back, a reader parks Latest reads on it, one after another,
// while it catches up; the writers go on until workAfter past its return.
// Every read must reflect every write acknowledged before it began, and
// once the writers stop every server must hold the one history.
//
// The reference solution sends a follower at most 64 entries an Append, so
// a follower this far behind catches up over several heartbeats: a read
// that waits for one batch instead of for the read index, a catch-up that
// sends only the newest entries, or a follower that answers before it has
// caught up, shows here and nowhere else.
const (
	catchUpServers = 3
	awayAt         = 300 * time.Millisecond
	awayFor        = 2500 * time.Millisecond
	burstWriters   = 4
	// burstAtLeast is the fewest writes the burst must commit while the
	// follower is away: more than the reference solution's 64 entries an
	// Append, so catching up takes more than one.
	burstAtLeast = 65
	// readEvery is how often the reader asks the follower again, from the
	// moment it is back until readFor later.
	readEvery = 15 * time.Millisecond
	readFor   = 800 * time.Millisecond
	workAfter = 600 * time.Millisecond
	// catchUpAuditAfter is how long after its return the auditor reads
	// every server: long enough for the follower to catch up and settle.
	catchUpAuditAfter = 2 * time.Second
)

// catchUpLink is every link of the scene: fast, so the burst is large.
var catchUpLink = sim.Link{Min: time.Millisecond, Max: 4 * time.Millisecond}

// catchUp builds and runs the catch-up scene of seed.
func catchUp(seed int64, boot scene.Boot) *world {
	rnd := rand.New(rand.NewSource(seed))
	w := newDiskWorld(seed, boot, catchUpServers, catchUpLink)
	s := w.Scene
	away := s.Servers[1+rnd.Intn(len(s.Servers)-1)]
	through := slices.DeleteFunc(slices.Clone(s.Servers), func(id sim.NodeID) bool { return id == away }) // what the writers use
	if rnd.Intn(2) == 0 {
		s.Inject(scene.Crash{Node: away, At: awayAt, For: awayFor})
	} else {
		s.Inject(scene.Partition{Groups: [][]sim.NodeID{{away}}, From: awayAt, For: awayFor})
	}
	back := awayAt + awayFor
	w.away, w.back = away, back

	w.kubectl()
	w.burstWrites(through, back+workAfter)
	// The reader parks on the follower from the moment it is back: each
	// Latest read waits there while the follower catches up.
	w.worker("reader", func(p *sim.Proc, c client) {
		p.Sleep(back + time.Millisecond - p.Now()) // just after: a read sent at the very moment of a heal may be lost with the partition
		for p.Now() < back+readFor {
			c.read(away, w.keys[p.Rand().Intn(len(w.keys))], kube.Latest)
			p.Sleep(readEvery)
		}
	})
	return w.play(back + catchUpAuditAfter)
}

// burstWrites adds the burst's writers: from just before awayAt until
// until, burstWriters writers send writes through a server of through
// each, as fast as they are answered.
func (w *world) burstWrites(through []sim.NodeID, until time.Duration) {
	for i := range burstWriters {
		w.worker(fmt.Sprintf("writer-%d", i+1), func(p *sim.Proc, c client) {
			p.Sleep(awayAt - 100*time.Millisecond + jitter(p.Rand(), 50*time.Millisecond))
			for p.Now() < until {
				server := through[p.Rand().Intn(len(through))]
				key := w.keys[p.Rand().Intn(len(w.keys))]
				if c.update(server, key, 0) {
					p.Sleep(backoff)
				}
			}
		})
	}
}

// burst checks that the scene did what it is for: more than burstAtLeast
// writes acknowledged while the follower was away. Too few is the
// cluster's failure either way: it left the writers' requests unanswered,
// or it answered them too slowly for any follower to fall behind.
func burst(w *world) *suite.Failure {
	var acked, sent int
	for _, op := range w.History.Operations() {
		if !op.Input.Kind.Mutates() || op.Call < awayAt || op.Call >= w.back {
			continue
		}
		sent++
		if op.Acknowledged() && op.Return < w.back {
			acked++
		}
	}
	if acked >= burstAtLeast {
		return nil
	}
	if v := check.Exercised(w.History, w.Faults, burstAtLeast); v != nil && v.Name == check.Unanswered {
		return scene.Violated(v)
	}
	return &suite.Failure{Name: "burst-too-slow", Clause: course.OneHistory, At: w.back,
		Story: fmt.Sprintf("while %s was away, from %s to %s, the %d writers sent %d writes through the other servers and only %d "+
			"were acknowledged; at least %d are needed to leave %s more than one batch behind. The leader and a majority were up "+
			"and connected: a leader that commits each write once a majority holds it does several times as many",
			w.away, suite.FormatTime(awayAt), suite.FormatTime(w.back), burstWriters, sent, acked, burstAtLeast, w.away)}
}

// parkedReads checks that the follower answered the reads parked on it as
// it caught up: a follower that refuses every read until long after it is
// back would pass the rest of the scene without ever serving one.
func parkedReads(w *world) *suite.Failure {
	var sent, answered int
	var first *check.Operation
	ops := w.History.Operations()
	for i, op := range ops {
		if op.Client != "reader" {
			continue
		}
		sent++
		if op.Completed() {
			answered++
		} else if first == nil {
			first = &ops[i]
		}
	}
	if sent > 0 && 2*answered >= sent {
		return nil
	}
	story := fmt.Sprintf("%s came back at %s and the reader sent it no read", w.away, suite.FormatTime(w.back))
	at := w.back
	if first != nil {
		story = fmt.Sprintf("%s came back at %s and answered only %d of the %d Latest reads parked on it over the next %s "+
			"while the leader and the other follower were up and connected; the first left without an answer: %s. "+
			"A follower that is back catches up and answers, it does not refuse until it is told everything",
			w.away, suite.FormatTime(w.back), answered, sent, suite.FormatTime(readFor), first)
		at = first.Call
		if stall, n := w.quietLog(w.away, first.Call, min(first.Return, w.back+workAfter)); stall > requestTimeout/4 {
			story = fmt.Sprintf("%s came back at %s and answered only %d of the %d Latest reads parked on it over the next %s; "+
				"the first left without an answer: %s. While it waited, %s, far behind and connected to the leader %s while the "+
				"writers went on, wrote to its log only %s, and nothing for %s at a stretch: the leader sent it what it was missing "+
				"that seldom. A follower far behind catches up in rounds, each as large as the leader sends; a leader that sends them "+
				"%s apart, not far more often than a client waits (%s), leaves every read parked on it to time out",
				w.away, suite.FormatTime(w.back), answered, sent, suite.FormatTime(readFor), first, w.away, w.Servers[0], times(n),
				suite.FormatTime(stall), suite.FormatTime(stall), suite.FormatTime(requestTimeout))
		}
	}
	return &suite.Failure{Name: check.Unanswered, Clause: course.OneHistory, At: at, Story: story}
}

// quietLog is the longest time, between from and to, that id's log on disk
// did not grow, and how many times it grew in between.
func (w *world) quietLog(id sim.NodeID, from, to time.Duration) (longest time.Duration, n int) {
	last := from
	for _, e := range w.W.Trace().Events() {
		if e.At > to {
			break
		}
		if e.Node != id || e.Kind != sim.EvDisk || e.Disk.Op != sim.DiskAppend || e.Disk.File != LogFile || e.At < from || e.At == last {
			continue
		}
		longest, last, n = max(longest, e.At-last), e.At, n+1
	}
	return max(longest, to-last), n
}

// leftBehind finds a follower that was left behind for good: a follower
// that missed entries (down, cut off, a message lost) catches up once it is
// back, the leader sending it what it is missing from where it stands. From
// the moment the world was whole again (the last fault's end in a chaos
// world, the follower's return in the catch-up scene) to the audit, for at
// least calmMargin after its log last grew, every server was up and
// connected to the leader over ordinary links; a follower whose log on disk
// is still shorter than the leader's never got the rest. The story names
// the follower, what it and the leader hold, when its log last grew, and
// the first entry that never reached it. A follower still catching up, its
// log growing, is converged's to judge, and one whose log holds more than
// it gives back (a torn frame left in the middle) lostOnRestart's.
func leftBehind(w *world) *suite.Failure {
	whole, why := chaosEnd, "when the last fault had ended"
	switch {
	case w.away != "":
		whole, why = w.back, "when it came back"
	case !w.randomized:
		return nil
	}
	leader := w.Servers[0]
	if _, up := w.Histories[string(leader)]; !up { // the auditor reads the servers that are up
		return nil
	}
	theirs := w.disks.Log(leader)
	for _, id := range w.Servers[1:] {
		if _, up := w.Histories[string(id)]; !up {
			continue
		}
		log := w.disks.Log(id)
		if len(log) >= len(theirs) || w.disks.Unread(id) > 0 {
			continue // caught up, or it took entries its log cannot give back (lostOnRestart)
		}
		grew, ever := w.lastGrowth(id)
		since := max(whole, grew)
		if w.AuditedAt-since < calmMargin {
			continue
		}
		if since > whole {
			why = "when its log last grew"
		}
		last := "its log never grew"
		if ever {
			last = "its log last grew at " + suite.FormatTime(grew)
		}
		missing := theirs[len(log)]
		fate := "never reached it: a follower that missed entries catches up only when the leader sends them again, from where the follower stands"
		later := make([]string, 0, len(theirs)-len(log)-1)
		for _, e := range theirs[len(log)+1:] {
			later = append(later, e.Event.String())
		}
		if n, at := w.received(id, leader, since, missing.Event.String()); n > 0 {
			fate = fmt.Sprintf("reached it %s from %s after that, the last at %s, and it never wrote it: a follower that cannot place what it is sent "+
				"must tell the leader where its log ends, and nothing more, so that the leader sends again from there", times(n), leader, suite.FormatTime(at))
			if prev, first, ok := w.claimedPrev(id, leader, at, missing.Event.String()); ok && prev != first-1 {
				fate = fmt.Sprintf("reached it %s from %s after that, the last at %s, and it never wrote it: the message that carried it, "+
					"entries from %d on, said they follow entry %d (Prev:%d), where %s's log holds entry %d before entry %d. A leader tells a "+
					"follower where the entries it sends go by the index of the entry right before them, as its own log holds it: "+
					"told otherwise, a follower that checks it rightly refuses them, and never catches up",
					times(n), leader, suite.FormatTime(at), first, prev, prev, leader, first-1, first)
			}
		} else if n, at := w.received(id, leader, since, later...); n > 0 {
			fate = fmt.Sprintf("never reached it, while %s sent it later entries %s after that, the last at %s: the leader took %s for holding entry %d already",
				leader, times(n), suite.FormatTime(at), id, missing.Index)
			if saidAt, said, ok := w.lastWord(id, leader, w.AuditedAt); ok {
				fate += fmt.Sprintf(". %s's last word to the leader, at %s, was %s, with %s on its disk: a follower tells the leader only what its log holds, or it is never sent what it lacks",
					id, suite.FormatTime(saidAt), said, entries(len(log)))
			}
		}
		return &suite.Failure{Name: "left-behind", Clause: course.DurableAgreement, At: since,
			Story: fmt.Sprintf("%s was left behind: from %s, %s, to the audit at %s it was up and connected to the leader %s, yet at the audit its log on disk holds %s and %s's %d, "+
				"and %s. Entry %d, %s, which %s's log holds, %s",
				id, suite.FormatTime(since), why, suite.FormatTime(w.AuditedAt), leader, entries(len(log)), leader, len(theirs), last, missing.Index, missing.Event, leader, fate),
			Details: w.disks.Around(missing.Index)}
	}
	return nil
}

// received counts the messages from from that reached id after since and
// carried one of the changes what (as a message prints them), and says when
// the last did.
func (w *world) received(id, from sim.NodeID, since time.Duration, what ...string) (n int, last time.Duration) {
	for _, e := range w.W.Trace().Events() {
		if e.Kind != sim.EvRecv || e.Node != id || e.Peer != from || e.At <= since {
			continue
		}
		msg := e.Message()
		if slices.ContainsFunc(what, func(c string) bool { return strings.Contains(msg, c) }) {
			n, last = n+1, e.At
		}
	}
	return n, last
}

// prevField is how a message prints the index of the entry before the
// ones it carries ("Prev:10", "PrevIndex:10", "PrevLogIndex:10"), and
// firstIndex how it prints the index of the first entry it carries.
var (
	prevField  = regexp.MustCompile(`\bPrev(?:Log)?(?:Index)?:(\d+)`)
	firstIndex = regexp.MustCompile(`\bIndex:(\d+)`)
)

// claimedPrev reads, off the message from from that reached id at at
// carrying the change what, the index of the entry it said its entries
// follow, and the index of the first entry it carried: the learner's
// message types are their own, so it reads them as they print, and
// reports false when the message names no previous index or no entry index.
func (w *world) claimedPrev(id, from sim.NodeID, at time.Duration, what string) (prev, first int64, ok bool) {
	for _, e := range w.W.Trace().Events() {
		if e.Kind != sim.EvRecv || e.Node != id || e.Peer != from || e.At != at {
			continue
		}
		msg := e.Message()
		if !strings.Contains(msg, what) {
			continue
		}
		p, i := prevField.FindStringSubmatch(msg), firstIndex.FindStringSubmatch(msg)
		if p == nil || i == nil {
			return 0, 0, false
		}
		prev, _ = strconv.ParseInt(p[1], 10, 64)
		first, _ = strconv.ParseInt(i[1], 10, 64)
		return prev, first, true
	}
	return 0, 0, false
}

// times counts as a story does: "once", "3 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// lastGrowth is when id last appended to its log, and whether it ever did.
func (w *world) lastGrowth(id sim.NodeID) (time.Duration, bool) {
	var at time.Duration
	ever := false
	for _, e := range w.W.Trace().Events() {
		if e.Node == id && e.Kind == sim.EvDisk && e.Disk.Op == sim.DiskAppend && e.Disk.File == LogFile {
			at, ever = e.At, true
		}
	}
	return at, ever
}

// entries counts entries as a story does: "1 entry", "9 entries".
func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}
