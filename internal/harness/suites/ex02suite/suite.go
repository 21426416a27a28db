// Package ex02suite is the hidden suite of chapter ex02, "The 2:14 a.m.
// page": one apiserver whose store must outlive a crash of its node.
//
// In every world the node "apiserver" boots the learner's store (open),
// serves it with kube.Serve, crashes, and boots it again from what its disk
// kept. Each check plays its worlds (pageWorld, edgeWorld, crashWorld,
// outageWorld say what happens in each; crash-points plays the torn edge
// before its random worlds) and asks its judges in the order chapter
// declares them. Every check asks the journal first (journal.go), before even
// whether the world ran to its end: from what the apiserver answered, what
// each crash left on its disk and what each boot recovered, it names the
// cause at the first boot that went wrong, before any checker's symptom. A
// boot that panicked is judged next (boot.go), by the log it was handed:
// booted once more on that log with its torn records cut out, Open tells
// whether a torn record or a whole one was what it could not read.
package ex02suite

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// apiserver is the node that runs the learner's store: the scene's one
// server.
const apiserver sim.NodeID = "apiserver"

// Every link of every check takes 1–5ms each way.
const (
	linkMin = time.Millisecond
	linkMax = 5 * time.Millisecond
)

// Run runs chapter ex02's hidden suite against open, the learner's boot of
// the apiserver's store: it is called on the node "apiserver" at start and
// after every restart, and the store it returns is served with kube.Serve.
func Run[S kube.Storage](t *testing.T, open func(p *sim.Proc) S) {
	chapter(func(p *sim.Proc) kube.Storage { return open(p) }).Run(t)
}

// chapter is the suite, declared, for the boot open.
func chapter(open func(p *sim.Proc) kube.Storage) scene.Chapter[*cluster] {
	return scene.Chapter[*cluster]{
		ID: "ex02",
		Worlds: map[string]scene.Build[*cluster]{
			"page":    func(seed int64) *cluster { return pageWorld(seed, open) },
			"crashes": func(seed int64) *cluster { return crashWorld(seed, open) },
			"outage":  func(seed int64) *cluster { return outageWorld(seed, open) },
			"edge":    func(seed int64) *cluster { return edgeWorld(seed, open) },
		},
		// Every check asks the journal first, then whether the world ran.
		Ran: func(*cluster) *suite.Failure { return nil },
		Checks: []scene.Check[*cluster]{{
			Name:   "story",
			Plays:  []scene.Play{{World: "page", Seeds: scene.Story(3)}},
			Judges: []scene.Judge[*cluster]{explainedButLost, ran, pageToldable, pageLost, containersKept, linearizable},
		}, {
			Name: "crash-points",
			Plays: []scene.Play{{World: "edge", Seeds: scene.Scenes(edgeSeeds)},
				{World: "crashes", Seeds: scene.Random(100), Guard: &scene.Guard{MinCompleted: 20, MinCovered: 0.9}}},
			Judges: []scene.Judge[*cluster]{explained, ran, lostAtACrashPoint, linearizable, stalled},
			Sum:    &scene.Sum[*cluster]{Count: crashPoints, Judge: struckTheWritePath},
		}, {
			Name:   "outage",
			Plays:  []scene.Play{{World: "outage", Seeds: scene.Random(60)}},
			Judges: []scene.Judge[*cluster]{explained, ran, honestOutage, outageMet, keptThroughOutage, linearizable, stalled},
		}},
	}
}

// cluster is one world of the chapter: its one server boots the learner's
// store (open) and serves it through the journal, which notes what the
// apiserver answered and what each boot recovered.
type cluster struct {
	*scene.Scene
	j        *journal
	store    kube.Storage // the store of the incarnation serving now; nil while it boots
	boots    int
	lanes    []sim.NodeID // the timeline's lanes
	auditErr error        // why the audit could not read the store's history
	node1    *kubelet     // the page's kubelet; nil in the other worlds
	// open is the learner's boot, kept so that a boot that panicked can be
	// tried again on its log with the torn records cut out (reboot).
	open func(p *sim.Proc) kube.Storage
}

// newCluster builds the scene of seed: the apiserver booting open, links of
// 1–5ms, the timeline's lanes, and the scene options of the check.
func newCluster(seed int64, open func(p *sim.Proc) kube.Storage, lanes []sim.NodeID, opts ...scene.Option) *cluster {
	c := &cluster{lanes: lanes, open: open}
	opts = append([]scene.Option{scene.Named(apiserver), scene.Latency(linkMin, linkMax)}, opts...)
	c.Scene = scene.New(seed, c.boot(open), opts...)
	c.j = &journal{w: c.W}
	c.Lanes(lanes...)
	c.Show(quiet)
	return c
}

// boot is the apiserver's boot: the learner's Open, noted by the journal
// with what the disk held before it (its size, and its bytes, for a boot
// that panics), then served.
func (c *cluster) boot(open func(p *sim.Proc) kube.Storage) scene.Boot {
	return func(p *sim.Proc, _ sim.NodeID, _ []sim.NodeID) {
		c.boots++
		c.store = nil
		found, _ := c.j.disk()
		c.j.found = append(c.j.found, c.j.image())
		s := open(p)
		c.store = s
		c.j.booted(p, c.boots, s, found)
		p.Serve(c.j.serve(c.boots, s))
	}
}

// auditAt reads, at virtual time at and from inside the apiserver, the
// whole history its store holds: every retained change of every kind, in
// order. It is the scene's audit (Histories, Audited, AuditedAt) done where
// the store is, since a pod's value is its owner, which a watch over the
// network would not tell the scene's auditor.
func (c *cluster) auditAt(at time.Duration, kinds ...string) {
	c.W.At(at, func() {
		store := c.store
		if !c.W.Up(apiserver) || store == nil {
			return
		}
		c.W.Go(apiserver, "audit", func(p *sim.Proc) {
			var evs []kube.Event
			for _, k := range kinds {
				e, err := store.Watch(p, k, 0, 0)
				if err != nil {
					c.auditErr = err
					return
				}
				evs = append(evs, e...)
			}
			slices.SortStableFunc(evs, func(a, b kube.Event) int {
				return int(a.Object.ResourceVersion - b.Object.ResourceVersion)
			})
			final := []check.Change{}
			for _, ev := range evs {
				final = append(final, check.Change{Version: ev.Object.ResourceVersion, Key: ev.Object.Key(),
					Value: ev.Object.Value(), Deleted: ev.Type == kube.Deleted})
			}
			c.Histories = map[string][]check.Change{string(apiserver): final}
			c.Audited, c.AuditedAt = true, p.Now()
		})
	})
}

// final is the apiserver's history as the audit read it.
func (c *cluster) final() []check.Change { return c.Histories[string(apiserver)] }

// quiet keeps, for the timeline, what the clients did and heard (their
// notes), what the apiserver decided and synced, the crashes and restarts;
// the messages themselves are left out, since every client notes what it
// sent and what came back, and so are the disk's appends.
func quiet(e sim.Event) bool {
	switch e.Kind {
	case sim.EvSend, sim.EvRecv, sim.EvReply, sim.EvRecvReply:
		return false
	case sim.EvDisk:
		return e.Disk.Op != sim.DiskAppend
	}
	return true
}

// told is f in the chapter's words: under its clause, and, on a replay,
// with a timeline three times as long as a search shows.
func (c *cluster) told(f *suite.Failure) *suite.Failure {
	if f == nil {
		return nil
	}
	f.Clause = course.DurableAgreement
	if suite.Replaying() {
		f.Timeline = c.W.Timeline(sim.TimelineOptions{Columns: c.lanes, Focus: f.At, MaxRows: 120, Filter: quiet})
	}
	return f
}

// explained is the journal's explanation of the world, if it has one: the
// most specific cause, before any checker's symptom.
func explained(c *cluster) *suite.Failure { return c.told(c.j.explain()) }

// lost checks durability: every acknowledged change is in the final
// history. It returns the story, time and details of the first one lost.
func (c *cluster) lost() *check.Violation {
	if !c.Audited {
		why := "the apiserver was down at the end of the run"
		if c.auditErr != nil {
			why = "reading its history failed: " + c.auditErr.Error()
		}
		return &check.Violation{Name: "lost-acknowledged-write", Clause: course.DurableAgreement, At: c.W.Now(),
			Story: "the suite could not read the apiserver's history at the end: " + why}
	}
	return check.Durable(c.History, c.final())
}

// ackedBefore counts the changes acknowledged before t.
func (c *cluster) ackedBefore(t time.Duration) int {
	n := 0
	for _, op := range c.History.Operations() {
		if op.Acknowledged() && op.Return <= t {
			n++
		}
	}
	return n
}

// linearizable: every answer, before and after the crashes, fits one
// history; a contradiction is told as one across the crash, with the
// crashes in its details.
func linearizable(c *cluster) *suite.Failure {
	f := c.told(scene.Linearizable(c.Scene))
	if f == nil {
		return nil
	}
	if f.Name != "undecided" {
		f.Story = "across the crash the answers fit no single history: " + f.Story
	}
	f.Details += c.crashLines()
	return f
}

// crashLines lists the apiserver's crashes and restarts for a failure's
// details.
func (c *cluster) crashLines() string {
	var b strings.Builder
	b.WriteString("\nthe apiserver's crashes:\n")
	for _, x := range c.j.crashes() {
		if x.restart == 0 {
			fmt.Fprintf(&b, "  crashed at %s, never restarted\n", suite.FormatTime(x.at))
			continue
		}
		fmt.Fprintf(&b, "  crashed at %s, restarted at %s: %s without a cluster\n",
			suite.FormatTime(x.at), suite.FormatTime(x.restart), suite.FormatTime(x.restart-x.at))
	}
	return b.String()
}
