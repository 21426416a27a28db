package ex10suite

import (
	"fmt"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/suites/ex08suite"
)

// The slow-disks scene, played inside the faults check: the story's burst
// (four controllers writing five changes each in a row through the leader)
// while both followers' disks sync in slowSync and a little more, the seed
// says how much, where the leader's syncs in diskSync. A follower's sync
// then outlasts the gap between two of the leader's Appends many times
// over: Appends arrive while an earlier one's sync is still running, and
// a follower that answers with what its log holds rather than what its
// disk has synced acknowledges entries a crash would still take back.
const (
	slowSync       = 250 * time.Millisecond
	slowSyncSpread = 100 * time.Millisecond
	// slowAuditAt is when the auditor reads every server: the burst, each
	// write a round trip and two syncs, is long done.
	slowAuditAt = burstAt + 10*time.Second
)

// slowDisks builds and runs the slow-disks scene of seed.
func slowDisks(seed int64, serve scene.Boot) *world {
	w := newWorld(seed, serve, 3, peerLink)
	sync := slowSync + time.Duration(w.W.Rand().Int63n(int64(slowSyncSpread)))
	for _, f := range w.Servers[1:] {
		w.Inject(scene.SlowDisk{Node: f, Sync: sync})
	}
	var keys []string
	for i, name := range burstNames {
		key := "deployments/" + name
		keys = append(keys, key)
		w.Client(fmt.Sprintf("controller-%c", 'a'+i), func(p *sim.Proc, api *kube.Client) {
			c := w.writer(p, api)
			p.Sleep(burstAt + time.Duration(p.Rand().Int63n(int64(2*time.Millisecond))))
			c.create(key, 1)
			for r := 2; r <= burstWrites; r++ {
				c.scale(key, r, 0)
			}
		})
	}
	w.majorityKept = true // slow disks take nothing away: every write must be answered
	w.AuditAt(slowAuditAt, "deployments", keys...)
	w.Run(slowAuditAt + 10*time.Second)
	return w
}

// ackedBeforeSync is a follower that answered an Append with a Match its
// disk did not yet hold synced: at the moment the answer left it, the
// entry it named was written to its log and not synced, or not written at
// all. A Match is what the leader counts toward a majority, so it may name
// only what the follower's disk holds for sure: an entry a crash can still
// take back counts for nothing. The story tells the first such answer whose
// entry was still unsynced a moment later (else the first of all): which
// follower, which entry, when it said so, and when (if ever) its disk
// synced it; match-past-its-log when its log did not hold that entry at
// all.
func ackedBeforeSync(w *world) *suite.Failure {
	events := w.W.Trace().Events()
	var first, told *earlyMatch
	for _, f := range w.Servers[1:] {
		log, ends := w.disks.WrittenLog(f)
		durable, size := 0, 0 // the synced and written bytes of f's log, as its disk's trace tells them
		for i, e := range events {
			switch {
			case e.Node != f:
			case e.Kind == sim.EvDisk && e.Disk.File == ex08suite.LogFile:
				durable, size = e.Disk.Durable, e.Disk.Size
			case e.Kind == sim.EvReply && e.Peer == leader:
				m, ok := readAppended(e.Msg)
				if !ok || m <= 0 || m <= int64(len(log)) && ends[m-1] <= durable {
					continue
				}
				em := w.earlyMatch(events, i, f, m, log, ends, durable, size)
				if first == nil || em.at < first.at {
					first = em
				}
				if em.later && (told == nil || em.at < told.at) {
					told = em
				}
			}
		}
	}
	if told == nil {
		told = first
	}
	if told == nil {
		return nil
	}
	name, consequence := "acknowledged-before-sync", fmt.Sprintf("until the sync, a crash of %s takes the entry back", told.server)
	if told.past {
		name, consequence = "match-past-its-log", fmt.Sprintf("past a gap a follower takes nothing and answers what it holds, and %s held nothing past entry %d", told.server, told.log)
	}
	return &suite.Failure{Name: name, Clause: course.AgreementFirst, At: told.at,
		Story: fmt.Sprintf("%s answered an Append at %s that it held the log up to %s (Match %d), while its disk held %s synced; %s. "+
			"The leader counts a follower's Match toward a majority, so it may name only what the follower's disk holds for sure: %s, "+
			"and a write the leader called agreed on its word is held by fewer servers than it counted",
			told.server, suite.FormatTime(told.at), told.what, told.match, entriesUpTo(told.held), told.synced, consequence),
		Details: faultList(w)}
}

// earlyMatch is one answer in which a follower named an entry its disk did
// not hold synced.
type earlyMatch struct {
	server sim.NodeID
	at     time.Duration
	match  int64
	what   string // "entry 16 (MODIFIED deployments/api)"
	held   int    // the entries its disk held synced then
	synced string // what became of the entry after
	later  bool   // it was still unsynced a moment after the answer
	past   bool   // its log did not hold the entry at all then, written or synced
	log    int    // the entries its log held then, synced or not
}

// earlyMatch reads the answer at events[i], in which follower f said it
// held entry m durably while its log was size bytes long, durable of them
// synced.
func (w *world) earlyMatch(events []sim.Event, i int, f sim.NodeID, m int64, log []ex08suite.Entry, ends []int, durable, size int) *earlyMatch {
	at := events[i].At
	em := &earlyMatch{server: f, at: at, match: m, what: fmt.Sprintf("entry %d", m), later: true}
	written := 0 // the entries its log held then, synced or not
	for written < len(log) && ends[written] <= size {
		if ends[written] <= durable {
			em.held++
		}
		written++
	}
	if m > int64(written) {
		em.past, em.log = true, written
		em.synced = fmt.Sprintf("its log held %s, written, and not entry %d at all: it named an entry it had not taken", entriesUpTo(written), m)
		return em
	}
	em.what = fmt.Sprintf("entry %d (%s %s)", m, log[m-1].Event.Type, log[m-1].Event.Object.Key())
	em.synced = fmt.Sprintf("it had not synced it when the world stopped at %s", suite.FormatTime(w.W.Now()))
	for _, e := range events[i+1:] {
		switch {
		case e.Node != f:
		case e.Kind == sim.EvCrash:
			em.synced = fmt.Sprintf("it crashed at %s before its disk had synced it", suite.FormatTime(e.At))
			return em
		case e.Kind == sim.EvDisk && e.Disk.Op == sim.DiskSync && e.Disk.File == ex08suite.LogFile && e.Disk.Durable >= ends[m-1]:
			em.synced = fmt.Sprintf("its disk synced it only at %s, %s later", suite.FormatTime(e.At), suite.FormatTime(e.At-at))
			if e.At == at {
				em.synced = fmt.Sprintf("its disk synced it only after the answer had left, at the same instant %s", suite.FormatTime(e.At))
				em.later = false
			}
			return em
		}
	}
	return em
}

// faultList is the scene's faults for a failure's details, or nothing in a
// scene without any.
func faultList(w *world) string {
	if len(w.Declared()) == 0 {
		return ""
	}
	return "faults:\n" + w.Describe()
}
