package ex11suite

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The cluster's numbers, stated once.
const (
	link          = 5 * time.Millisecond   // the slowest ordinary message
	spike         = 400 * time.Millisecond // the story's latency spike
	requestWait   = time.Second            // how long a client waits for any answer
	electionBound = 2 * time.Second        // after the last fault, a leader and a write within this
	calmSettle    = 1500 * time.Millisecond
	// auditPatience is how long the auditor keeps asking a server that is
	// up and does not answer: a server in the middle of an election may not
	// serve for a while, and a correct cluster elects a leader well within
	// it (electionBound, with room to spare).
	auditPatience = 5 * time.Second
	// The workload's pauses, beyond scene.WorkloadWrite's and
	// WorkloadDashboards' own: a few hundred requests a world.
	writePause = 60 * time.Millisecond
	readPause  = 60 * time.Millisecond
)

// world is one scene of the chapter, the monitor that watched it and what
// the suite noted while it ran.
type world struct {
	*scene.Scene
	mon *check.Consensus
	// values gives the replica counts the world's writers write, each new
	// (scene.WorkloadValues).
	values func() int
	// ballots follows the votes granted and received.
	ballots *ballots
	// said is every server that told its state (p.SetStatus) at least once;
	// roles every change of term or role each server said, with when.
	said  map[sim.NodeID]bool
	roles map[sim.NodeID][]roleChange
	// lastFault is when the last fault of a randomized world ended: from
	// then on the cluster is whole (healed).
	lastFault time.Duration
	// terms is every change of the highest term any server said, with when
	// (calm, isolated).
	terms []termChange
	// isolatedNode is the follower the isolated scene cut off, and leader
	// the leader when it was cut off.
	isolatedNode, leader sim.NodeID
	leaderTerm           int64
	// deposedAt is when the deposed scene cut its leader off and slowed
	// its clock (deposedClock); zero in every other world.
	deposedAt time.Duration
	// crashedAt is where the crash-points scene crashed its server.
	crashedAt string
	// commits is what watchCommits saw: the first commit index a leader
	// moved onto an entry of an earlier term, and the first a follower
	// moved onto an entry the leader does not hold; each "" until seen.
	earlyCommit, blindCommit string
	// missed is what a scripted scene waited for and what the servers
	// said when it healed without it; "" if it reached its point.
	missed string
}

// watchCommits notes, after every step, the first leader that moves its
// commit index onto an entry of an earlier term than its own, and the first
// follower that moves its commit index onto an entry the leader of the
// highest term does not hold at that index: the causes the scripted scenes
// of the log-safety check are built to show.
func (w *world) watchCommits() {
	commits := map[sim.NodeID]int64{}
	w.onStatus(func(id sim.NodeID, st check.ServerState, ok bool) {
		if !ok || st.Commit <= commits[id] || st.Commit > int64(len(st.Log)) {
			commits[id] = st.Commit
			return
		}
		commits[id] = st.Commit
		e := st.Log[st.Commit-1]
		at := suite.FormatTime(w.W.Now())
		if st.Role == check.Leader && e.Term < st.Term && w.earlyCommit == "" {
			w.earlyCommit = fmt.Sprintf("The cause: at %s %s, leading term %d, moved its commit index to entry %d, %s of term %d: it committed an entry of an earlier term by counting the servers that hold it, and a server whose log ends in a later term can still win their votes and overwrite it (the Raft paper's Figure 8); a leader commits by counting only entries of its own term.",
				at, id, st.Term, st.Commit, e.What, e.Term)
		}
		if st.Role != check.Leader && w.blindCommit == "" {
			leader, term := w.leaderNow()
			if leader == "" || term < st.Term {
				return
			}
			lv, _ := w.W.Status(leader)
			ls, _ := state(lv)
			if int64(len(ls.Log)) < st.Commit || ls.Log[st.Commit-1] != e {
				w.blindCommit = fmt.Sprintf("The cause: at %s %s, a follower of %s in term %d, moved its commit index to entry %d, its own %s of term %d, which %s does not hold there: a follower may take the leader's commit index only as far as the entries it knows match the leader's (those of the Append that carried it).",
					at, id, leader, term, st.Commit, e.What, e.Term, leader)
			}
		}
	})
}

// onStatus calls said after every step of the world for each server, in
// turn, whose status (p.SetStatus) changed since the step before, with
// the state it says (ok false: none the chapter reads).
func (w *world) onStatus(said func(id sim.NodeID, st check.ServerState, ok bool)) {
	versions := map[sim.NodeID]uint64{}
	w.W.OnStep(func() {
		for _, id := range w.Servers {
			v, version := w.W.Status(id)
			if version == versions[id] {
				continue
			}
			versions[id] = version
			st, ok := state(v)
			said(id, st, ok)
		}
	})
}

// roleChange is a server saying it is in term, as role, from at.
type roleChange struct {
	term int64
	role check.Role
	at   time.Duration
}

type termChange struct {
	term   int64
	server sim.NodeID
	at     time.Duration
}

// newWorld builds n servers over links of 1ms to link and hooks the
// monitor and the term tracker into the world.
func newWorld(seed int64, boot scene.Boot, n int) *world {
	s := scene.New(seed, boot, scene.Servers(n), scene.Latency(time.Millisecond, link), scene.RequestTimeout(requestWait))
	w := &world{Scene: s, values: scene.WorkloadValues(), said: map[sim.NodeID]bool{}, roles: map[sim.NodeID][]roleChange{}}
	s.AuditPatience = auditPatience
	s.ShowMessages(w.showMessage)
	w.mon = check.WatchConsensus(s.W, s.Servers)
	w.ballots = w.watchBallots()
	var highest int64
	w.onStatus(func(id sim.NodeID, st check.ServerState, ok bool) {
		w.said[id] = w.said[id] || ok
		if rs := w.roles[id]; ok && (len(rs) == 0 || rs[len(rs)-1].term != st.Term || rs[len(rs)-1].role != st.Role) {
			w.roles[id] = append(rs, roleChange{st.Term, st.Role, s.W.Now()})
		}
		if ok && st.Term > highest {
			highest = st.Term
			w.terms = append(w.terms, termChange{st.Term, id, s.W.Now()})
		}
	})
	return w
}

// state reads a server's status.
func state(v any) (check.ServerState, bool) {
	switch st := v.(type) {
	case check.ServerState:
		return st, true
	case *check.ServerState:
		if st != nil {
			return *st, true
		}
	}
	return check.ServerState{}, false
}

// leaderNow is the up server that says it leads the highest term, or "".
func (w *world) leaderNow() (sim.NodeID, int64) {
	var leader sim.NodeID
	var term int64
	for _, id := range w.Servers {
		v, _ := w.W.Status(id)
		if st, ok := state(v); ok && w.W.Up(id) && st.Role == check.Leader && st.Term >= term {
			leader, term = id, st.Term
		}
	}
	return leader, term
}

// writer adds a controller that, until end, writes (scene.WorkloadWrite)
// through a server picked at random each time, first creating the objects
// that last, retrying through any server until each exists.
func (w *world) writer(name string, end time.Duration) {
	w.Client(name, func(p *sim.Proc, api *kube.Client) {
		pick := func() *kube.Client { return api.Pin(w.Servers[p.Rand().Intn(len(w.Servers))]) }
		for _, key := range scene.WorkloadLasting {
			_, objName := kube.SplitKey(key)
			for p.Now() < end {
				_, err := pick().Create(kube.Object{Kind: "deployments", Name: objName, Replicas: w.values()})
				if err == nil || errors.Is(err, kube.ErrAlreadyExists) {
					break
				}
				p.Sleep(50 * time.Millisecond)
			}
		}
		for p.Now() < end {
			scene.WorkloadWrite(p, pick, w.values)
			p.Sleep(writePause)
		}
	})
}

// play adds a dashboard until end, the auditor at audit, and runs.
func (w *world) play(end, audit time.Duration) *world {
	w.WorkloadDashboards(1, 0, func(p *sim.Proc) bool {
		p.Sleep(readPause)
		return p.Now() < end
	})
	w.AuditAt(audit, "deployments", scene.WorkloadKeys...)
	w.Run(audit + 10*time.Second)
	return w
}

// story is the book's scene.
func story(seed int64, boot scene.Boot) *world {
	w := newWorld(seed, boot, 3)
	w.Client("controller", func(p *sim.Proc, api *kube.Client) {
		created := false
		for p.Now() < 7*time.Second {
			for _, id := range w.Servers {
				var err error
				if !created {
					_, err = api.Pin(id).Create(kube.Object{Kind: "deployments", Name: "web", Replicas: w.values()})
					created = err == nil || errors.Is(err, kube.ErrAlreadyExists)
				} else {
					_, err = api.Pin(id).Update(kube.Object{Kind: "deployments", Name: "web", Replicas: w.values()})
				}
				if err == nil {
					break
				}
			}
			p.Sleep(100 * time.Millisecond)
		}
	})
	w.Inject(scene.Crash{Node: "server-1", At: 2 * time.Second, For: 3 * time.Second},
		scene.SlowLink{A: "server-2", B: "server-3", Link: sim.Link{Min: spike, Max: spike}, From: 2 * time.Second, For: 600 * time.Millisecond})
	w.lastFault = 5 * time.Second
	w.AuditAt(8*time.Second, "deployments", "deployments/web")
	w.Run(20 * time.Second)
	return w
}

// churnEnd is when the churn's faults stop; the workload goes on to
// churnEnd + electionBound, the audit after.
const churnEnd = 3 * time.Second

// churn is a randomized world: every 0.3–1.5s a crash (of the leader half
// the time) with its restart 0.5–3s later, a majority/minority partition
// (the leader in the minority half the time) or a one-way cut, each lasting
// 0.3–2s, and now and then a slow link.
func churn(seed int64, boot scene.Boot) *world {
	w := newWorld(seed, boot, 3)
	end := churnEnd + electionBound
	w.writer("controller", end)
	r := w.W.Rand()
	pick := func() sim.NodeID { return w.Servers[r.Intn(len(w.Servers))] }
	var partedUntil time.Duration
	for t := 300*time.Millisecond + time.Duration(r.Int63n(int64(time.Second))); t < churnEnd; t += 300*time.Millisecond + time.Duration(r.Int63n(int64(1200*time.Millisecond))) {
		d := 300*time.Millisecond + time.Duration(r.Int63n(int64(1700*time.Millisecond)))
		leaderFirst := r.Intn(2) == 0
		switch k := r.Float64(); {
		case k < 0.4:
			down := 500*time.Millisecond + time.Duration(r.Int63n(int64(2500*time.Millisecond)))
			down = min(down, churnEnd-t)
			other := pick()
			w.W.At(t, func() {
				id := other
				if l, _ := w.leaderNow(); leaderFirst && l != "" {
					id = l
				}
				if !w.W.Up(id) {
					return
				}
				w.W.Crash(id)
				w.W.After(down, func() {
					if !w.W.Up(id) {
						w.W.Restart(id)
					}
				})
			})
			w.lastFault = max(w.lastFault, t+down)
		case k < 0.8 && t >= partedUntil:
			d = min(d, churnEnd-t)
			partedUntil = t + d
			other := pick()
			w.W.At(t, func() {
				alone := other
				if l, _ := w.leaderNow(); leaderFirst && l != "" {
					alone = l
				}
				w.W.Partition([]sim.NodeID{alone})
			})
			w.W.At(t+d, func() { w.W.Heal() })
			w.lastFault = max(w.lastFault, t+d)
		case k < 0.9:
			a := pick()
			b := w.Servers[(indexOf(w.Servers, a)+1+r.Intn(len(w.Servers)-1))%len(w.Servers)]
			d = min(d, churnEnd-t)
			w.Inject(scene.CutOneWay{Sender: a, Receiver: b, From: t, For: d})
			w.lastFault = max(w.lastFault, t+d)
		default:
			a := pick()
			b := w.Servers[(indexOf(w.Servers, a)+1+r.Intn(len(w.Servers)-1))%len(w.Servers)]
			d = min(d, churnEnd-t)
			w.Inject(scene.SlowLink{A: a, B: b, Link: sim.Link{Min: spike / 2, Max: spike}, From: t, For: d})
			w.lastFault = max(w.lastFault, t+d)
		}
	}
	return w.play(end, end+100*time.Millisecond)
}

// churnFaults are the faults the churn's guard counts: all of them.
func churnFaults(s *scene.Scene) []check.Fault { return s.Faults }

func indexOf(ids []sim.NodeID, id sim.NodeID) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return 0
}

// figure8 is five servers whose leader is crashed, again and again, within
// 13ms of taking a write, half the times it takes one, while a downed server
// is brought back every 50–300ms so that a majority is up most of the time
// (the Raft paper's Figure 8; MIT 6.5840's TestFigure83C). Entries of many
// terms end up on some servers and not others, and leaders of later terms
// must sort them out.
func figure8(seed int64, boot scene.Boot) *world {
	w := newWorld(seed, boot, 5)
	const end = 6 * time.Second
	const calmFrom = end - 2*time.Second
	w.writer("controller", end)
	w.writer("controller-2", end)
	r := w.W.Rand()
	lengths := map[sim.NodeID]int{}
	w.onStatus(func(id sim.NodeID, st check.ServerState, ok bool) {
		if w.W.Now() >= calmFrom {
			return
		}
		if !ok {
			lengths[id] = 0
			return
		}
		grew := len(st.Log) > lengths[id]
		lengths[id] = len(st.Log)
		if grew && st.Role == check.Leader && r.Intn(2) == 0 {
			w.W.After(time.Duration(r.Int63n(int64(13*time.Millisecond))), func() {
				if w.W.Up(id) && w.W.Now() < calmFrom {
					w.W.Crash(id)
				}
			})
		}
	})
	var revive func()
	revive = func() {
		var down []sim.NodeID
		for _, id := range w.Servers {
			if !w.W.Up(id) {
				down = append(down, id)
			}
		}
		if w.W.Now() >= calmFrom {
			for _, id := range down {
				w.W.Restart(id)
			}
			return
		}
		if len(down) > 0 {
			w.W.Restart(down[r.Intn(len(down))])
		}
		w.W.After(50*time.Millisecond+time.Duration(r.Int63n(int64(250*time.Millisecond))), revive)
	}
	w.W.At(500*time.Millisecond, revive)
	w.lastFault = calmFrom
	return w.play(end, end+100*time.Millisecond)
}

// up counts the servers up.
func (w *world) up() int {
	n := 0
	for _, id := range w.Servers {
		if w.W.Up(id) {
			n++
		}
	}
	return n
}

// crashPointWorlds is how many crash points the persistence check plays:
// each server at each of its first pointsPerServer disk writes.
const (
	pointsPerServer  = 10
	crashPointWorlds = 3 * pointsPerServer
)

// crashPoints is three servers under writes; seed s picks a server and a
// disk write of it (an append or a sync of any file): the server crashes
// right after that write's step, and restarts 300ms later. The world then
// goes on with the server's disk as the crash left it.
func crashPoints(seed int64, boot scene.Boot) *world {
	w := newWorld(seed, boot, 3)
	i := int((seed - 1) % crashPointWorlds)
	target, k := w.Servers[i%3], i/3+1
	const end = 4 * time.Second
	w.writer("controller", end)
	disk := w.W.Disk(target)
	seen, last := 0, [2]int{}
	var files []*sim.File
	var names []string
	w.W.OnStep(func() {
		if seen >= k || !w.W.Up(target) {
			return
		}
		if len(files) < 2 { // the log and the votes: until both exist, look again
			names = disk.Files()
			files = files[:0]
			for _, name := range names {
				files = append(files, disk.Open(name))
			}
		}
		var sig [2]int // every file's size and synced bytes, summed
		for _, f := range files {
			sig[0] += f.Size()
			sig[1] += f.Synced()
		}
		if sig == last {
			return
		}
		last = sig
		seen++
		if seen == k {
			var what []string
			for i, f := range files {
				what = append(what, fmt.Sprintf("%s: %dB, %dB synced", names[i], f.Size(), f.Synced()))
			}
			w.crashedAt = fmt.Sprintf("%s crashed right after its disk write %d (%s) at %s", target, k, strings.Join(what, "; "), suite.FormatTime(w.W.Now()))
			w.W.Crash(target)
			w.W.After(300*time.Millisecond, func() { w.W.Restart(target) })
			w.lastFault = w.W.Now() + 300*time.Millisecond
		}
	})
	return w.play(end, end+500*time.Millisecond)
}

// calm is three servers and no fault at all.
func calm(seed int64, boot scene.Boot) *world {
	w := newWorld(seed, boot, 3)
	const end = 6 * time.Second
	w.writer("controller", end)
	return w.play(end, end+500*time.Millisecond)
}

// isolated cuts a follower off alone for 5s at 2s, then heals.
func isolated(seed int64, boot scene.Boot) *world {
	w := newWorld(seed, boot, 3)
	const end = 9 * time.Second
	w.writer("controller", end)
	w.W.At(2*time.Second, func() {
		w.leader, w.leaderTerm = w.leaderNow()
		for _, id := range w.Servers {
			if id != w.leader {
				w.isolatedNode = id
				w.W.Partition([]sim.NodeID{id})
				return
			}
		}
	})
	w.W.At(7*time.Second, func() { w.W.Heal() })
	w.lastFault = 7 * time.Second
	return w.play(end, end+500*time.Millisecond)
}

// deposed cuts the leader off at 1s with a dashboard of its own, which
// keeps reading (Latest) through it, while the controller writes through
// the other two: a leader replaced on the other side must not answer a
// Latest read from what it applied before the cut. The leader's clock runs
// at deposedClock while it is cut off. The cut heals at 3s.
func deposed(seed int64, boot scene.Boot) *world {
	w := newWorld(seed, boot, 3)
	const end = 4 * time.Second
	w.Client("controller", func(p *sim.Proc, api *kube.Client) {
		for p.Now() < end {
			id := w.Servers[p.Rand().Intn(len(w.Servers))]
			if id == w.leader {
				continue // the other side: the controller cannot reach it
			}
			if _, err := api.Pin(id).Update(kube.Object{Kind: "deployments", Name: "web", Replicas: w.values()}); errors.Is(err, kube.ErrNotFound) {
				api.Pin(id).Create(kube.Object{Kind: "deployments", Name: "web", Replicas: w.values()})
			}
			p.Sleep(20 * time.Millisecond)
		}
	})
	w.Client("dashboard", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(time.Second)
		for p.Now() < end {
			if w.leader != "" {
				api.Pin(w.leader).Get("deployments/web", kube.ReadOptions{ResourceVersion: kube.Latest})
			}
			p.Sleep(20 * time.Millisecond)
		}
	})
	w.W.At(time.Second, func() {
		w.leader, w.leaderTerm = w.leaderNow()
		if w.leader != "" {
			w.W.Partition([]sim.NodeID{w.leader, "dashboard"})
			w.W.SetClockRate(w.leader, deposedClock)
			w.deposedAt = w.W.Now()
		}
	})
	w.W.At(3*time.Second, func() {
		w.W.Heal()
		if w.leader != "" {
			w.W.SetClockRate(w.leader, 1)
		}
	})
	w.lastFault = 3 * time.Second
	w.AuditAt(end+100*time.Millisecond, "deployments", "deployments/web")
	w.Run(end + 10*time.Second)
	return w
}

// resumed judges the story's liveness: without server-1, the two healthy
// servers take writes again once the spike is over, and with it back too.
func resumed(w *world) *suite.Failure {
	ops := w.History.Operations()
	for _, span := range [][2]time.Duration{{2600 * time.Millisecond, 5 * time.Second}, {5 * time.Second, 7 * time.Second}} {
		ok := false
		for _, op := range ops {
			if op.Acknowledged() && op.Input.Kind.Mutates() && op.Return > span[0] && op.Return <= span[1] {
				ok = true
				break
			}
		}
		if !ok {
			if split := w.splitElections(span[0], span[1]); split != "" {
				return &suite.Failure{Name: "elections-always-split", Clause: course.DurableAgreement, At: span[1],
					Story: fmt.Sprintf("from %s to %s no write was acknowledged, though two of three servers were up and connected: %s",
						suite.FormatTime(span[0]), suite.FormatTime(span[1]), split),
					Details: leadersDetails(w)}
			}
			return &suite.Failure{Name: "no-leader-elected", Clause: course.DurableAgreement, At: span[1],
				Story: fmt.Sprintf("from %s to %s no write was acknowledged: two of three servers were up and connected, a majority, and still no leader took writes",
					suite.FormatTime(span[0]), suite.FormatTime(span[1])),
				Details: leadersDetails(w)}
		}
	}
	return nil
}

// healed judges a randomized world's liveness: within electionBound of the
// last fault's end, one leader, and a write acknowledged.
func healed(w *world) *suite.Failure {
	from, by := w.lastFault, w.lastFault+electionBound
	for _, op := range w.History.Operations() {
		if op.Acknowledged() && op.Input.Kind.Mutates() && op.Call >= from && op.Return <= by {
			return nil
		}
	}
	if split := w.splitElections(from, by); split != "" {
		return &suite.Failure{Name: "elections-always-split", Clause: course.DurableAgreement, At: by,
			Story: fmt.Sprintf("every server was up and connected from %s on, yet by %s no write had been acknowledged: %s",
				suite.FormatTime(from), suite.FormatTime(by), split),
			Details: leadersDetails(w)}
	}
	return &suite.Failure{Name: "no-leader-after-heal", Clause: course.DurableAgreement, At: by,
		Story: fmt.Sprintf("every server was up and connected from %s on, yet by %s no write had been acknowledged: the cluster did not settle on a leader that takes writes",
			suite.FormatTime(from), suite.FormatTime(by)),
		Details: leadersDetails(w)}
}

// calmTerms judges the calm scene: once a leader has led for calmSettle,
// no server's term changes again.
func calmTerms(w *world) *suite.Failure {
	if len(w.Declared()) > 0 || w.lastFault > 0 {
		return nil // only the calm world is calm
	}
	if len(w.terms) == 0 {
		if split := w.splitElections(0, w.W.Now()); split != "" {
			return &suite.Failure{Name: "elections-always-split", Clause: course.DurableAgreement, At: w.W.Now(),
				Story: "in a cluster with no fault at all, no server ever moved to a term: " + split, Details: leadersDetails(w)}
		}
		return &suite.Failure{Name: "no-leader-elected", Clause: course.DurableAgreement, At: w.W.Now(),
			Story: "in a cluster with no fault at all, no server ever said it was in any term"}
	}
	first := w.terms[0]
	for _, c := range w.terms[1:] {
		if c.at > first.at+calmSettle {
			return &suite.Failure{Name: "term-changed-while-calm", Clause: course.DurableAgreement, At: c.at,
				Story: fmt.Sprintf("with no fault at all, %s moved to term %d at %s, after the cluster had settled: an election in a healthy cluster stops every write while it lasts",
					c.server, c.term, suite.FormatTime(c.at)),
				Details: leadersDetails(w)}
		}
		first = c
	}
	return nil
}

// undisrupted judges the isolated scene: the leader before the cut leads
// the same term after the heal.
func undisrupted(w *world) *suite.Failure {
	if w.leader == "" {
		return &suite.Failure{Name: "no-leader-elected", Clause: course.DurableAgreement, At: 2 * time.Second,
			Story: "at 2s, in a cluster with no fault yet, no server said it was leader"}
	}
	for _, c := range w.terms {
		if c.term > w.leaderTerm {
			return &suite.Failure{Name: "leader-deposed-by-rejoin", Clause: course.DurableAgreement, At: c.at,
				Story: fmt.Sprintf("%s, cut off alone from 2s to 7s, pushed the cluster to term %d at %s (said by %s), deposing %s, a healthy leader of term %d: a server that cannot win should not be able to force an election",
					w.isolatedNode, c.term, suite.FormatTime(c.at), c.server, w.leader, w.leaderTerm)}
		}
	}
	return nil
}

// showMessage keeps, in a timeline (beside every note, crash, restart and
// fault: scene.ShowMessages), the messages between servers, except the
// background: an Append that carries no entries (a heartbeat), the answers
// to Appends, and a message to a server that is down, with the refusal
// that answers it: while a server is down the others keep calling it, and
// the clients' notes already say what the refusals led to.
func (w *world) showMessage(e sim.Event) bool {
	if !w.IsServer(e.Node) || !w.IsServer(e.Peer) {
		return false
	}
	if errors.Is(e.Err, sim.ErrNodeDown) || e.Kind == sim.EvSend && w.downAt(e.Peer, e.At) {
		return false
	}
	v := reflect.ValueOf(e.Msg)
	if v.Kind() != reflect.Struct {
		return true
	}
	switch v.Type().Name() {
	case "AppendReply":
		return false
	case "Append":
		f := v.FieldByName("Entries")
		return !f.IsValid() || f.Kind() != reflect.Slice || f.Len() > 0
	}
	return true
}

// downAt reports whether server id was down (crashed, not yet restarted)
// at virtual time at.
func (w *world) downAt(id sim.NodeID, at time.Duration) bool {
	for _, f := range w.W.Faults() {
		if f.Kind == sim.FaultCrash && slices.Contains(f.Nodes, id) && f.Start <= at && (f.Open || at < f.End) {
			return true
		}
	}
	return false
}

// told adds the world's faults, and where a crash point crashed, to the
// details of every failure judges find.
func told(judges ...scene.Judge[*world]) []scene.Judge[*world] {
	out := make([]scene.Judge[*world], len(judges))
	for i, judge := range judges {
		out[i] = func(w *world) *suite.Failure {
			f := judge(w)
			if f == nil {
				return nil
			}
			g := *f
			var lines []string
			for _, fault := range w.Faults {
				lines = append(lines, fmt.Sprintf("  %s from %s to %s", fault.Desc, suite.FormatTime(fault.Start), suite.FormatTime(fault.Last())))
			}
			if w.crashedAt != "" {
				lines = append(lines, "  "+w.crashedAt)
			}
			if len(lines) > 0 {
				if g.Details != "" && !strings.HasSuffix(g.Details, "\n") {
					g.Details += "\n"
				}
				g.Details += fmt.Sprintf("%d servers; faults:\n%s\n", len(w.Servers), strings.Join(lines, "\n"))
			}
			return &g
		}
	}
	return out
}

// readers is the node of the scripted scenes' readers.
const readers sim.NodeID = "readers"

// readers adds a client whose behindReads workers each send one Latest
// read, 1ms apart from 1s on, to the server to names then (none if "").
func (w *world) readers(to func() sim.NodeID) {
	w.Client(string(readers), func(p *sim.Proc, api *kube.Client) {
		for i := range behindReads {
			p.Go(fmt.Sprintf("read-%d", i+1), func(q *sim.Proc) {
				q.Sleep(time.Second + time.Duration(i+1)*time.Millisecond - q.Now())
				if id := to(); id != "" {
					api.For(q).Pin(id).Get(scene.WorkloadKeys[0], kube.ReadOptions{ResourceVersion: kube.Latest})
				}
			})
		}
	})
}

// The behind scene's numbers: behindReads reads reach the leader 1ms apart,
// and the last follower that hears it is cut off once it holds behindCut of
// them, more than a batch of a learner's Appends (the solution's 64).
const (
	behindReads = 80
	behindCut   = 70
	behindHeal  = 3500 * time.Millisecond
)

// behind is five servers. At 1s the leader stops hearing every follower
// but one (one-way cuts), and behindReads readers each send it one
// Latest read, 1ms apart: the entries reach the followers but the leader,
// hearing one of four, commits none. Once the follower it hears holds
// behindCut of them, the leader and the readers are cut off from the
// four; they elect a leader of a later term, which commits what it holds,
// and which is crashed 200ms later (back 500ms after) so that another
// leader, whose log ends in a term the old leader never heard of, takes
// over. At behindHeal the cut heals: the old leader holds entries of its
// old term beyond the new leader's, after more than a batch of entries that
// match, and the new leader's commit index is past them. A follower may
// take the leader's commit only as far as the entries it knows match the
// leader's.
func behind(seed int64, boot scene.Boot) *world {
	w := newWorld(seed, boot, 5)
	w.watchCommits()
	const end = 5 * time.Second
	w.writer("controller", time.Second)
	w.readers(func() sim.NodeID { return w.leader })
	var heard sim.NodeID
	base := -1
	w.W.At(time.Second, func() {
		w.leader, w.leaderTerm = w.leaderNow()
		if w.leader == "" {
			return
		}
		v, _ := w.W.Status(w.leader)
		st, _ := state(v)
		base = len(st.Log)
		for _, id := range w.Servers {
			if id == w.leader {
				continue
			}
			if heard == "" {
				heard = id
				continue
			}
			w.Inject(scene.CutOneWay{Sender: id, Receiver: w.leader, From: time.Second, For: 2 * time.Second})
		}
	})
	cut := false
	w.W.OnStep(func() {
		if cut || base < 0 || heard == "" {
			return
		}
		v, _ := w.W.Status(heard)
		if st, ok := state(v); ok && len(st.Log) >= base+behindCut {
			cut = true
			w.W.Partition([]sim.NodeID{w.leader, readers})
			w.W.At(behindHeal, func() { w.W.Heal() })
		}
	})
	// The first leader elected on the other side is crashed 200ms after it
	// leads, and back 500ms later: the next leader's log ends with an entry
	// of a term the old leader never heard of.
	deposed := false
	w.W.OnStep(func() {
		if !cut || deposed {
			return
		}
		if l, term := w.leaderNow(); l != "" && l != w.leader && term > w.leaderTerm {
			deposed = true
			w.W.After(200*time.Millisecond, func() {
				w.W.Crash(l)
				w.W.After(500*time.Millisecond, func() { w.W.Restart(l) })
			})
		}
	})
	w.lastFault = behindHeal
	w.AuditAt(end, "deployments", scene.WorkloadLasting...)
	w.Run(end + 10*time.Second)
	return w
}

// figure8Scripted is the Raft paper's Figure 8, scripted, on five servers.
// At 1s the leader A and one follower B are cut off with behindReads
// readers, which each send A one Latest read: A and B hold the entries,
// of A's term, and A commits none. On the other side the first server to
// stand in a later term (C) is cut off from each of the other two (D, E)
// right after the trace shows it sent them a message in that term (its
// request for their vote, whatever the learner named it; a pre-vote moves
// no term): it can win with their answers, and its no-op, of a later term,
// reaches nobody. If another server of that side leads first, it is C. 20ms
// after C leads it crashes and the cut between the sides heals. A or B wins
// the next term with D's and E's votes, and sends D and E A's old entries,
// a batch at a time; once the first batch is on both, the new leader's
// messages to them are cut, and 50ms later A and B crash and C restarts.
// C's log ends in a later term than D's and E's: C can win with their
// votes, and then overwrite the old entries on them. A leader that counted
// D and E to commit an entry of an earlier term has committed an entry a
// later leader lacks.
//
// Whatever the servers do, the scene heals at scriptedBy: the cut between
// the sides, and C's crash, end then. A scene that had not reached its
// point by then (a leader of a later term after C led: A or B, or D or E
// when A's and B's logs were no longer than theirs) notes what it waited
// for and what each server said (w.missed, judged by scriptMissed).
func figure8Scripted(seed int64, boot scene.Boot) *world {
	w := newWorld(seed, boot, 5)
	w.watchCommits()
	const end = 6 * time.Second
	w.writer("controller", end)
	var a, b, c sim.NodeID
	var others []sim.NodeID // C, D and E, until C is known; then D and E
	w.readers(func() sim.NodeID { return a })
	base := -1
	w.W.At(time.Second, func() {
		a, w.leaderTerm = w.leaderNow()
		if a == "" {
			return
		}
		v, _ := w.W.Status(a)
		st, _ := state(v)
		base = len(st.Log)
		for _, id := range w.Servers {
			switch {
			case id == a:
			case b == "":
				b = id
			default:
				others = append(others, id)
			}
		}
		w.W.Partition([]sim.NodeID{a, b, readers})
	})
	logLen := func(id sim.NodeID) (int, check.ServerState) {
		v, _ := w.W.Status(id)
		st, _ := state(v)
		return len(st.Log), st
	}
	const (
		standing = iota + 1 // waiting for C to stand
		asking              // waiting for C's messages of its term to D and E
		winning             // waiting for C to lead
		electing            // waiting for A or B to lead
		sending             // waiting for the first batch on D and E
		done
	)
	phase := standing
	var leader sim.NodeID
	var cTerm int64
	var stoodAt, ledAt, crashedAt time.Duration
	cutOff, batchCut := map[sim.NodeID]bool{}, map[sim.NodeID]bool{}
	cutC := func(o sim.NodeID) {
		if !cutOff[o] {
			cutOff[o] = true
			w.Inject(scene.CutOneWay{Sender: c, Receiver: o, From: w.W.Now(), For: time.Second})
		}
	}
	var buf []sim.Event
	read := 0
	// asked is, once C has crashed, the last message with a Term each of
	// A and B sent to D and E, or received from them as an answer.
	asked := map[askKey]sim.Event{}
	w.W.OnStep(func() {
		buf = w.W.Trace().AppendSince(buf[:0], read)
		read += len(buf)
		if base < 0 || a == "" {
			return
		}
		now := w.W.Now()
		if phase <= winning {
			// The first server of this side to stand in a later term than
			// any before it is C.
			for _, id := range others {
				if _, st := logLen(id); st.Role == check.Candidate && st.Term > max(w.leaderTerm, cTerm) && w.W.Up(id) {
					c, cTerm, stoodAt = id, st.Term, now
					clear(cutOff)
					phase = asking
					break
				}
			}
		}
		if phase == asking {
			for _, e := range buf {
				if e.Kind == sim.EvSend && e.Node == c && e.Peer != c && slices.Contains(others, e.Peer) {
					cutC(e.Peer)
				}
			}
			if len(cutOff) == 2 {
				phase = winning
			}
		}
		if phase == asking || phase == winning {
			for _, id := range others {
				if _, st := logLen(id); st.Role == check.Leader && st.Term > w.leaderTerm && w.W.Up(id) {
					c = id // whoever of this side leads first plays C
				}
			}
			if _, st := logLen(c); c != "" && st.Role == check.Leader && st.Term > w.leaderTerm {
				others = slices.DeleteFunc(others, func(id sim.NodeID) bool { return id == c })
				clear(cutOff)
				for _, o := range others {
					cutC(o)
				}
				phase, ledAt = electing, now
				w.W.After(20*time.Millisecond, func() {
					w.W.Crash(c)
					w.W.Heal()
					crashedAt = w.W.Now()
				})
			}
			return
		}
		switch phase {
		case electing:
			if w.W.Up(c) {
				return
			}
			for _, e := range buf {
				if (e.Node == a || e.Node == b) && slices.Contains(others, e.Peer) && e.Err == nil && hasTerm(e.Msg) &&
					(e.Kind == sim.EvSend || e.Kind == sim.EvRecvReply) {
					asked[askKey{e.Node, e.Peer, e.Kind == sim.EvRecvReply}] = e
				}
			}
			for _, id := range []sim.NodeID{a, b} {
				if _, st := logLen(id); st.Role == check.Leader && st.Term > w.leaderTerm {
					leader = id
					phase = sending
				}
			}
			if phase == electing && slices.ContainsFunc(others, func(id sim.NodeID) bool {
				_, st := logLen(id)
				return st.Role == check.Leader && st.Term > cTerm
			}) {
				// D or E leads: A's and B's logs were no longer than theirs
				// (a server that serves Latest reads without entries), and
				// there is no earlier term's entry to carry; the scene
				// stops here, and C comes back.
				phase = done
				w.W.Restart(c)
			}
		case sending:
			for _, o := range others {
				if n, _ := logLen(o); !batchCut[o] && n >= base+64 {
					batchCut[o] = true
					w.Inject(scene.CutOneWay{Sender: leader, Receiver: o, From: now, For: time.Second})
				}
			}
			if len(batchCut) == len(others) {
				phase = done
				w.W.After(50*time.Millisecond, func() {
					w.W.Crash(a)
					w.W.Crash(b)
					w.W.Restart(c)
					w.W.After(1500*time.Millisecond, func() {
						w.W.Restart(a)
						w.W.Restart(b)
					})
				})
			}
		}
	})
	w.W.At(scriptedBy, func() {
		if a == "" || phase >= sending {
			return
		}
		var waited string
		switch phase {
		case standing:
			waited = fmt.Sprintf("one of %s, a majority of five and connected, to stand for election in a term after %d (%s and %s cut off with the old leader's term from 1s)",
				joinIDs(others), w.leaderTerm, a, b)
		case asking, winning:
			waited = fmt.Sprintf("%s, which stood in term %d at %s, or another of %s, to lead a term after %d",
				c, cTerm, suite.FormatTime(stoodAt), joinIDs(others), w.leaderTerm)
		case electing:
			waited = fmt.Sprintf("%s or %s, whose logs are the longest and end in the latest term, to lead a term after %d once %s (leader of term %d from %s) had crashed at %s and the cut had healed",
				a, b, cTerm, c, cTerm, suite.FormatTime(ledAt), suite.FormatTime(crashedAt))
			var last []string
			for _, x := range []sim.NodeID{a, b} {
				for _, o := range others {
					for _, reply := range []bool{false, true} {
						e, ok := asked[askKey{x, o, reply}]
						if !ok {
							continue
						}
						verb := "sent " + string(o)
						if reply {
							verb = "got from " + string(o)
						}
						last = append(last, fmt.Sprintf("%s last %s %s at %s", x, verb, e.Message(), suite.FormatTime(e.At)))
					}
				}
			}
			if len(last) > 0 {
				waited += " (" + strings.Join(last, "; ") + ")"
			}
		}
		w.missed = fmt.Sprintf("from 1s to %s the scene waited for %s; it saw: %s", suite.FormatTime(scriptedBy), waited, w.sayAll(scriptedBy))
		w.W.Heal()
		if c != "" && !w.W.Up(c) {
			w.W.Restart(c)
		}
	})
	w.lastFault = scriptedBy
	return w.play(end, end+100*time.Millisecond)
}

// askKey is a message from one server to another, or an answer.
type askKey struct {
	from, to sim.NodeID
	reply    bool
}

// hasTerm reports whether msg is a struct with an integer field Term.
func hasTerm(msg any) bool {
	v := reflect.ValueOf(msg)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	return v.Kind() == reflect.Struct && shapeOf(v.Type()).hasTerm
}

// scriptedBy is when the scripted scenes heal whatever the servers did.
const scriptedBy = 4 * time.Second

// joinIDs is joinAnd of server names.
func joinIDs(ids []sim.NodeID) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = string(id)
	}
	return joinAnd(names)
}

// sayAll is what each server last said of itself by at: "server-1
// follower of term 2 (from 1503.5ms), server-2 down, ...".
func (w *world) sayAll(at time.Duration) string {
	var out []string
	for _, id := range w.Servers {
		if w.downAt(id, at) {
			out = append(out, string(id)+" down")
			continue
		}
		rs := w.roles[id]
		i := len(rs) - 1
		for i >= 0 && rs[i].at > at {
			i--
		}
		if i < 0 {
			out = append(out, string(id)+" had said nothing")
			continue
		}
		out = append(out, fmt.Sprintf("%s %s of term %d (from %s)", id, rs[i].role, rs[i].term, suite.FormatTime(rs[i].at)))
	}
	return strings.Join(out, ", ")
}

// scriptMissed judges a scripted scene that did not reach its point by the
// time it healed: the servers did not elect the leader the scene needs,
// though a majority was connected.
func scriptMissed(w *world) *suite.Failure {
	if w.missed == "" {
		return nil
	}
	return &suite.Failure{Name: "no-leader-elected", Clause: course.DurableAgreement, At: scriptedBy,
		Story:   w.missed + ": a majority of connected servers elects a leader within a few election timeouts (2s here), with or without pre-vote and check-quorum",
		Details: leadersDetails(w)}
}

// splitWithin is how close together two candidacies of one term must be
// for the suite to tell them as servers that timed out together.
const splitWithin = 10 * time.Millisecond

// splitElections reads, off what the servers said from from to to, a cluster
// that elected no leader because its candidates kept standing together: at
// least three terms in which two or more servers stood within splitWithin
// of each other and none led. It returns the story's sentence, or "".
func (w *world) splitElections(from, to time.Duration) string {
	type round struct {
		first, last time.Duration
		who         []sim.NodeID
		led         bool
	}
	rounds := map[int64]*round{}
	for _, id := range w.Servers {
		for _, r := range w.roles[id] {
			if r.at < from || r.at > to || r.role == check.Follower {
				continue
			}
			x := rounds[r.term]
			if x == nil {
				x = &round{first: r.at, last: r.at}
				rounds[r.term] = x
			}
			if r.role == check.Leader {
				x.led = true
				continue
			}
			x.first, x.last = min(x.first, r.at), max(x.last, r.at)
			if !slices.Contains(x.who, id) {
				x.who = append(x.who, id)
			}
		}
	}
	var terms []int64
	var who []sim.NodeID
	var spread time.Duration
	for term, x := range rounds {
		if x.led || len(x.who) < 2 || x.last-x.first > splitWithin {
			continue
		}
		terms = append(terms, term)
		spread = max(spread, x.last-x.first)
		for _, id := range x.who {
			if !slices.Contains(who, id) {
				who = append(who, id)
			}
		}
	}
	if len(terms) < 3 {
		return w.splitAsks(from, to)
	}
	slices.Sort(terms)
	slices.Sort(who)
	names := make([]string, len(who))
	for i, id := range who {
		names[i] = string(id)
	}
	return fmt.Sprintf("%s stood for election %d times, in terms %d to %d, each time within %s of each other, and no election made a leader: every one split the votes. "+
		"Their election timeouts are not randomized (or not enough): servers that last heard the leader at about the same moment time out at about the same moment, round after round; "+
		"draw each election timeout afresh from a range (p.Rand()), wide against the time a vote takes, so that one server usually stands alone and wins",
		joinAnd(names), len(terms), terms[0], terms[len(terms)-1], suite.FormatTime(max(spread, 100*time.Microsecond)))
}

// splitAsks is splitElections read off the trace rather than off what the
// servers said: a server that asks for pre-votes first moves no term and
// may say nothing while it asks. A candidacy is a request with a Term (no
// Append, no answer) sent by one server to two others or more at one
// instant; a round is two candidacies or more, of different servers, within
// splitWithin of each other. Three rounds from from to to, and no leader
// then, are elections that always split.
func (w *world) splitAsks(from, to time.Duration) string {
	type ask struct {
		at     time.Duration
		server sim.NodeID
		term   int64
	}
	if w.Scene == nil || w.W == nil {
		return ""
	}
	var asks []ask
	peers := map[ask]map[sim.NodeID]bool{}
	for e := range w.W.Trace().All() {
		if e.At < from || e.At > to || e.Kind != sim.EvSend || !w.IsServer(e.Node) || !w.IsServer(e.Peer) || e.Node == e.Peer {
			continue
		}
		if !hasTerm(e.Msg) || w.ballots.kind(e.Msg) != isOther {
			continue
		}
		k := ask{e.At, e.Node, termOf(e.Msg)}
		if peers[k] == nil {
			peers[k] = map[sim.NodeID]bool{}
			asks = append(asks, k)
		}
		peers[k][e.Peer] = true
	}
	for _, id := range w.Servers {
		for _, r := range w.roles[id] {
			if r.role == check.Leader && r.at >= from && r.at <= to {
				return ""
			}
		}
	}
	var rounds int
	var who []sim.NodeID
	var lo, hi int64
	var spread time.Duration
	for i := 0; i < len(asks); {
		if len(peers[asks[i]]) < 2 {
			i++
			continue
		}
		first := asks[i]
		servers := []sim.NodeID{first.server}
		last := first.at
		j := i + 1
		for ; j < len(asks) && asks[j].at-first.at <= splitWithin; j++ {
			if len(peers[asks[j]]) >= 2 && !slices.Contains(servers, asks[j].server) {
				servers = append(servers, asks[j].server)
				last = asks[j].at
			}
		}
		if len(servers) >= 2 {
			rounds++
			spread = max(spread, last-first.at)
			if lo == 0 || first.term < lo {
				lo = first.term
			}
			hi = max(hi, first.term)
			for _, id := range servers {
				if !slices.Contains(who, id) {
					who = append(who, id)
				}
			}
		}
		i = j
	}
	if rounds < 3 {
		return ""
	}
	slices.Sort(who)
	terms := fmt.Sprintf("asking about terms %d to %d", lo, hi)
	if lo == hi {
		terms = fmt.Sprintf("each time asking about term %d", lo)
	}
	return fmt.Sprintf("%s asked the others for their votes (or pre-votes) together %d times, %s, each time within %s of each other, and no election made a leader: every one split. "+
		"Their election timeouts are not randomized (or not enough): servers that last heard the leader at about the same moment time out at about the same moment, round after round; "+
		"draw each election timeout afresh from a range (p.Rand()), wide against the time a vote takes, so that one server usually stands alone and wins",
		joinIDs(who), rounds, terms, suite.FormatTime(max(spread, 100*time.Microsecond)))
}

// leadersDetails is the leaders of each term, for a failure's details, or
// that there were none.
func leadersDetails(w *world) string {
	ls := w.mon.Leaders()
	if len(ls) == 0 {
		return "no server led any term\n"
	}
	return "the leaders of each term:\n  " + strings.Join(ls, "\n  ") + "\n"
}

// leaderless judges a world whose faults were all over (healed) at some
// moment, and which then ran for electionBound without any server leading
// any term: the cluster did not elect a leader, and what it lost or did
// not answer follows from that, so that is what is told.
func leaderless(w *world) *suite.Failure {
	var healAt time.Duration
	for _, f := range w.W.Faults() {
		if f.Open {
			return nil
		}
		healAt = max(healAt, f.Last())
	}
	by := healAt + electionBound
	if w.W.Now() < by {
		return nil
	}
	for _, id := range w.Servers {
		rs := w.roles[id]
		for i, r := range rs {
			if r.role != check.Leader || r.at > by {
				continue
			}
			if r.at >= healAt || i+1 == len(rs) || rs[i+1].at >= healAt {
				return nil // led after the heal, or still led then
			}
		}
	}
	details := leadersDetails(w)
	healed := "from the start"
	if healAt > 0 {
		healed = "from " + suite.FormatTime(healAt) + ", when the last fault ended,"
	}
	if split := w.splitElections(healAt, by); split != "" {
		return &suite.Failure{Name: "elections-always-split", Clause: course.DurableAgreement, At: by,
			Story: fmt.Sprintf("every server was up and connected %s and by %s no server had led any term since: %s", healed, suite.FormatTime(by), split), Details: details}
	}
	return &suite.Failure{Name: "no-leader-after-heal", Clause: course.DurableAgreement, At: by,
		Story: fmt.Sprintf("every server was up and connected %s and by %s no server had led any term since (%s): a majority of connected servers elects a leader within a few election timeouts, with or without pre-vote",
			healed, suite.FormatTime(by), w.sayAll(by)), Details: details}
}

// joinAnd is "a", "a and b", "a, b and c".
func joinAnd(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// deposedClock is the rate of the deposed leader's clock while it is cut
// off: slow, so that whatever it times on its own clock (a lease, a
// check-quorum) runs long while the other side elects a leader and
// commits.
const deposedClock = 0.1
