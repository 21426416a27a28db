package lab

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/mirror"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"onehistory/labs/etcd/drill"
)

// Config is one of the lab's hidden configurations: real etcd, arranged so
// that it keeps the contract or breaks it in one known way.
type Config struct {
	Name   string // "correct", "serializable", "mirror", "two-singles"
	Broken bool   // whether a good drill must catch it
	// What is a sentence on what the configuration does, for the report.
	What string
	// Failure is the workbook failure it is a real instance of ("" if none).
	Failure string
	start   func() (*running, error)
}

// running is a started configuration: its servers, its faults, and how to
// tear it all down.
type running struct {
	servers []drill.Server
	faults  drill.Faults
	stop    func()
}

// Configs are the four configurations, in the order the lab runs them.
func Configs() []Config {
	return []Config{
		{Name: "correct", What: "three etcd members; each server is pinned to one member and reads linearizably",
			start: func() (*running, error) { return threeMembers(false) }},
		{Name: "serializable", Broken: true, Failure: "Failure 01 (a read that missed an acknowledged write)",
			What:  "the same three members, but each server answers reads from its member's local state (WithSerializable), etcd's nearest thing to a \"0\" read",
			start: func() (*running, error) { return threeMembers(true) }},
		{Name: "mirror", Broken: true, Failure: "asynchronous replication (ex04)",
			What:  "a three-member primary behind server-1 and a one-member copy behind server-2, fed asynchronously by etcd's client/v3/mirror; server-2 forwards writes to the primary and reads its copy",
			start: startMirror},
		{Name: "two-singles", Broken: true, Failure: "Failure 03 (two servers that each say yes)",
			What:  "two independent one-member etcd clusters, one behind each server: each accepts writes and neither hears of the other's",
			start: startTwoSingles},
	}
}

// server is an API server in front of one etcd member (or cluster).
type server struct {
	name         string
	reads        *clientv3.Client // where reads go
	writes       *clientv3.Client // where writes go
	serializable bool             // reads from the member's local state
	noRevisions  bool             // its revisions are its own, not the history's
}

func (s *server) Name() string { return s.name }

func (s *server) Get(ctx context.Context, key string) (int, int64, bool, error) {
	var opts []clientv3.OpOption
	if s.serializable {
		opts = append(opts, clientv3.WithSerializable())
	} else {
		// A linearizable read on a member without a leader would block to
		// its deadline; asking for a leader makes it refuse at once.
		ctx = clientv3.WithRequireLeader(ctx)
	}
	resp, err := s.reads.Get(ctx, key, opts...)
	if err != nil {
		return 0, 0, false, etcdError(err)
	}
	if len(resp.Kvs) == 0 {
		return 0, 0, false, nil
	}
	v, err := strconv.Atoi(string(resp.Kvs[0].Value))
	if err != nil {
		return 0, 0, false, fmt.Errorf("%s holds %q: not a number", key, resp.Kvs[0].Value)
	}
	rev := resp.Kvs[0].ModRevision
	if s.noRevisions {
		rev = 0
	}
	return v, rev, true, nil
}

func (s *server) Put(ctx context.Context, key string, value int) (int64, error) {
	resp, err := s.writes.Put(clientv3.WithRequireLeader(ctx), key, strconv.Itoa(value))
	if err != nil {
		return 0, etcdError(err)
	}
	return resp.Header.Revision, nil
}

// etcdError marks etcd's refusals (no leader, before anything was proposed)
// as drill.ErrUnavailable; anything else stays an error of unknown effect.
func etcdError(err error) error {
	if errors.Is(err, rpctypes.ErrNoLeader) || errors.Is(err, rpctypes.ErrGRPCNoLeader) ||
		rpctypes.ErrorDesc(err) == rpctypes.ErrNoLeader.Error() {
		return fmt.Errorf("%w: %v", drill.ErrUnavailable, err)
	}
	if st, ok := status.FromError(err); ok && st.Code() == codes.Unavailable && st.Message() == rpctypes.ErrNoLeader.Error() {
		return fmt.Errorf("%w: %v", drill.ErrUnavailable, err)
	}
	return err
}

// memberFaults isolates servers by cutting their member off from its peers.
type memberFaults struct {
	c     *etcdCluster
	index map[string]int
}

func (f memberFaults) Isolate(s string) {
	if i, ok := f.index[s]; ok {
		f.c.isolate(i)
	}
}

func (f memberFaults) Rejoin(s string) {
	if i, ok := f.index[s]; ok {
		f.c.rejoin(i)
	}
}

// threeMembers is "correct" (linearizable reads) or "serializable".
func threeMembers(serializable bool) (*running, error) {
	c, err := startCluster("m", 3)
	if err != nil {
		return nil, err
	}
	r := &running{stop: c.stop}
	f := memberFaults{c: c, index: map[string]int{}}
	for i, m := range c.members {
		name := fmt.Sprintf("server-%d", i+1)
		f.index[name] = i
		r.servers = append(r.servers, &server{name: name, reads: m.client, writes: m.client, serializable: serializable})
	}
	r.faults = f
	return r, nil
}

// startTwoSingles is two one-member clusters, one per server.
func startTwoSingles() (*running, error) {
	a, err := startCluster("a", 1)
	if err != nil {
		return nil, err
	}
	b, err := startCluster("b", 1)
	if err != nil {
		a.stop()
		return nil, err
	}
	return &running{
		servers: []drill.Server{
			&server{name: "server-1", reads: a.members[0].client, writes: a.members[0].client},
			&server{name: "server-2", reads: b.members[0].client, writes: b.members[0].client},
		},
		faults: noPeers{},
		stop:   func() { a.stop(); b.stop() },
	}, nil
}

// noPeers: a one-member cluster has no peers to lose.
type noPeers struct{}

func (noPeers) Isolate(string) {}
func (noPeers) Rejoin(string)  {}

// startMirror is a three-member primary and a one-member copy that
// client/v3/mirror feeds from the primary's watch.
func startMirror() (*running, error) {
	p, err := startCluster("primary", 3)
	if err != nil {
		return nil, err
	}
	cp, err := startCluster("copy", 1)
	if err != nil {
		p.stop()
		return nil, err
	}
	src, dst := p.members[0].client, cp.members[0].client
	ctx, cancel := context.WithCancel(context.Background())
	base, err := src.Get(ctx, "ready")
	if err != nil {
		cancel()
		cp.stop()
		p.stop()
		return nil, fmt.Errorf("reading the primary's revision: %w", err)
	}
	feed := &feed{resume: make(chan struct{})}
	close(feed.resume)
	var wg sync.WaitGroup
	// Not WithRequireLeader: the watch must outlive an isolation of the
	// member it is on.
	updates := mirror.NewSyncer(src, "", base.Header.Revision).SyncUpdates(ctx)
	wg.Go(func() { feed.run(ctx, updates, dst) })
	f := memberFaults{c: p, index: map[string]int{"server-1": 0}}
	return &running{
		servers: []drill.Server{
			&server{name: "server-1", reads: src, writes: src},
			&server{name: "server-2", reads: dst, writes: src, noRevisions: true},
		},
		faults: mirrorFaults{memberFaults: f, feed: feed},
		stop: func() {
			cancel()
			feed.Rejoin()
			wg.Wait()
			cp.stop()
			p.stop()
		},
	}, nil
}

// feed copies every change the primary's watch delivers to the copy, one
// at a time, after the primary has acknowledged it: asynchronous
// replication. Isolating the copy pauses the feed; the changes wait in the
// watch until it rejoins.
type feed struct {
	mu     sync.Mutex
	resume chan struct{} // closed while the feed runs
}

func (f *feed) run(ctx context.Context, updates clientv3.WatchChan, dst *clientv3.Client) {
	for resp := range updates {
		for _, ev := range resp.Events {
			f.mu.Lock()
			resume := f.resume
			f.mu.Unlock()
			select {
			case <-resume:
			case <-ctx.Done():
				return
			}
			switch ev.Type {
			case clientv3.EventTypePut:
				dst.Put(ctx, string(ev.Kv.Key), string(ev.Kv.Value)) //nolint:errcheck // a lost copy is the point
			case clientv3.EventTypeDelete:
				dst.Delete(ctx, string(ev.Kv.Key)) //nolint:errcheck
			}
		}
	}
}

// Isolate pauses the feed.
func (f *feed) Isolate() {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.resume:
		f.resume = make(chan struct{})
	default:
	}
}

// Rejoin resumes the feed.
func (f *feed) Rejoin() {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.resume:
	default:
		close(f.resume)
	}
}

// mirrorFaults: isolating server-1 cuts the primary's first member off from
// the others; isolating server-2 cuts the copy off from its feed.
type mirrorFaults struct {
	memberFaults
	feed *feed
}

func (f mirrorFaults) Isolate(s string) {
	if s == "server-2" {
		f.feed.Isolate()
		return
	}
	f.memberFaults.Isolate(s)
}

func (f mirrorFaults) Rejoin(s string) {
	if s == "server-2" {
		f.feed.Rejoin()
		return
	}
	f.memberFaults.Rejoin(s)
}
