package ex10suite

import (
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/suites/ex08suite"
)

// The chapter's network, stated once: servers sit 380–400ms apart, the
// source's slow link; clients sit next to the leader.
var (
	peerLink   = sim.Link{Min: 380 * time.Millisecond, Max: 400 * time.Millisecond}
	clientLink = [2]time.Duration{time.Millisecond, 2 * time.Millisecond}
	// roundTrip is one round trip between two servers at the slowest.
	roundTrip = 2 * peerLink.Max
)

// diskSync is how long a sync takes on every server: a disk that is slow
// next to memory and fast next to a round trip.
const diskSync = 10 * time.Millisecond

// requestTimeout is how long a client waits for an answer: longer than the
// leader waits for agreement (3s) before it answers Timeout, and short
// enough that a client whose leader crashed mid-request tries again soon.
const requestTimeout = 3500 * time.Millisecond

// leader is the fixed leader, servers[0]; clients send it everything.
const leader sim.NodeID = "server-1"

// world is one scene of the chapter and what its clients saw.
type world struct {
	*scene.Scene
	disks *ex08suite.Disks // the servers' logs, read off their disks
	acks  []ack            // every acknowledged write, in the order the clients heard yes
	early []earlyAck       // acknowledgements that came before a majority held the write
	// majorityKept: the scene's fault leaves the leader and a majority up
	// and connected, so every write must be answered.
	majorityKept bool
	uncommitted  *suite.Failure // the first read that showed a change a majority did not hold
	refusal      *refusal       // the first definite no the agreed log did not bear out
	missing      []string       // the writes that were not acknowledged, who sent them and when
	burst                       // the story's and throughput's burst
}

// ack is one write a client heard yes to.
type ack struct {
	client string
	what   string        // "scale deployments/web to 5"
	key    string        // the object it wrote
	index  int64         // its position in the log
	sent   time.Duration // when the client sent it
	at     time.Duration // when the client received the yes
}

// earlyAck is an acknowledgement a majority did not back.
type earlyAck struct {
	ack
	holders []string   // the servers whose disks held the entry then
	otherAt sim.NodeID // a server whose disk held a different change at that position, if any
	other   kube.Event // that change
}

// newWorld builds a scene of n servers, link apart (the chapter's peerLink,
// but for a burst over other links), with the chapter's clients.
func newWorld(seed int64, serve scene.Boot, n int, link sim.Link) *world {
	s := scene.New(seed, serve, scene.Servers(n), scene.Latency(clientLink[0], clientLink[1]),
		scene.RequestTimeout(requestTimeout), scene.WorldOptions(sim.DiskSyncLatency(diskSync)))
	for i, a := range s.Servers {
		for _, b := range s.Servers[i+1:] {
			s.W.SetLinks(a, b, link)
		}
	}
	s.ShowMessages(func(e sim.Event) bool {
		// The messages between servers, but not the heartbeats.
		a, isAppend := readAppend(e.Msg)
		return s.IsServer(e.Node) && s.IsServer(e.Peer) && !(isAppend && a.heartbeat())
	})
	return &world{Scene: s, disks: ex08suite.NewDisks(s)}
}

// writer is one client that writes through the leader and checks, the
// instant it hears yes, which servers hold the write on their disks.
type writer struct {
	w   *world
	p   *sim.Proc
	api *kube.Client
}

func (w *world) writer(p *sim.Proc, api *kube.Client) writer {
	return writer{w: w, p: p, api: api.Pin(leader)}
}

// create, scale and remove are the writes of the chapter's workloads; each
// reports whether it was acknowledged.
func (c writer) create(key string, replicas int) bool {
	start := c.p.Now()
	kind, name := kube.SplitKey(key)
	obj, err := c.api.Create(kube.Object{Kind: kind, Name: name, Replicas: replicas})
	c.refused(start, fmt.Sprintf("create %s=%d", key, replicas), key, true, 0, err)
	return c.heard(start, fmt.Sprintf("create %s=%d", key, replicas), obj, err, target{key, false, replicas})
}

// scale scales key, if it is still at rv (0: unconditionally).
func (c writer) scale(key string, replicas int, rv int64) bool {
	start := c.p.Now()
	kind, name := kube.SplitKey(key)
	obj, err := c.api.Update(kube.Object{Kind: kind, Name: name, Replicas: replicas, ResourceVersion: rv})
	c.refused(start, fmt.Sprintf("scale %s to %d", key, replicas)+ifRV(rv), key, false, rv, err)
	return c.heard(start, fmt.Sprintf("scale %s to %d", key, replicas)+ifRV(rv), obj, err, target{key, false, replicas})
}

// remove deletes key, if it is still at rv (0: unconditionally).
func (c writer) remove(key string, rv int64) bool {
	start := c.p.Now()
	obj, err := c.api.Delete(key, rv)
	c.refused(start, "delete "+key+ifRV(rv), key, false, rv, err)
	return c.heard(start, "delete "+key+ifRV(rv), obj, err, target{key: key, deleted: true})
}

// ifRV is a write's precondition, as its story tells it: " if rv=7", or
// nothing.
func ifRV(rv int64) string {
	if rv == 0 {
		return ""
	}
	return fmt.Sprintf(" if rv=%d", rv)
}

// heard records an acknowledgement and asks every server's disk whether it
// holds the entry, or keeps a write that was not acknowledged as missing.
// Clients sit a millisecond or two from the leader, so the disks are read
// about when the leader said yes.
func (c writer) heard(start time.Duration, what string, obj kube.Object, err error, t target) bool {
	deleted := t.deleted
	if err != nil {
		c.w.missing = append(c.w.missing, fmt.Sprintf("%s's %s at %s%s", c.p.Node(), what, suite.FormatTime(c.p.Now()), c.agreedYet(t, err)))
		return false
	}
	a := ack{client: string(c.p.Node()), what: what, key: obj.Key(), index: obj.ResourceVersion, sent: start, at: c.p.Now()}
	c.w.acks = append(c.w.acks, a)
	e := earlyAck{ack: a}
	for _, id := range c.w.Servers {
		switch held := c.w.disks.At(id, a.index); {
		case held.Is(obj.Key(), deleted, obj.Replicas):
			e.holders = append(e.holders, string(id))
		case held != nil && e.otherAt == "":
			e.otherAt, e.other = id, held.Event
		}
	}
	if len(e.holders) < len(c.w.Servers)/2+1 {
		c.w.early = append(c.w.early, e)
	}
	return true
}

// target is the change a write asks for, as a log entry would hold it.
type target struct {
	key      string
	deleted  bool
	replicas int
}

// agreedYet is "", or, when a write that was not acknowledged is in the
// leader's log and a majority held it on disk as its client heard the
// answer, what that says: the write was agreed and the leader did not
// answer yes.
func (c writer) agreedYet(t target, err error) string {
	log := c.w.disks.Log(leader)
	for i := len(log) - 1; i >= 0; i-- { // the latest such change: the write's own
		e := log[i]
		if !e.Is(t.key, t.deleted, t.replicas) {
			continue
		}
		if held := c.w.disks.Holders(e.Index, t.key, t.deleted, t.replicas); len(held) >= len(c.w.Servers)/2+1 {
			return fmt.Sprintf(" (it heard %v, though its entry %d was on the disks of %s, a majority, by then: agreed, and not acknowledged)",
				err, e.Index, strings.Join(held, ", "))
		}
		return ""
	}
	return ""
}

// early is the first acknowledgement that came before a majority held the
// write: the chapter's tempting wrong answer.
func early(w *world) *suite.Failure {
	if len(w.early) == 0 {
		return nil
	}
	e := w.early[0]
	if e.otherAt != "" {
		return &suite.Failure{Name: "divergent-history", Clause: course.DurableAgreement, At: e.at,
			Story: fmt.Sprintf("two servers' logs hold different changes at position %d: %s heard yes for %s there at %s, "+
				"while %s's disk holds %s %s at that position: a follower's log is not a prefix of the leader's",
				e.index, e.client, e.what, suite.FormatTime(e.at), e.otherAt, e.other.Type, e.other.Object),
			Details: fmt.Sprintf("%d of %d acknowledgements came before a majority held the write", len(w.early), len(w.acks))}
	}
	held := "no server's disk held it"
	if len(e.holders) > 0 {
		held = "only " + strings.Join(e.holders, " and ") + " held it on disk"
	}
	return &suite.Failure{Name: "acknowledged-before-agreement", Clause: course.AgreementFirst, At: e.at,
		Story: fmt.Sprintf("%s heard yes for %s (log entry %d) at %s, sent at %s; when the yes arrived %s, "+
			"and a majority of the %d servers is %d: a crash of the leader then would lose a write its client was told is safe",
			e.client, e.what, e.index, suite.FormatTime(e.at), suite.FormatTime(e.sent), held, len(w.Servers), len(w.Servers)/2+1),
		Details: fmt.Sprintf("%d of %d acknowledgements came before a majority held the write", len(w.early), len(w.acks))}
}
