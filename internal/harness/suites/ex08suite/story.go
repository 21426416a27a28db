package ex08suite

import (
	"fmt"
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

// The story's scenario. After the partition, the cluster grew from three
// servers to five, and the newest machine, server-5, has a clock that runs
// 400ms ahead. deployments/web runs 3 replicas. At 1000ms controller-a
// scales it to 5 through server-5; at 1200ms (give or take the seed's few
// milliseconds) controller-b scales it to 2 through server-1. Both hear
// yes. At 2500ms each reads web back through another server, and at 3000ms
// the suite asks all five servers what they hold.
const (
	storyKey     = "deployments/web"
	storyServers = 5
	storyFirst   = 1000 * time.Millisecond
	storySecond  = 1200 * time.Millisecond
	storyReadAt  = 2500 * time.Millisecond
	storyAuditAt = 3000 * time.Millisecond
)

// storySkew is server-5's clock, 400ms ahead from the start.
var storySkew = scene.Skew{Node: "server-5", By: 400 * time.Millisecond}

// story builds and runs the story's world with seed, which decides only the
// jitter: when exactly controller-b writes, and each message's delay.
func story(seed int64, boot scene.Boot) *world {
	s := scene.New(seed, boot, scene.Servers(storyServers), scene.Latency(storyLinkMin, storyLinkMax),
		scene.RequestTimeout(requestTimeout))
	w := newWorld(s, storyKey)
	s.Inject(storySkew)
	kind, name := kube.SplitKey(storyKey)
	scale := func(who string, server sim.NodeID, at time.Duration, replicas int, readVia sim.NodeID) {
		s.Client(who, func(p *sim.Proc, api *kube.Client) {
			if who == "controller-a" {
				if _, err := api.Pin("server-1").Create(kube.Object{Kind: kind, Name: name, Replicas: 3}); err != nil {
					p.Logf("could not create %s: %v", storyKey, err)
				}
			}
			p.Sleep(at + jitter(p.Rand(), 5*time.Millisecond) - p.Now())
			obj, err := api.Pin(server).Update(kube.Object{Kind: kind, Name: name, Replicas: replicas})
			if err == nil {
				w.acknowledged(p, who, string(server), fmt.Sprintf("its scale of %s to %d", storyKey, replicas), storyKey, false, replicas, obj.ResourceVersion)
			}
			p.Sleep(storyReadAt - p.Now())
			api.Pin(readVia).Get(storyKey, kube.ReadOptions{})
		})
	}
	scale("controller-a", "server-5", storyFirst, 5, "server-3")
	scale("controller-b", "server-1", storySecond, 2, "server-2")
	return w.play(storyAuditAt)
}

// The story's links: every message takes storyLinkMin to storyLinkMax.
const (
	storyLinkMin = 2 * time.Millisecond
	storyLinkMax = 10 * time.Millisecond
)

// heldBackFor is how long the story's leader may hold an entry its own disk
// has synced before it sends it to a follower: a few of the story's
// messages (2–10 ms each), far less than a heartbeat.
const heldBackFor = 25 * time.Millisecond

// heldBack: in the story's cluster, whole from start to end, the leader
// sends each entry to the followers as soon as its own disk holds it. A
// leader that holds an entry back until something else happens (its next
// heartbeat) makes every write wait for it; in a world with faults and
// many clients that shows only as a cluster that answers slowly, so it is
// told here, where nothing else delays the entry, by what the leader did:
// when its disk synced the entry and when it first sent it on.
func heldBack(w *world) *suite.Failure {
	leader := w.Servers[0]
	for index := int64(1); ; index++ {
		e, end := w.disks.Written(leader, index)
		if e == nil {
			return nil
		}
		synced, sent, to := time.Duration(-1), time.Duration(-1), sim.NodeID("")
		for _, ev := range w.W.Trace().Events() {
			switch {
			case synced < 0 && ev.Node == leader && ev.Kind == sim.EvDisk && ev.Disk.File == LogFile && ev.Disk.Durable >= end:
				synced = ev.At
			case ev.Node == leader && ev.Kind == sim.EvSend && carries(ev.Msg, index):
				sent, to = ev.At, ev.Peer
			}
			if sent >= 0 {
				break
			}
		}
		if synced < 0 || sent < 0 || sent-synced <= heldBackFor {
			continue
		}
		return &suite.Failure{Name: "entry-held-back", Clause: course.AgreementFirst, At: sent,
			Story: fmt.Sprintf("%s, the leader, had entry %d (%s) synced on its own disk at %s, but sent it to no follower until %s (to %s), %s later, "+
				"in a cluster whole from start to end whose messages take %s–%s: the write waited all that time for a majority that could have held it at once. "+
				"A leader sends a new entry to the followers as soon as its own disk holds it, not with its next heartbeat",
				leader, index, e.Event.Object, suite.FormatTime(synced), suite.FormatTime(sent), to, suite.FormatTime(sent-synced),
				strings.TrimSuffix(suite.FormatTime(storyLinkMin), "ms"), suite.FormatTime(storyLinkMax))}
	}
}

// committedLateFor is how long after a majority's disks hold an entry,
// synced, the story's leader may take to answer its write: the Ack on its
// way, the answer on its way back through the server asked, and a message's
// worth to spare.
const committedLateFor = 5 * storyLinkMax

// committedLate: in the story's cluster, whole from start to end, a write
// is answered as soon as a majority's disks hold its entry and their
// acknowledgements are back. A leader that commits only when something else
// happens (its next heartbeat's tick) makes every write wait for it; in a
// world with faults that shows only as a slow cluster, so it is told here by
// what the leader did: when a majority held the entry, and when the yes
// came.
func committedLate(w *world) *suite.Failure {
	for _, op := range w.History.Operations() {
		if !op.Acknowledged() || !op.Input.Kind.Mutates() {
			continue
		}
		index := op.Result.Version
		var held []time.Duration
		var who []string
		for _, id := range w.Servers {
			if at, ok := w.durableAt(id, index); ok {
				held = append(held, at)
				who = append(who, fmt.Sprintf("%s at %s", id, suite.FormatTime(at)))
			}
		}
		if len(held) < w.majority() {
			continue // an early yes: early's to tell
		}
		slices.Sort(held)
		agreed := held[w.majority()-1]
		if op.Return-agreed <= committedLateFor {
			continue
		}
		return &suite.Failure{Name: "committed-late", Clause: course.AgreementFirst, At: op.Return,
			Story: fmt.Sprintf("%s's %s through %s was answered only at %s, but a majority of the disks held its entry %d, synced, from %s (%s), %s earlier, "+
				"in a cluster whole from start to end whose messages take %s–%s: the leader %s waited for something other than its majority before it committed the entry and answered. "+
				"A leader commits an entry as soon as it hears that a majority holds it, not at its next heartbeat",
				op.Client, op.Input, op.Server, suite.FormatTime(op.Return), index, suite.FormatTime(agreed), strings.Join(who, ", "), suite.FormatTime(op.Return-agreed),
				strings.TrimSuffix(suite.FormatTime(storyLinkMin), "ms"), suite.FormatTime(storyLinkMax), w.Servers[0])}
	}
	return nil
}

// durableAt is when id's disk first held entry index, synced: the first
// moment its log's durable part reached the end of that entry as the log
// holds it now (the story's servers never crash).
func (w *world) durableAt(id sim.NodeID, index int64) (time.Duration, bool) {
	e, end := w.disks.Written(id, index)
	if e == nil {
		return 0, false
	}
	for _, ev := range w.W.Trace().Events() {
		if ev.Node == id && ev.Kind == sim.EvDisk && ev.Disk.File == LogFile && ev.Disk.Durable >= end {
			return ev.At, true
		}
	}
	return 0, false
}

// unanswered finds the story's first write that got no answer. The story's
// cluster is whole from start to end, every server up and connected, so a
// write it leaves unanswered is its own failure, not a fault's: and a
// cluster that answers nothing would otherwise pass the rest of the story,
// having acknowledged nothing it could lose.
func unanswered(w *world) *suite.Failure {
	for _, op := range w.History.Operations() {
		if !op.Input.Kind.Mutates() || op.Completed() {
			continue
		}
		got := "was still waiting when the world stopped"
		switch op.Result.Outcome {
		case check.Indefinite:
			got = "timed out at " + suite.FormatTime(op.Return)
		case check.Refused:
			got = "was refused at " + suite.FormatTime(op.Return)
		}
		return &suite.Failure{Name: check.Unanswered, Clause: course.OneHistory, At: op.Call,
			Story: fmt.Sprintf("%s's %s through %s, sent at %s, %s with no answer about the store, although all %d servers were up and connected "+
				"the whole time: a cluster that answers no write keeps one history by refusing, not by agreeing",
				op.Client, op.Input, op.Server, suite.FormatTime(op.Call), got, len(w.Servers))}
	}
	return nil
}

// storySkewSays is the story's first sentence: why the older write won.
func storySkewSays() string {
	return fmt.Sprintf("an older write won over a newer one because the clock of %s runs %s ahead: "+
		"whatever it stamps looks %s younger than it is, so copies ordered by their stamps put controller-a's earlier write last",
		storySkew.Node, storySkew.By, storySkew.By)
}

// notes is the story's run as a list: every request a client made and what
// it got, and every note a server wrote (a stamp, a copy that beat another,
// an entry appended or committed), one a line, in time order.
func (w *world) notes() string {
	var b strings.Builder
	for _, e := range w.W.Trace().Events() {
		if e.Kind != sim.EvNote || e.Node == scene.Auditor {
			continue
		}
		fmt.Fprintf(&b, "%9s  %-12s  %s\n", suite.FormatTime(e.At.Round(100*time.Microsecond)), e.Node, e.Text)
	}
	return b.String()
}
