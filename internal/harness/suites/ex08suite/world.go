package ex08suite

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// world is one scene of the chapter and what the suite notes while it runs:
// the values it hands out, the versions clients saw, and the first answer
// (a yes, or a read of any kind) that came before a majority of the servers'
// disks held the change it was about.
type world struct {
	*scene.Scene
	keys  []string
	value map[string]int   // the next replicas to write, per key: values are unique per key
	seen  map[string]int64 // the last resourceVersion a client saw, per key
	early *suite.Failure   // the first answer before agreement
	// unsynced are the copies the first early yes counted that were
	// written and not yet synced (copiesBeforeSync), if they made its
	// majority.
	unsynced *unsyncedCopies
	health   *health // when each server could answer each client (watchHealth)
	disks    *Disks  // the servers' logs, read off their disks
	// randomized is set in the randomized worlds (chaos), which the four
	// randomized checks share.
	randomized bool
	// away is the catch-up scene's follower that went away, and back when
	// it came back.
	away sim.NodeID
	back time.Duration
	// restarted is when the restart-behind scene's leader came back.
	restarted time.Duration
}

func newWorld(s *scene.Scene, keys ...string) *world {
	w := &world{Scene: s, keys: keys, value: map[string]int{}, seen: map[string]int64{}, disks: NewDisks(s)}
	s.ShowMessages(w.showMessage)
	for i, k := range keys {
		w.value[k] = 10 * (i + 1)
	}
	return w
}

// newDiskWorld builds a world of n servers over link whose disks take
// syncLatency to sync, on chaosKeys: the chaos, minority and catch-up scenes.
func newDiskWorld(seed int64, boot scene.Boot, n int, link sim.Link) *world {
	return newWorld(scene.New(seed, boot, scene.Servers(n), scene.Latency(link.Min, link.Max),
		scene.RequestTimeout(requestTimeout), scene.WorldOptions(sim.DiskSyncLatency(syncLatency))), chaosKeys...)
}

// play runs the world until the auditor has read every server at audit,
// and returns it.
func (w *world) play(audit time.Duration) *world {
	w.AuditAt(audit, "deployments", w.keys...)
	w.Run(audit + 30*time.Second)
	return w
}

// worker adds a client node, name, that runs f with its view of the world.
func (w *world) worker(name string, f func(p *sim.Proc, c client)) {
	w.Client(name, func(p *sim.Proc, api *kube.Client) { f(p, client{w: w, p: p, api: api}) })
}

// kubectl adds the client that creates every key through the leader.
func (w *world) kubectl() {
	w.worker("kubectl", func(_ *sim.Proc, c client) {
		for _, key := range w.keys {
			c.create(w.Servers[0], key)
		}
	})
}

// majority is how many servers make a majority of the cluster.
func (w *world) majority() int { return len(w.Servers)/2 + 1 }

// next hands out a replicas count no write to key has used.
func (w *world) next(key string) int {
	w.value[key]++
	return w.value[key]
}

// acknowledged is called the moment a client hears yes for a change to key
// (index is the resourceVersion the answer carries). It looks at every
// server's disk: a yes is agreement only if a majority of them hold the
// change, synced, at that position of the log. The first yes that came
// earlier is kept as the run's failure.
func (w *world) acknowledged(p *sim.Proc, client, server, what, key string, deleted bool, replicas int, index int64) {
	if w.early != nil {
		return
	}
	holders := w.disks.Holders(index, key, deleted, replicas)
	if len(holders) >= w.majority() {
		return
	}
	w.unsynced = w.copiesBeforeSync(p.Now(), holders, index, key, deleted, replicas)
	held := "no server's disk held it"
	if len(holders) > 0 {
		held = fmt.Sprintf("only %d of %d servers' disks held it, synced (%s)", len(holders), len(w.Servers), strings.Join(holders, ", "))
	}
	w.early = &suite.Failure{
		Name:   "acknowledged-before-majority",
		Clause: course.AgreementFirst,
		At:     p.Now(),
		Story: fmt.Sprintf("%s told %s yes for %s (rv %d) at %s, but at that moment %s at position %d of the log; "+
			"a majority of the %d servers is %d. A yes before a majority holds the change is one machine's opinion: "+
			"a crash can still take it back", server, client, what, index, suite.FormatTime(p.Now()), held, index,
			len(w.Servers), w.majority()),
		Details: w.disks.Around(index),
	}
}

// readCommitted is called the moment a client gets the answer to a read,
// a Latest or an Any one, or an item of a list (how names which): the
// change that wrote what it read must be committed (Disks.Uncommitted).
// The first read that was not is kept as the run's failure.
func (w *world) readCommitted(p *sim.Proc, client, server, how, key string, obj kube.Object) {
	if w.early != nil {
		return
	}
	w.early = w.disks.Uncommitted(p.Now(), Read{Client: client, Server: server, How: how, Key: key, Object: obj})
	if w.early != nil {
		if why := w.recovered(sim.NodeID(server), key, obj.Replicas, obj.ResourceVersion, p.Now()); why != "" {
			w.early.Story = why + ": " + w.early.Story
		}
	}
}

// client is one worker's view: its recording kube.Client and the world.
type client struct {
	w   *world
	p   *sim.Proc
	api *kube.Client
}

// op sends one random request to a random server: a Latest or an Any read,
// a Latest list, an update with or without a precondition, a delete, or a
// create. It reports whether the answer said nothing about the store (a
// timeout, Unavailable).
func (c client) op() (unknown bool) {
	p, w := c.p, c.w
	server := w.Servers[p.Rand().Intn(len(w.Servers))]
	key := w.keys[p.Rand().Intn(len(w.keys))]
	switch r := p.Rand().Float64(); {
	case r < 0.22:
		return c.read(server, key, kube.Latest)
	case r < 0.30:
		return c.read(server, key, kube.Any)
	case r < 0.36:
		l, err := c.api.Pin(server).List("deployments", kube.ReadOptions{})
		for _, o := range l.Items {
			c.w.seen[o.Key()] = o.ResourceVersion
			c.w.readCommitted(c.p, c.api.Name(), string(server), LatestList, o.Key(), o)
		}
		return indefinite(err)
	case r < 0.66:
		return c.update(server, key, 0)
	case r < 0.84:
		return c.update(server, key, w.seen[key])
	case r < 0.90:
		return c.remove(server, key)
	default:
		return c.create(server, key)
	}
}

// probe watches the servers until the work ends, and reads every key
// (Latest) through each server that has just come back from a crash: the
// first answers of a restarted server must already reflect every write
// acknowledged before it went down. It looks every probeDown while a server
// is down, and every probeUp while all are up (no crash in the chapter's
// worlds is shorter than that).
func (c client) probe() {
	w, p := c.w, c.p
	down := map[sim.NodeID]bool{}
	for p.Now() < workEnd {
		anyDown := false
		for _, id := range w.Servers {
			up := w.W.Up(id)
			if up && down[id] {
				p.Logf("%s is back", id)
				for _, key := range w.keys {
					c.read(id, key, kube.Latest)
				}
			}
			down[id] = !up
			anyDown = anyDown || !up
		}
		if anyDown {
			p.Sleep(probeDown)
		} else {
			p.Sleep(probeUp)
		}
	}
}

// How often the prober looks for a restarted server.
const (
	probeDown = 5 * time.Millisecond
	probeUp   = 50 * time.Millisecond
)

// indefinite reports whether err leaves the outcome unknown.
func indefinite(err error) bool {
	return errors.Is(err, kube.ErrTimeout) || errors.Is(err, kube.ErrUnavailable)
}

func (c client) read(server sim.NodeID, key, rv string) bool {
	obj, err := c.api.Pin(server).Get(key, kube.ReadOptions{ResourceVersion: rv})
	if err == nil {
		c.w.seen[key] = obj.ResourceVersion
		how := LatestRead
		if rv == kube.Any {
			how = AnyRead
		}
		c.w.readCommitted(c.p, c.api.Name(), string(server), how, key, obj)
	}
	return indefinite(err)
}

// listAny lists the Deployments through server with an Any read: every
// item may be stale, but each must be a committed change.
func (c client) listAny(server sim.NodeID) bool {
	l, err := c.api.Pin(server).List("deployments", kube.ReadOptions{ResourceVersion: kube.Any})
	for _, o := range l.Items {
		c.w.readCommitted(c.p, c.api.Name(), string(server), AnyList, o.Key(), o)
	}
	return indefinite(err)
}

// update scales key to a fresh count through server, on condition that it
// is still at rv (0: unconditionally).
func (c client) update(server sim.NodeID, key string, rv int64) bool {
	kind, name := kube.SplitKey(key)
	n := c.w.next(key)
	obj, err := c.api.Pin(server).Update(kube.Object{Kind: kind, Name: name, Replicas: n, ResourceVersion: rv})
	if err == nil {
		c.w.seen[key] = obj.ResourceVersion
		c.w.acknowledged(c.p, c.api.Name(), string(server), fmt.Sprintf("its scale of %s to %d", key, n), key, false, n, obj.ResourceVersion)
	}
	return indefinite(err)
}

// create creates key with a fresh count through server.
func (c client) create(server sim.NodeID, key string) bool {
	kind, name := kube.SplitKey(key)
	n := c.w.next(key)
	obj, err := c.api.Pin(server).Create(kube.Object{Kind: kind, Name: name, Replicas: n})
	if err == nil {
		c.w.seen[key] = obj.ResourceVersion
		c.w.acknowledged(c.p, c.api.Name(), string(server), fmt.Sprintf("its create of %s with %d", key, n), key, false, n, obj.ResourceVersion)
	}
	return indefinite(err)
}

// remove deletes key through server, on condition half the time.
func (c client) remove(server sim.NodeID, key string) bool {
	var rv int64
	if c.p.Rand().Intn(2) == 0 {
		rv = c.w.seen[key]
	}
	obj, err := c.api.Pin(server).Delete(key, rv)
	if err == nil {
		c.w.acknowledged(c.p, c.api.Name(), string(server), "its delete of "+key, key, true, 0, obj.ResourceVersion)
	}
	return indefinite(err)
}

// overwritten judges an acknowledged write that is gone although the
// servers agree: a server's value for a key was written by an operation
// that had already been acknowledged before another acknowledged write to
// the key began. In one history the later write comes after it, so the
// older value cannot be the last one. Only keys on which every audited
// server agrees count: servers that disagree have another failure. lead,
// if not empty, is the story's first sentence: why the older write won.
func overwritten(lead string) scene.Judge[*world] {
	if lead == "" {
		lead = "an older write won over a newer one"
	}
	return func(w *world) *suite.Failure {
		ops := w.History.Operations()
		for _, id := range w.Servers {
			for _, key := range w.keys {
				v, ok := w.States[string(id)][key]
				if !ok || w.agreeing(key, v) < len(w.States) {
					continue // servers that disagree have not converged: another failure
				}
				var older *check.Operation
				for i := range ops {
					op := &ops[i]
					if op.Acknowledged() && op.Input.Key == key && op.Input.Kind != check.KindDelete && fmt.Sprint(op.Input.Value) == fmt.Sprint(v) {
						older = op
					}
				}
				if older == nil {
					continue
				}
				for _, later := range ops {
					if !later.Acknowledged() || later.Input.Key != key || later.Call <= older.Return {
						continue
					}
					holders := fmt.Sprintf("%s holds", id)
					if len(w.States) > 1 {
						holders = fmt.Sprintf("all %d servers hold", len(w.States))
					}
					story := fmt.Sprintf("%s. %s's %s through %s, acknowledged at %s, is gone: at %s %s %s=%v, "+
						"the value of %s's %s through %s, acknowledged at %s, before the later write began at %s",
						lead, later.Client, later.Input, later.Server, suite.FormatTime(later.Return),
						suite.FormatTime(w.AuditedAt), holders, key, v,
						older.Client, older.Input, older.Server, suite.FormatTime(older.Return), suite.FormatTime(later.Call))
					return &suite.Failure{Name: "overwritten-by-older-write", Clause: course.DurableAgreement, At: later.Return,
						Story: story, Details: statesTable(w)}
				}
			}
		}
		return nil
	}
}

// agreeing counts the servers that hold value v for key.
func (w *world) agreeing(key string, v any) int {
	n := 0
	for _, st := range w.States {
		if x, ok := st[key]; ok && fmt.Sprint(x) == fmt.Sprint(v) {
			n++
		}
	}
	return n
}

// statesTable is what each audited server holds, key by key.
func statesTable(w *world) string {
	var b strings.Builder
	b.WriteString("what each server holds at the audit:\n")
	for _, id := range w.Servers {
		st, ok := w.States[string(id)]
		if !ok {
			fmt.Fprintf(&b, "  %-9s (not audited)\n", id)
			continue
		}
		fmt.Fprintf(&b, "  %-9s", id)
		for _, key := range w.keys {
			if v, ok := st[key]; ok {
				fmt.Fprintf(&b, " %s=%v", key, v)
			} else {
				fmt.Fprintf(&b, " %s absent", key)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// quiet reports whether a message between servers is background the
// timeline leaves out: a repair job's full copy, an acknowledgement, or an
// Append that carries no entries (a heartbeat).
func quiet(msg any) bool {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Struct {
		return false
	}
	switch v.Type().Name() {
	case "Repair", "Ack":
		return true
	case "Append":
		f := v.FieldByName("Entries")
		return f.IsValid() && f.Kind() == reflect.Slice && f.Len() == 0
	}
	return false
}

// showMessage keeps, in a timeline (beside every note, crash, restart and
// fault: scene.ShowMessages), the messages between servers that carry a
// change.
func (w *world) showMessage(e sim.Event) bool {
	return w.IsServer(e.Node) && w.IsServer(e.Peer) && !quiet(e.Msg)
}
