package ex03suite

// The zoo: the clusters a learner's drill is graded against. Each is two API
// servers, server-1 and server-2, built from kube.Storage implementations
// that live only here (the lagging copy in lagging.go). Seven break the
// contract, four in the ways the book tells; two keep it. Three of the
// broken ones show it at any time to a drill that writes and reads each
// server; degraded mode only while a fault is on; the fifth only to a drill
// that writes through server-2; the sixth only to a drill that cuts
// server-1 off while it writes through server-2, and compares the servers
// once the faults are well over; and the seventh only to a drill that reads
// a write back from the server that did not take it, at once. The drill
// never learns which one it has: it sees two servers and a load balancer,
// like the team in the story.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

const (
	server1 sim.NodeID = "server-1"
	server2 sim.NodeID = "server-2"

	// asyncDelay is how long the asynchronous cluster waits before copying
	// an acknowledged write to the other server.
	asyncDelay = 150 * time.Millisecond
	// degradedTimeout is how long the degraded-mode cluster waits for the
	// other server before it goes on alone: server-1 for the backup's copy of
	// a write, server-2 for server-1's answer to a request it forwarded.
	degradedTimeout = 50 * time.Millisecond
	// takeoverAfter is how long server-2 of the degraded-mode cluster must
	// have heard nothing from server-1 before it answers reads from its own
	// copy: until then it refuses them, so a drill that asks only once, at
	// the start of a fault, hears nothing but honest refusals.
	takeoverAfter = 60 * time.Millisecond
	// passOnAfter is how long server-2 of the early-acknowledging cluster
	// holds a write it acknowledged before passing it on to server-1.
	passOnAfter = 50 * time.Millisecond
	// forwardTimeout is how long a server waits for its peer to answer a
	// request it forwarded; it is below the client's own timeout (one
	// second), so the client hears the server's Timeout rather than none.
	forwardTimeout = 800 * time.Millisecond
)

// cluster is one member of the zoo.
type cluster struct {
	name   string // "asynchronous replication", shown to the learner
	broken bool
	does   string // what it does, told to the learner when a drill misjudges it
	needs  string // for a broken cluster that shows itself only during faults: what a drill must do to see it
	// lacks, for a broken cluster that only one part of a drill shows,
	// says what the drill in w never did that would have shown it ("never
	// sent a write to server-2"), or "" when it did all of it.
	lacks func(w *world) string
	boot  scene.Boot // what each server runs
}

// The broken clusters, one or two per catch check, and the correct ones.
var (
	asyncReplication = cluster{
		name:   "asynchronous replication",
		broken: true,
		does: fmt.Sprintf("acknowledges a write on the server that took it and copies it to the other server %s later, "+
			"so for that long the other server answers with the old value", asyncDelay),
		boot: bootAsync,
	}
	lostWrite = cluster{
		name:   "acknowledged, then lost",
		broken: true,
		does: "keeps the truth on server-1 and acknowledges each write before server-2 has a copy (it follows 150 to 300ms later, " +
			"and is not sent again if server-2 was cut off; a server-2 that crashed copies everything from server-1 when it boots); " +
			"when server-1 goes down, server-2 takes over without the writes that had not arrived yet, and they are gone",
		lacks: lacksCrashAfterCut,
		boot:  bootLostWrite,
	}
	divergence = cluster{
		name:   "two separate memories",
		broken: true,
		does: "lets each server accept writes into its own memory and never tells the other: " +
			"a write through the balancer lands on one of them, and the two never agree again",
		boot: bootDivergence,
	}
	degradedMode = cluster{
		name:   "degraded mode",
		broken: true,
		does: fmt.Sprintf("copies each write to server-2 before acknowledging it, as the synchronous cluster does, until server-2 fails to answer once; "+
			"from then on (until server-1 restarts) server-1 acknowledges writes alone and server-2 never receives them, "+
			"and once server-1 has been down or cut off for %s, server-2 answers reads from its own copy, which lacks them. "+
			"Outside faults it looks healthy: server-2 sends every request to server-1", takeoverAfter),
		needs: "writes while server-2 is away, then reads of the same keys from server-2 on its own, again and again, while server-1 is away",
		lacks: lacksDegradedFault,
		boot:  bootDegraded,
	}
	oneStore = cluster{
		name: "one store behind both servers",
		does: "keeps one store on server-1, which logs each write to its disk before acknowledging it; " +
			"server-2 forwards every request there, and refuses honestly when it cannot",
		boot: bootOneStore,
	}
	syncReplication = cluster{
		name: "synchronous replication",
		does: "acknowledges a write only once server-2 holds a copy and server-1 has logged it to disk; " +
			"reads on either server are answered by server-1, and writes are refused while server-2 is down",
		boot: bootSync,
	}
	brokenClusters  = []cluster{asyncReplication, lostWrite, divergence, degradedMode, earlyAck, splitBrain, laggingCopy}
	correctClusters = []cluster{oneStore, syncReplication}
)

// store is a single-node store: a kube.MemStore holding the state and
// serving reads, an optional write-ahead log on the node's disk (synced
// before a write is acknowledged and replayed at boot), and two hooks where
// a cluster replicates: before a write is applied (synchronously: the write
// waits) and after (asynchronously: it does not).
type store struct {
	*kube.MemStore
	wal    *sim.File // nil: memory only
	mu     sim.Mutex
	before func(p *sim.Proc, ev kube.Event) error
	after  func(p *sim.Proc, ev kube.Event)
}

var _ kube.Storage = (*store)(nil)

// openStore builds the node's store at boot, replaying its log if durable.
func openStore(p *sim.Proc, durable bool) *store {
	s := &store{MemStore: kube.NewMemStore(0), mu: sim.Mutex{Name: "store"}}
	if durable {
		s.wal = p.Disk().Open("wal")
		s.replay(p)
	}
	return s
}

// replay applies every whole record of the log and cuts a torn tail.
func (s *store) replay(p *sim.Proc) {
	data := s.wal.ReadAll()
	good := 0
	for _, rec := range bytes.SplitAfter(data, []byte("\n")) {
		var ev kube.Event // a record without its newline is a torn last one
		if !bytes.HasSuffix(rec, []byte("\n")) || decodeRecord(rec, &ev) != nil || s.Apply(p, ev) != nil {
			break
		}
		good += len(rec)
	}
	if good < len(data) {
		s.wal.Truncate(good)
	}
}

// write decides, replicates, logs and applies one write, one at a time.
func (s *store) write(p *sim.Proc, req any, replicate bool) (kube.Object, error) {
	s.mu.Lock(p)
	defer s.mu.Unlock()
	ev, changed, err := s.Propose(req)
	if err != nil || !changed {
		return ev.Object, err
	}
	if replicate && s.before != nil {
		if err := s.before(p, ev); err != nil {
			return kube.Object{}, err
		}
	}
	if s.wal != nil {
		rec, _ := json.Marshal(ev)
		s.wal.Append(append(rec, '\n'))
		s.wal.Sync(p)
	}
	if err := s.Apply(p, ev); err != nil {
		return kube.Object{}, err
	}
	if replicate && s.after != nil {
		s.after(p, ev)
	}
	return ev.Object, nil
}

// applyCopy applies a change copied from the other server as a write of
// this server's own (with its own resourceVersion), not copied any further.
func (s *store) applyCopy(p *sim.Proc, ev kube.Event) {
	o := ev.Object
	o.ResourceVersion = 0
	var req any = kube.UpdateRequest{Object: o}
	switch _, err := s.Get(p, o.Key(), kube.ReadOptions{}); {
	case ev.Type == kube.Deleted:
		req = kube.DeleteRequest{Key: o.Key()}
	case err != nil:
		req = kube.CreateRequest{Object: o}
	}
	s.write(p, req, false) //nolint:errcheck // a copy that no longer applies is dropped
}

func (s *store) Create(p *sim.Proc, obj kube.Object) (kube.Object, error) {
	return s.write(p, kube.CreateRequest{Object: obj}, true)
}

func (s *store) Update(p *sim.Proc, obj kube.Object) (kube.Object, error) {
	return s.write(p, kube.UpdateRequest{Object: obj}, true)
}

func (s *store) Delete(p *sim.Proc, key string, rv int64) (kube.Object, error) {
	return s.write(p, kube.DeleteRequest{Key: key, ResourceVersion: rv}, true)
}

// The messages servers send each other.
type (
	// Copy carries a change to the other server, after it was acknowledged.
	Copy struct{ Event kube.Event }
	// Backup carries a change to the backup, before it is acknowledged.
	Backup struct{ Event kube.Event }
	// Snapshot asks the other server for every object it holds.
	Snapshot struct{}
)

func (m Copy) String() string   { return "Copy{" + m.Event.String() + "}" }
func (m Backup) String() string { return "Backup{" + m.Event.String() + "}" }

// peerOf is the other server.
func peerOf(id sim.NodeID) sim.NodeID {
	if id == server1 {
		return server2
	}
	return server1
}

// asAPIError turns a failed call to another server into the error its
// client should hear: unknown outcome on a timeout, a refusal otherwise.
func asAPIError(to sim.NodeID, err error) error {
	switch {
	case errors.Is(err, sim.ErrTimeout):
		return kube.StatusError{Code: 504, Reason: "Timeout", Message: fmt.Sprintf("%s did not answer in time; the request may or may not have taken effect", to)}
	case errors.Is(err, sim.ErrNodeDown), errors.Is(err, sim.ErrUnreachable):
		return kube.Unavailable(string(to) + " is down")
	}
	return err
}

// forward sends an API request on to the server that holds the truth; to
// server-2, which forwards, any other message is an error.
func forward(p *sim.Proc, to sim.NodeID, req any) (any, error) {
	if !kube.IsRequest(req) {
		return nil, fmt.Errorf("server-2 does not understand %T", req)
	}
	timeout := forwardTimeout
	if w, ok := req.(kube.WatchRequest); ok {
		timeout += w.Wait
	}
	reply, err := p.Call(to, req, timeout)
	if err != nil {
		return nil, asAPIError(to, err)
	}
	return reply, nil
}

// bootAsync: each server keeps its own durable store, acknowledges at once
// and copies the change to the other server asyncDelay later.
func bootAsync(p *sim.Proc, self sim.NodeID, _ []sim.NodeID) {
	peer := peerOf(self)
	s := openStore(p, true)
	s.after = func(p *sim.Proc, ev kube.Event) {
		p.Go("copy", func(p *sim.Proc) {
			p.Sleep(asyncDelay)
			p.Call(peer, Copy{Event: ev}, time.Second) //nolint:errcheck // fire and forget
		})
	}
	api := kube.Handler(s)
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		if m, ok := req.(Copy); ok {
			s.applyCopy(p, m.Event)
			return nil, nil
		}
		return api(p, from, req)
	})
}

// bootLostWrite: server-1 holds the truth in memory and acknowledges
// before copying to server-2 (150–300ms later); server-2 forwards to
// server-1 and, when it cannot reach it, serves from its own copy. A booting
// server starts from the other's copy.
func bootLostWrite(p *sim.Proc, self sim.NodeID, _ []sim.NodeID) {
	s := openStore(p, false)
	restore(p, s, peerOf(self))
	api := kube.Handler(s)
	if self == server1 {
		s.after = func(p *sim.Proc, ev kube.Event) {
			lag := 150*time.Millisecond + time.Duration(p.Rand().Int63n(int64(150*time.Millisecond)))
			p.Go("copy", func(p *sim.Proc) {
				p.Sleep(lag)
				p.Call(server2, Copy{Event: ev}, time.Second) //nolint:errcheck // fire and forget
			})
		}
	}
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		switch m := req.(type) {
		case Copy: // only server-2 is sent copies
			s.Apply(p, m.Event) //nolint:errcheck // a copy older than what it took over is dropped
			return nil, nil
		case Snapshot:
			return s.Objects(), nil
		}
		if self == server1 || !kube.IsRequest(req) {
			return api(p, from, req)
		}
		reply, err := p.Call(server1, req, 300*time.Millisecond)
		var se kube.StatusError
		if err == nil || errors.As(err, &se) {
			return reply, err
		}
		return api(p, from, req) // server-1 is gone: take over with what we have
	})
}

// restore loads the other server's objects into a booting server's store.
func restore(p *sim.Proc, s *store, from sim.NodeID) {
	reply, err := p.Call(from, Snapshot{}, 300*time.Millisecond)
	objs, _ := reply.([]kube.Object)
	if err != nil {
		return
	}
	slices.SortFunc(objs, func(a, b kube.Object) int { return int(a.ResourceVersion - b.ResourceVersion) })
	for _, o := range objs {
		s.Apply(p, kube.Event{Type: kube.Added, Object: o}) //nolint:errcheck // versions ascend
	}
}

// bootDivergence: two independent durable stores that never talk.
func bootDivergence(p *sim.Proc, _ sim.NodeID, _ []sim.NodeID) { kube.Serve(p, openStore(p, true)) }

// bootOneStore: server-1 keeps one durable store; server-2 forwards.
func bootOneStore(p *sim.Proc, self sim.NodeID, _ []sim.NodeID) {
	if self == server1 {
		kube.Serve(p, openStore(p, true))
		return
	}
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) { return forward(p, server1, req) })
}

// bootSync: server-1 is the primary with a durable store; before applying
// a write it hands it to server-2, the backup, and waits for its answer.
// server-2 forwards every API request to server-1.
func bootSync(p *sim.Proc, self sim.NodeID, _ []sim.NodeID) {
	if self == server1 {
		s := openStore(p, true)
		s.before = func(p *sim.Proc, ev kube.Event) error {
			_, err := p.Call(server2, Backup{Event: ev}, 500*time.Millisecond)
			if errors.Is(err, sim.ErrNodeDown) || errors.Is(err, sim.ErrUnreachable) {
				return kube.Unavailable("the backup server-2 is down: refusing writes rather than keeping one copy")
			}
			return asAPIError(server2, err)
		}
		kube.Serve(p, s)
		return
	}
	var copies []kube.Event // the backup's copy of the history, in memory
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		if m, ok := req.(Backup); ok {
			// The primary is the authority: a change at a position
			// replaces whatever an earlier, failed attempt left there.
			i, _ := slices.BinarySearchFunc(copies, m.Event.Object.ResourceVersion, func(e kube.Event, rv int64) int {
				return int(e.Object.ResourceVersion - rv)
			})
			copies = append(copies[:i], m.Event)
			return nil, nil
		}
		return forward(p, server1, req)
	})
}

// bootDegraded: server-1 is the primary with a durable store and hands each
// write to server-2, the backup, before applying it, as bootSync does; but
// once the backup has not answered within degradedTimeout, server-1 goes on
// without it ("degraded mode") until server-1 itself restarts, and never
// sends it what it missed. server-2 keeps its copy on its disk and forwards
// every API request to server-1; once server-1 has not answered for
// takeoverAfter, it answers reads from its own copy (refusing them until
// then) and refuses writes. Since server-2 answers from its copy only while
// server-1 is away, the missing writes show only while a fault is on, and
// only to a drill that keeps asking.
func bootDegraded(p *sim.Proc, self sim.NodeID, _ []sim.NodeID) {
	if self == server1 {
		s := openStore(p, true)
		inSync := true // until server-2 fails to answer a copy, then until server-1 restarts
		s.before = func(p *sim.Proc, ev kube.Event) error {
			if inSync {
				if _, err := p.Call(server2, Backup{Event: ev}, degradedTimeout); err != nil {
					inSync = false // degraded mode: on alone, server-2 is left behind
				}
			}
			return nil
		}
		kube.Serve(p, s)
		return
	}
	s := openStore(p, true)
	api := kube.Handler(s)
	silentSince := time.Duration(-1) // when server-1 last began not to answer; -1: it answers
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		if m, ok := req.(Backup); ok {
			s.applyCopy(p, m.Event)
			return nil, nil
		}
		if !kube.IsRequest(req) {
			return nil, fmt.Errorf("server-2 does not understand %T", req)
		}
		sent := p.Now()
		reply, err := p.Call(server1, req, degradedTimeout)
		var se kube.StatusError
		if err == nil || errors.As(err, &se) {
			silentSince = -1
			return reply, err
		}
		if silentSince < 0 || sent < silentSince {
			silentSince = sent
		}
		switch req.(type) {
		case kube.GetRequest, kube.ListRequest, kube.WatchRequest:
			if p.Now()-silentSince >= takeoverAfter {
				return api(p, from, req) // server-1 has been away a while: answer from the copy
			}
		}
		return nil, asAPIError(server1, err)
	})
}

// earlyAck is a broken cluster that only one part of a drill shows, writes
// through server-2: the clusters above are each also caught by some other
// part, so a drill that writes through server-1 alone would pass them all
// and still be wrong.
var earlyAck = cluster{
	name:   "server-2 acknowledges early",
	broken: true,
	does: fmt.Sprintf("keeps one store on server-1; server-2 acknowledges a create or an update as soon as it has it in memory "+
		"and passes it on to server-1 %s later, so for that long server-1 lacks it, and a write server-1 refuses, "+
		"or never hears of because it is down or cut off, is gone. Writes through server-1 are safe", passOnAfter),
	lacks: lacksWriteThroughServer2,
	boot:  bootEarlyAck,
}

// bootEarlyAck: server-1 keeps one durable store; server-2 forwards reads
// and deletes, and acknowledges creates and updates at once, passing them
// on to server-1 passOnAfter later without waiting for (or telling) the
// answer.
func bootEarlyAck(p *sim.Proc, self sim.NodeID, _ []sim.NodeID) {
	if self == server1 {
		kube.Serve(p, openStore(p, true))
		return
	}
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		var o kube.Object
		switch r := req.(type) {
		case kube.CreateRequest:
			o = r.Object
		case kube.UpdateRequest:
			o = r.Object
		default:
			return forward(p, server1, req)
		}
		p.Go("pass on", func(p *sim.Proc) {
			p.Sleep(passOnAfter)
			p.Call(server1, req, forwardTimeout) //nolint:errcheck // already acknowledged
		})
		return o, nil
	})
}

// splitBrain is a broken cluster that only a drill comparing the servers
// once every fault is over shows, and only if a partition cut server-1 off
// while someone wrote through server-2: what the servers hold then differs
// only by writes whose outcome their clients were told is unknown.
var splitBrain = cluster{
	name:   "split brain after a partition",
	broken: true,
	does: fmt.Sprintf("copies each write to server-2 before acknowledging it, and server-2 answers reads from its copy; "+
		"but once server-1 is cut off (a crash it tells apart: server-1 refuses at once), server-2 takes each write alone, "+
		"answers Timeout, and never passes it on, until it has heard from server-1 again for %s. "+
		"It refuses reads until it has heard from server-1 for %s, so the two servers hold different values from then on, and only a look at each once the faults are well over shows it", catchUp, readAgainAfter),
	lacks: lacksFinalComparison,
	boot:  bootSplitBrain,
}

const (
	// heartbeat is how often server-2 of the split brain asks server-1
	// whether it is there, and pingTimeout how long it waits for the answer.
	heartbeat   = 10 * time.Millisecond
	pingTimeout = 50 * time.Millisecond
	// catchUp is how long server-2 of the split brain must hear from
	// server-1 without a miss before it answers reads, and forwards writes,
	// again; and how long it waits for server-1 to answer a write it
	// forwarded.
	catchUp = 100 * time.Millisecond
	// readAgainAfter is how long server-2 of the split brain must hear from
	// server-1 without a miss before it answers reads again: longer than
	// catchUp, so a look at the servers just after a fault meets a refusal,
	// and only one once the faults are well over shows the difference.
	readAgainAfter = 500 * time.Millisecond
)

type (
	// Ping asks server-1 whether it is there.
	Ping struct{}
	// State is server-1's objects and the resourceVersion they are at: the
	// split brain's answer to a Snapshot.
	State struct {
		Objects []kube.Object
		RV      int64
	}
)

// replica is server-2's copy of server-1's objects by key, each as server-1
// made it (with its resourceVersion), which it answers reads from.
type replica map[string]kube.Object

// read answers a Get or a List from r; any other request is forwarded to
// server-1.
func (r replica) read(p *sim.Proc, req any) (any, error) {
	switch q := req.(type) {
	case kube.GetRequest:
		return r.get(q.Key)
	case kube.ListRequest:
		rv := int64(0) // the newest object's
		for _, o := range r {
			rv = max(rv, o.ResourceVersion)
		}
		return r.list(q.Kind, rv), nil
	}
	return forward(p, server1, req)
}

// get answers a Get of key from r: the object, or NotFound.
func (r replica) get(key string) (any, error) {
	if o, ok := r[key]; ok {
		return o, nil
	}
	return kube.Object{}, kube.NotFound(key)
}

// list answers a List of kind from r, as of resourceVersion rv: its
// objects of that kind, by key.
func (r replica) list(kind string, rv int64) kube.List {
	l := kube.List{Items: []kube.Object{}, ResourceVersion: rv}
	for _, o := range r {
		if o.Kind == kind {
			l.Items = append(l.Items, o)
		}
	}
	slices.SortFunc(l.Items, func(a, b kube.Object) int { return cmp.Compare(a.Key(), b.Key()) })
	return l
}

// isRead reports whether req only reads.
func isRead(req any) bool {
	switch req.(type) {
	case kube.GetRequest, kube.ListRequest, kube.WatchRequest:
		return true
	}
	return false
}

// bootSplitBrain: server-1 is the primary with a durable store and hands
// each write to server-2 before applying it, as bootSync does, and answers
// Timeout when server-2 does not answer in time. server-2 keeps its copy in
// a durable store of its own, and pings server-1 every heartbeat: a ping
// that times out means server-1 is cut off, and from then on server-2 takes
// writes alone (answering Timeout) until server-1 has answered for catchUp;
// a ping refused means server-1 is down, and server-2 takes server-1's
// whole store once it answers again. It answers reads from its copy only
// once server-1 has answered for readAgainAfter.
func bootSplitBrain(p *sim.Proc, self sim.NodeID, _ []sim.NodeID) {
	if self == server1 {
		s := openStore(p, true)
		s.before = func(p *sim.Proc, ev kube.Event) error {
			_, err := p.Call(server2, Backup{Event: ev}, degradedTimeout)
			if errors.Is(err, sim.ErrNodeDown) || errors.Is(err, sim.ErrUnreachable) {
				return kube.Unavailable("the backup server-2 is down: refusing writes rather than keeping one copy")
			}
			return asAPIError(server2, err)
		}
		api := kube.Handler(s)
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			switch req.(type) {
			case Ping:
				return nil, nil
			case Snapshot:
				return State{Objects: s.Objects(), RV: s.ResourceVersion()}, nil
			}
			return api(p, from, req)
		})
		return
	}
	// r is server-1's objects as server-2 last heard of them, own the
	// writes server-2 took alone, which reads see over r.
	r, own := replica{}, replica{}
	arrived := map[string]time.Duration{} // when each object of r arrived
	disk := p.Disk().Open("copy")         // server-2 keeps r and own on its disk too
	keep := func(p *sim.Proc, rec copyRecord) {
		line, _ := json.Marshal(rec)
		disk.Append(append(line, '\n'))
		disk.Sync(p)
		rec.apply(r, own)
	}
	for _, line := range bytes.SplitAfter(disk.ReadAll(), []byte("\n")) {
		var rec copyRecord // a record without its newline is a torn last one
		if !bytes.HasSuffix(line, []byte("\n")) || decodeRecord(line, &rec) != nil {
			break
		}
		rec.apply(r, own)
	}
	heard := time.Duration(-1)   // since when server-1 has answered every ping; -1: it did not answer the last one
	alone, behind := false, true // alone: server-1 was cut off; behind: it was down (or server-2 just booted)
	downAt := time.Duration(0)   // when server-2 last found server-1 down
	p.Go("heartbeat", func(p *sim.Proc) {
		for ; ; p.Sleep(heartbeat) {
			_, err := p.Call(server1, Ping{}, pingTimeout)
			switch {
			case errors.Is(err, sim.ErrTimeout):
				alone, heard = true, -1
				continue
			case err != nil:
				behind, heard, downAt = true, -1, p.Now()
				continue
			}
			if behind {
				// Take server-1's store; a copy that arrived since it was
				// found down and is newer than the store is kept.
				reply, err := p.Call(server1, Snapshot{}, pingTimeout)
				st, ok := reply.(State)
				if errors.Is(err, sim.ErrTimeout) {
					alone, heard = true, -1
				}
				if err != nil || !ok {
					continue
				}
				next := replica{}
				for _, o := range st.Objects {
					next[o.Key()] = o
				}
				for k, o := range r {
					if o.ResourceVersion > st.RV && arrived[k] >= downAt {
						next[k] = o
					}
				}
				r, behind = next, false
			}
			if heard < 0 {
				heard = p.Now()
			}
			if p.Now()-heard >= catchUp {
				alone = false // back to forwarding; what it took alone stays where it is
			}
		}
	})
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		if m, ok := req.(Backup); ok { // server-1 is the authority: its copy replaces what server-2 took alone
			keep(p, copyRecord{Object: m.Event.Object, Deleted: m.Event.Type == kube.Deleted})
			arrived[m.Event.Object.Key()] = p.Now()
			return nil, nil
		}
		if !kube.IsRequest(req) {
			return nil, fmt.Errorf("server-2 does not understand %T", req)
		}
		if isRead(req) {
			if heard < 0 || p.Now()-heard < readAgainAfter {
				return nil, kube.Unavailable("server-2 is not sure of server-1")
			}
			seen := maps.Clone(r)
			maps.Copy(seen, own)
			return seen.read(p, req)
		}
		if !alone {
			reply, err := p.Call(server1, req, catchUp)
			if !errors.Is(err, sim.ErrTimeout) {
				return reply, asAPIError(server1, err)
			}
			// Cut off, or down while it had the write? Ask, unless the
			// heartbeat found out meanwhile.
			if !alone {
				if _, err := p.Call(server1, Ping{}, pingTimeout); !errors.Is(err, sim.ErrTimeout) {
					return nil, asAPIError(server1, sim.ErrTimeout)
				}
				alone, heard = true, -1
			}
		}
		// server-1 is cut off: take the write alone, and say it is not known
		// whether it took effect.
		var o kube.Object
		switch q := req.(type) {
		case kube.CreateRequest:
			o = q.Object
		case kube.UpdateRequest:
			o = q.Object
		}
		if o.Kind != "" {
			for _, x := range r {
				o.ResourceVersion = max(o.ResourceVersion, x.ResourceVersion)
			}
			for _, x := range own {
				o.ResourceVersion = max(o.ResourceVersion, x.ResourceVersion)
			}
			o.ResourceVersion++
			keep(p, copyRecord{Object: o, Own: true})
		}
		return nil, asAPIError(server1, sim.ErrTimeout)
	})
}

// copyRecord is one change server-2 of the split brain logs to its disk: a
// copy of server-1's (which replaces what server-2 took alone), or a write
// server-2 took alone (Own).
type copyRecord struct {
	Object       kube.Object
	Deleted, Own bool
}

// apply applies the change to server-1's objects r and server-2's own.
func (rec copyRecord) apply(r, own replica) {
	k := rec.Object.Key()
	switch {
	case rec.Own:
		own[k] = rec.Object
	case rec.Deleted:
		delete(r, k)
		delete(own, k)
	default:
		r[k] = rec.Object
		delete(own, k)
	}
}
