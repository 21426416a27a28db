package ex08suite

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The slow-disk scene. Three servers whose disks take slowSync to sync,
// several times as long as a message takes between any two nodes
// (catchUpLink); slowDiskWriters writers each scale a Deployment through a
// server picked at random and read it back, slowDiskWrites times. A copy
// counts toward a majority once its disk has synced it: a follower that
// acknowledges an entry before its sync lets the leader count a copy a
// crash could still take back, and here every such yes reaches its client
// while the follower's sync is still running. In the chaos worlds a sync
// is quick, and only now and then does a yes outrun one. The last
// follower's disk is slower still (slowestSync), longer than a write takes
// to commit on the others: the next write's Append, and a heartbeat
// carrying the same entries, reach it while it syncs, and a follower that
// picks out the fresh entries before it takes its turn to append writes
// them twice.
const (
	slowDiskServers = 3
	slowSync        = 30 * time.Millisecond
	slowestSync     = 90 * time.Millisecond
	slowDiskWriters = 2
	slowDiskWrites  = 6
	slowDiskFrom    = 200 * time.Millisecond
	slowDiskAudit   = 2 * time.Second
)

// slowDisk builds and runs the slow-disk scene of seed.
func slowDisk(seed int64, boot scene.Boot) *world {
	w := newWorld(scene.New(seed, boot, scene.Servers(slowDiskServers), scene.Latency(catchUpLink.Min, catchUpLink.Max),
		scene.RequestTimeout(requestTimeout), scene.WorldOptions(sim.DiskSyncLatency(slowSync))), chaosKeys...)
	w.W.SetDiskSyncLatency(w.Servers[len(w.Servers)-1], slowestSync)
	w.kubectl()
	for i := range slowDiskWriters {
		w.worker(fmt.Sprintf("writer-%d", i+1), func(p *sim.Proc, c client) {
			p.Sleep(slowDiskFrom + jitter(p.Rand(), 20*time.Millisecond) - p.Now())
			for range slowDiskWrites {
				server := w.Servers[p.Rand().Intn(len(w.Servers))]
				key := w.keys[p.Rand().Intn(len(w.keys))]
				c.update(server, key, 0)
				c.read(server, key, kube.Latest)
			}
		})
	}
	return w.play(slowDiskAudit)
}

// unsyncedCopies is what the disks held at a yes that came before a
// majority of them held its change synced, when copies written and not yet
// synced, each of which the leader may have counted, made up the rest of
// that majority: the moment of the yes, the entry's position, and each
// such copy.
type unsyncedCopies struct {
	at     time.Duration
	index  int64
	copies []unsyncedCopy
}

// unsyncedCopy is one server's copy of an entry, written to its log and
// not yet synced: end is the length the log's synced part must reach to
// hold it for sure. A follower's copy comes with its last message to the
// leader, sent once the entry had reached its log (said, at saidAt).
type unsyncedCopy struct {
	server sim.NodeID
	end    int
	saidAt time.Duration
	said   string
}

// copiesBeforeSync looks, at the moment of a yes that holders alone do not
// back, for copies of the change at index written and not yet synced that
// the leader may have counted: its own, or a follower's that sent the
// leader a message once the entry had reached its log. It returns them if,
// with holders, they make a majority: the yes counted copies a crash could
// still take back. Otherwise nil: the leader counted what no disk held.
func (w *world) copiesBeforeSync(at time.Duration, holders []string, index int64, key string, deleted bool, replicas int) *unsyncedCopies {
	u, leader := &unsyncedCopies{at: at, index: index}, w.Servers[0]
	for _, id := range w.Servers {
		if slices.Contains(holders, string(id)) {
			continue
		}
		e, end := w.disks.Written(id, index)
		if !e.Is(key, deleted, replicas) {
			continue
		}
		c := unsyncedCopy{server: id, end: end}
		if id != leader {
			saidAt, said, ok := w.lastWord(id, leader, at)
			if !ok || saidAt < w.writtenAt(id, end) {
				continue // it said nothing to the leader since it took the entry
			}
			c.saidAt, c.said = saidAt, said
		}
		u.copies = append(u.copies, c)
	}
	if len(u.copies) == 0 || len(holders)+len(u.copies) < w.majority() {
		return nil
	}
	return u
}

// writtenAt is when id's log last grew to size bytes or more, as the trace
// of its disk tells (appends, truncations, what crashes took): since then
// it has held at least that much.
func (w *world) writtenAt(id sim.NodeID, size int) time.Duration {
	var at time.Duration
	n := 0
	for _, e := range w.W.Trace().Events() {
		if e.Node != id || e.Kind != sim.EvDisk || e.Disk.File != LogFile {
			continue
		}
		if n < size && e.Disk.Size >= size {
			at = e.At
		}
		n = e.Disk.Size
	}
	return at
}

// acknowledgedBeforeSync tells the first early yes by its cause, when the
// copies that made its majority were written and not yet synced: which
// server acknowledged which entry before its sync, with its last message
// to the leader before the yes, and when its sync came, if it came; then
// the yes it allowed.
func (w *world) acknowledgedBeforeSync() *suite.Failure {
	u, leader := w.unsynced, w.Servers[0]
	c := u.copies[0]
	synced := w.syncedAt(c, u.at)
	cause := fmt.Sprintf("%s, the leader, counted its own copy of entry %d before its disk had synced it: at the yes its log held the entry written, not synced, and %s",
		leader, u.index, synced)
	if c.server != leader {
		cause = fmt.Sprintf("%s acknowledged entry %d before its disk had synced it (its last message to %s before the yes, at %s, once the entry had reached its log, was %s): "+
			"at the yes its log held the entry written, not synced, and %s", c.server, u.index, leader, suite.FormatTime(c.saidAt), c.said, synced)
	}
	f := *w.early
	f.Name = "acknowledged-before-sync"
	f.Story = fmt.Sprintf("%s. %s. A copy counts toward a majority only once its server's disk has synced it: until then a crash of %s takes it back",
		cause, f.Story, c.server)
	return &f
}

// syncedAt says what became of an unsynced copy after at: "it synced it
// only at 840ms", "it crashed at 820ms before syncing it", or "it had not
// synced it when the world stopped at 3000ms".
func (w *world) syncedAt(c unsyncedCopy, at time.Duration) string {
	for _, e := range w.W.Trace().Events() {
		if e.Node != c.server || e.At < at {
			continue
		}
		switch {
		case e.Kind == sim.EvCrash:
			return fmt.Sprintf("it crashed at %s before syncing it", suite.FormatTime(e.At))
		case e.Kind == sim.EvDisk && e.Disk.Op == sim.DiskSync && e.Disk.File == LogFile && e.Disk.Durable >= c.end:
			return "it synced it only at " + suite.FormatTime(e.At)
		}
	}
	return "it had not synced it when the world stopped at " + suite.FormatTime(w.W.Now())
}

// lastWord is the last message from sent to, as a request or a reply, at or
// before at: when, and what it said.
func (w *world) lastWord(from, to sim.NodeID, at time.Duration) (time.Duration, string, bool) {
	var last *sim.Event
	for _, e := range w.W.Trace().Events() {
		if e.At > at {
			break
		}
		if e.Node == from && e.Peer == to && (e.Kind == sim.EvSend || e.Kind == sim.EvReply) {
			last = &e
		}
	}
	if last == nil {
		return 0, "", false
	}
	return last.At, last.Message(), true
}

// logsApart finds an entry a follower's disk holds, synced, that the
// leader's log does not hold at the same position. A follower's entries come
// from the leader, which sends only what its own disk has synced, so such
// an entry left the leader before its disk held it for sure, and the
// leader lost it since: two servers now hold two different histories. When
// a crash of the leader took unsynced bytes of its log (the world's record
// of what crashes did to disks), the story tells it by that cause,
// "sent-before-synced"; otherwise it names the two entries at one position,
// "two-histories". It reads only the disks and what crashes did to them, so
// it judges a world that stopped on a panic as well as one that ran to its
// end (ran).
func logsApart(w *world) *suite.Failure {
	leader := w.Servers[0]
	theirs := w.disks.Log(leader)
	for _, id := range w.Servers[1:] {
		for _, e := range w.disks.Log(id) {
			if e.Index <= int64(len(theirs)) && sameEntry(theirs[e.Index-1], e) {
				continue
			}
			what := fmt.Sprintf("entry %d, %s%s", e.Index, e.Event, writeOf(w.History, e.Event.Object.Key(), e.Event.Object.Replicas))
			holds := fmt.Sprintf("its log stops at entry %d", len(theirs))
			if e.Index <= int64(len(theirs)) {
				holds = fmt.Sprintf("its log holds %s at position %d", theirs[e.Index-1].Event, e.Index)
			}
			apart := fmt.Sprintf("%s and %s now hold two different histories from position %d, and nothing in the cluster can merge them", id, leader, e.Index)
			for _, loss := range w.W.DiskLosses(leader) {
				if loss.File == LogFile && loss.Kept < loss.Unsynced {
					return &suite.Failure{Name: "sent-before-synced", Clause: course.DurableAgreement, At: loss.At,
						Story: fmt.Sprintf("%s, reached %s's disk, but the leader %s does not hold it: its crash at %s lost %d bytes of its log it had appended and not synced, "+
							"and since then %s. The entry left %s before its own disk held it for sure: %s",
							what, id, leader, suite.FormatTime(loss.At), loss.Unsynced-loss.Kept, holds, leader, apart),
						Details: w.disks.Around(e.Index)}
				}
			}
			return &suite.Failure{Name: "two-histories", Clause: course.DurableAgreement, At: w.W.Now(),
				Story:   fmt.Sprintf("%s's disk holds %s, but the leader %s does not: %s: %s", id, what, leader, holds, apart),
				Details: w.disks.Around(e.Index)}
		}
	}
	return nil
}

// sameEntry reports whether a and b are the same change at the same
// position.
func sameEntry(a, b Entry) bool {
	x, y := a.Event, b.Event
	return a.Index == b.Index && x.Type == y.Type && x.Object.Key() == y.Object.Key() && x.Object.Replicas == y.Object.Replicas
}

// ran is the first judge of every check: a world that could not run to its
// end (scene.Ran). A world that stopped on a panic is first asked whether
// its servers' logs had already parted (logsApart): a check in the
// learner's own code that panics on two entries at one position found a
// breach that happened before it, and the breach is the failure, told by
// its cause; the panic, where and why, is its evidence.
func ran(w *world) *suite.Failure {
	if w.Err == nil {
		return scene.Ran(w.Scene)
	}
	f := logsApart(w)
	var pe *sim.PanicError
	if f == nil && errors.As(w.Err, &pe) {
		if f := w.misplaced(pe); f != nil {
			return f
		}
	}
	if f == nil {
		return scene.Ran(w.Scene)
	}
	if errors.As(w.Err, &pe) {
		f.Story += fmt.Sprintf(". A check in the servers' own code found the breach at %s and panicked, in %s: %v", suite.FormatTime(pe.At), pe.Proc, pe.Value)
		f.Details = strings.TrimRight(f.Details, "\n") + "\n\nthe panic that stopped the world:\n" + pe.Stack
	}
	return f
}

// logGuard is the panic of the exercise's log.go when an entry is appended
// anywhere but right after the log's last one.
var logGuard = regexp.MustCompile(`appending entry (\d+) after entry (\d+)`)

// misplaced tells a panic of log.go's own check (logGuard) as the breach it
// caught: a server was handed an entry that does not come right after its
// log's last one, a gap ("log-gap") or an entry it already holds
// ("appended-twice"), and the message that brought it. It returns nil for
// any other panic.
func (w *world) misplaced(pe *sim.PanicError) *suite.Failure {
	m := logGuard.FindStringSubmatch(fmt.Sprint(pe.Value))
	if m == nil {
		return nil
	}
	entry, lastHeld := m[1], m[2]
	node, _, _ := strings.Cut(pe.Proc, "/")
	brought := ""
	for _, e := range w.W.Trace().Events() {
		if e.At > pe.At {
			break
		}
		if e.Kind == sim.EvRecv && e.Proc == pe.Proc {
			brought = fmt.Sprintf(" The message it was handling came from %s at %s: %s.", e.Peer, suite.FormatTime(e.At), e.Message())
		}
	}
	guard := fmt.Sprintf(" The log's own check (log.go) stopped it at %s, in %s: %v", suite.FormatTime(pe.At), pe.Proc, pe.Value)
	f := &suite.Failure{Name: "log-gap", Clause: course.DurableAgreement, At: pe.At,
		Story: fmt.Sprintf("%s was handed entry %s to write right after entry %s, the last its log held: the entries between never reached it, and a log with a hole in it is not the one history.%s "+
			"A leader sends a follower the entries right after the last one it holds, and a follower writes only entries that continue its log.%s",
			node, entry, lastHeld, brought, guard),
		Details: "the panic that stopped the world:\n" + pe.Stack}
	if a, b := atoi(entry), atoi(lastHeld); a <= b {
		f.Name = "appended-twice"
		f.Story = fmt.Sprintf("%s was about to write entry %s again, after entry %s, the last its log held: an entry it already held was taken as new.%s%s "+
			"A follower skips the entries it holds, and picks out the new ones and writes them in one step, so that another Append bringing the same entries finds them held.%s",
			node, entry, lastHeld, brought, w.carried(sim.NodeID(node), a, pe.At), guard)
	}
	return f
}

// carried tells the Appends that brought entry index to node, since its
// last boot and by at, when more than one did: " 2 Appends carrying entry
// 3 had reached server-3 by then, the first at 205.1ms (...), the last at
// 230.4ms (...), while its disk took 90ms to sync (disk of server-3
// syncing in 90ms from 0ms to 307.7ms)." It is "" when one or none did.
func (w *world) carried(node sim.NodeID, index int64, at time.Duration) string {
	var got []sim.Event
	for _, e := range w.W.Trace().Events() {
		if e.At > at {
			break
		}
		switch {
		case e.Node == node && e.Kind == sim.EvRestart:
			got = nil
		case e.Node == node && e.Kind == sim.EvRecv && carries(e.Msg, index):
			got = append(got, e)
		}
	}
	if len(got) < 2 {
		return ""
	}
	first, last := got[0], got[len(got)-1]
	s := fmt.Sprintf(" %d Appends carrying entry %d had reached %s by then, the first from %s at %s (%s), the last from %s at %s (%s)",
		len(got), index, node, first.Peer, suite.FormatTime(first.At), first.Message(), last.Peer, suite.FormatTime(last.At), last.Message())
	for _, f := range w.W.Faults() {
		if f.Kind == sim.FaultSlowDisk && f.Touches(node) && f.Start <= last.At {
			s += ", while its disk was slow (" + f.String() + ")"
			break
		}
	}
	return s + "."
}

// carries reports whether msg is an Append (of the exercise's types, read
// by their fields' names) whose entries include the one at index.
func carries(msg any, index int64) bool { return slices.Contains(appendIndexes(msg), index) }

// atoi is the number s spells, or 0.
func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
