package scene_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// lonely is the naive pair: each server keeps its own store and tells no one.
func lonely(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
	kube.Serve(p, kube.NewMemStore(0))
}

// twoWriters builds the scene of Failure 03: web created on server-1, then
// scaled to 5 through server-1 and to 2 through server-2, audited at 3s.
func twoWriters(seed int64, boot scene.Boot) *scene.Scene {
	s := scene.New(seed, boot)
	s.Client("controller-a", func(p *sim.Proc, api *kube.Client) {
		api.Pin("server-1").Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3})
		p.Sleep(time.Second)
		api.Pin("server-1").Update(kube.Object{Kind: "deployments", Name: "web", Replicas: 5})
	})
	s.Client("controller-b", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(time.Second)
		api.Pin("server-2").Update(kube.Object{Kind: "deployments", Name: "web", Replicas: 2})
	})
	s.Inject(scene.SlowLink{A: "server-1", B: "server-2", Link: sim.Link{Min: 380 * time.Millisecond, Max: 400 * time.Millisecond},
		From: 900 * time.Millisecond, For: time.Second})
	s.AuditAt(3*time.Second, "deployments", "deployments/web")
	s.Run(10 * time.Second)
	return s
}

func TestTheNaivePairEndsWithTwoHistoriesAndTheStoryShowsTheFault(t *testing.T) {
	s := twoWriters(1, lonely)
	defer s.Close()
	require.True(t, s.Audited, "the auditor read every server")
	assert.Len(t, s.Histories["server-1"], 2, "server-1 holds the create and the scale to 5")
	assert.Empty(t, s.Histories["server-2"], "server-2 holds nothing: the update found no web there")
	assert.Equal(t, "slow link server-1 ↔ server-2 (380–400ms) from 900ms for 1000ms", s.Declared()[0].String())

	assert.Nil(t, scene.Ran(s), "the run itself went well")
	v := scene.Violated(check.Converged(s.States, s.AuditedAt))
	require.NotNil(t, v, "the servers hold different objects")
	f := s.Finish(*v)
	assert.Equal(t, "no-convergence", f.Name)
	assert.Equal(t, int64(1), f.Seed)
	assert.Contains(t, f.Timeline, "slow link server-1 ↔ server-2", "the timeline shows the declared fault")
}

func TestOneStoreBehindBothServersKeepsOneHistory(t *testing.T) {
	shared := kube.NewMemStore(0)
	one := func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) { kube.Serve(p, shared) }
	s := twoWriters(7, one)
	defer s.Close()
	for _, judge := range []scene.Judge[*scene.Scene]{scene.Ran, scene.OneHistory, scene.Durable, scene.Linearizable,
		func(s *scene.Scene) *suite.Failure { return scene.Violated(check.Converged(s.States, s.AuditedAt)) }} {
		assert.Nil(t, judge(s))
	}
	all, acked := s.Writes()
	assert.Equal(t, 3, all)
	assert.Equal(t, 3, acked)
	for _, c := range s.Longest() {
		assert.NotZero(t, c.At, "every change found its acknowledgement: %s", c)
	}
}

func TestFaultsDescribeThemselvesFromTheirOwnValues(t *testing.T) {
	assert.Equal(t, "partition server-1 | the rest from 1000ms for 2500ms",
		scene.Partition{Groups: [][]sim.NodeID{{"server-1"}}, From: time.Second, For: 2500 * time.Millisecond}.String())
	assert.Equal(t, "crash server-2 at 1500ms, restart 300ms later",
		scene.Crash{Node: "server-2", At: 1500 * time.Millisecond, For: 300 * time.Millisecond}.String())
	assert.Equal(t, "crash server-2 at 1500ms", scene.Crash{Node: "server-2", At: 1500 * time.Millisecond}.String())
	assert.Equal(t, "clock of server-3 skewed by -250ms from 0ms", scene.Skew{Node: "server-3", By: -250 * time.Millisecond}.String())
	assert.Equal(t, "link server-1 ↔ server-2 cut from 1000ms for 1500ms",
		scene.Cut{A: "server-1", B: "server-2", From: time.Second, For: 1500 * time.Millisecond}.String())
	assert.Equal(t, "slow link a ↔ b (5ms, 10% lost) from 0ms for 1ms",
		scene.SlowLink{A: "a", B: "b", Link: sim.Link{Min: 5 * time.Millisecond, Max: 5 * time.Millisecond, Drop: 0.1}, For: time.Millisecond}.String())
	assert.Equal(t, "disk of server-2 syncing in 300ms from 0ms", scene.SlowDisk{Node: "server-2", Sync: 300 * time.Millisecond}.String())
	assert.Equal(t, "disk of server-2 syncing in 300ms from 1000ms for 500ms",
		scene.SlowDisk{Node: "server-2", Sync: 300 * time.Millisecond, From: time.Second, For: 500 * time.Millisecond}.String())
	assert.Equal(t, "disk of store syncing in 200–2000ms from 1000ms for 500ms",
		scene.SlowDisk{Node: "store", Sync: 200 * time.Millisecond, Upto: 2 * time.Second, From: time.Second, For: 500 * time.Millisecond}.String())
	assert.Equal(t, "slow link a ↔ b (10–100ms, 5% up to 25000ms) from 0ms for 1ms",
		scene.SlowLink{A: "a", B: "b", Link: sim.Link{Min: 10 * time.Millisecond, Max: 100 * time.Millisecond, Tail: 0.05, TailMax: 25 * time.Second}, For: time.Millisecond}.String())
	assert.Equal(t, "pause controller-a from 60000ms for 20000ms",
		scene.Pause{Node: "controller-a", From: time.Minute, For: 20 * time.Second}.String())
	assert.Equal(t, "clock of controller-b running at 1.5× from 0ms", scene.ClockRate{Node: "controller-b", Rate: 1.5}.String())
	assert.Equal(t, "clock of controller-b running at 0.5× from 1000ms for 2000ms",
		scene.ClockRate{Node: "controller-b", Rate: 0.5, From: time.Second, For: 2 * time.Second}.String())
}

// A paused server answers nothing while the pause lasts and everything
// after, with what it held in memory; the world records the pause as a
// fault of its own kind, and a clock rate as another.
func TestAPauseAndAClockRateAreFaultsOfTheirOwn(t *testing.T) {
	var answered []time.Duration
	s := scene.New(1, func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			answered = append(answered, p.Now())
			return "ok", nil
		})
	}, scene.Servers(1))
	defer s.Close()
	s.W.AddNode("client", func(p *sim.Proc) {
		p.Sleep(200 * time.Millisecond)
		_, err := p.Call("server-1", "ping", 5*time.Second)
		assert.NoError(t, err)
	})
	s.Inject(scene.Pause{Node: "server-1", From: 100 * time.Millisecond, For: time.Second},
		scene.ClockRate{Node: "client", Rate: 2, From: 50 * time.Millisecond, For: 10 * time.Millisecond})
	require.NoError(t, s.W.Run(3*time.Second))
	require.Len(t, answered, 1)
	assert.Equal(t, 1100*time.Millisecond, answered[0], "the request queued through the pause and was handled at its end")
	var kinds []sim.FaultKind
	for _, f := range s.W.Faults() {
		kinds = append(kinds, f.Kind)
	}
	assert.Equal(t, []sim.FaultKind{sim.FaultClockRate, sim.FaultPause}, kinds)
	assert.Len(t, scene.DeclaredOf[scene.Pause](s), 1)
}

// syncsTake runs a scene of one server, under faults, to end; the server
// syncs its disk at each moment given. It returns the scene and how long
// each sync took.
func syncsTake(t *testing.T, moments []time.Duration, end time.Duration, faults ...scene.Fault) (*scene.Scene, []time.Duration) {
	var took []time.Duration
	syncs := func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
		for _, at := range moments {
			p.Sleep(at - p.Now())
			start := p.Now()
			p.Disk().Open("f").Sync(p)
			took = append(took, p.Now()-start)
		}
	}
	s := scene.New(1, syncs, scene.Servers(1))
	t.Cleanup(s.Close)
	s.Inject(faults...)
	require.NoError(t, s.W.Run(end))
	return s, took
}

// A slow disk makes every sync on it take its time while it lasts, and the
// world's again after.
func TestASlowDiskSyncsSlowlyWhileItLasts(t *testing.T) {
	_, took := syncsTake(t, []time.Duration{200 * time.Millisecond, 2 * time.Second}, 3*time.Second,
		scene.SlowDisk{Node: "server-1", Sync: 300 * time.Millisecond, From: 100 * time.Millisecond, For: time.Second})
	assert.Equal(t, []time.Duration{300 * time.Millisecond, time.Millisecond}, took, "slow from 100ms to 1100ms, the world's 1ms after")
}

// A disk slow over time: two episodes on one node, the first slow by
// turns (each sync in 200–2000ms), the second steadily; between and after
// them, the world's 1ms. Each episode is a slow-disk fault of its own.
func TestADiskSlowInEpisodesSyncsAsEachEpisodeSays(t *testing.T) {
	s, took := syncsTake(t, []time.Duration{5 * time.Second, 12 * time.Second, 21 * time.Second, 30 * time.Second}, time.Minute,
		scene.SlowDisk{Node: "server-1", Sync: 200 * time.Millisecond, Upto: 2 * time.Second, From: time.Second, For: 9 * time.Second},
		scene.SlowDisk{Node: "server-1", Sync: 500 * time.Millisecond, From: 20 * time.Second, For: 5 * time.Second})
	require.Len(t, took, 4)
	assert.GreaterOrEqual(t, took[0], 200*time.Millisecond)
	assert.LessOrEqual(t, took[0], 2*time.Second)
	assert.Equal(t, []time.Duration{time.Millisecond, 500 * time.Millisecond, time.Millisecond}, took[1:])
	faults := s.W.Faults()
	require.Len(t, faults, 2)
	for _, f := range faults {
		assert.Equal(t, sim.FaultSlowDisk, f.Kind)
		assert.Equal(t, "slow", f.Kind.Shade())
	}
	assert.Equal(t, "disk of server-1 syncing in 200–2000ms", faults[0].Desc)
}

func TestCrashAndPartitionTakeEffectAndEnd(t *testing.T) {
	s := scene.New(3, lonely, scene.Servers(3))
	s.Inject(scene.Crash{Node: "server-3", At: 100 * time.Millisecond, For: 200 * time.Millisecond},
		scene.Partition{Groups: [][]sim.NodeID{{"server-1"}}, From: 500 * time.Millisecond, For: 100 * time.Millisecond})
	var up, cut, healed bool
	s.W.At(200*time.Millisecond, func() { up = s.W.Up("server-3") })
	s.W.At(550*time.Millisecond, func() { cut = !s.W.Connected("server-1", "server-2") })
	s.W.At(650*time.Millisecond, func() { healed = s.W.Connected("server-1", "server-2") && s.W.Up("server-3") })
	require.NoError(t, s.Run(time.Second))
	defer s.Close()
	assert.False(t, up, "server-3 is down during its crash")
	assert.True(t, cut, "server-1 is cut off during the partition")
	assert.True(t, healed, "both faults ended")
	assert.Len(t, s.Faults, 2)
}

// A crash aimed mid-write strikes while the file holds appended bytes that
// are not yet synced, which a crash at a random moment seldom does: the
// disk reports what the crash did to them.
func TestCrashMidWriteStrikesBetweenAWriteAndItsSync(t *testing.T) {
	s := scene.New(5, nil, scene.WorldOptions(sim.DiskSyncLatency(10*time.Millisecond)))
	s.W.AddNode("writer", func(p *sim.Proc) {
		f := p.Disk().Open("log")
		for {
			p.Sleep(40 * time.Millisecond) // idle most of the time
			f.Append([]byte("record"))
			f.Sync(p)
		}
	})
	s.Inject(scene.CrashMidWrite{Node: "writer", File: "log", From: 105 * time.Millisecond, For: time.Second})
	require.NoError(t, s.Run(500*time.Millisecond))
	defer s.Close()
	losses := s.W.DiskLosses("writer")
	require.Len(t, losses, 1, "the crash found unsynced bytes")
	assert.Equal(t, 6, losses[0].Unsynced, "one whole record was appended and not synced")
	assert.Equal(t, "crash writer mid-write (unsynced bytes in log) after 105ms, restart 1000ms later", s.Declared()[0].String())
}

// etcd sits behind the API servers. The world's network reaches every node,
// so a controller could otherwise write to the one history around the
// servers a suite watches it through, or read it fresh where the story has
// it read a server's lagging view: etcd answers the servers only.
func TestANodeBehindTheServersAnswersThemOnly(t *testing.T) {
	s := scene.New(1, func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
		api := kube.NewClient(p, "etcd")
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			return api.For(p).Create(req.(kube.CreateRequest).Object)
		})
	}, scene.Servers(1))
	defer s.Close()
	store := kube.NewMemStore(0)
	s.W.AddNode("etcd", func(p *sim.Proc) { p.Serve(s.BehindServers(kube.Handler(store))) })
	var around, through error
	s.Client("controller", func(p *sim.Proc, api *kube.Client) {
		_, around = kube.NewClient(p, "etcd").Create(kube.Object{Kind: "pods", Name: "web-1"})
		_, through = api.Pin("server-1").Create(kube.Object{Kind: "pods", Name: "web-2"})
	})
	require.NoError(t, s.Run(time.Second))
	assert.EqualError(t, around, "Forbidden (403): etcd answers the API servers only, and controller is not one")
	assert.NoError(t, through)
	var names []string
	for _, o := range store.Objects() {
		names = append(names, o.Name)
	}
	assert.Equal(t, []string{"web-2"}, names, "only what came through a server")
}

// relayed is a request a server hands to the store with the client it
// relays for.
type relayed struct {
	by  sim.NodeID
	req any
}

func (r relayed) Unwrap() any { return r.req }

// The store behind the servers serves what a server relays wrapped, and
// tells each change it accepts: the request as it came, the change, and
// for a delete the object as it stood before. A watch that waited while
// the store changed is no change of its own.
func TestTheStoreTellsEachChangeItAccepts(t *testing.T) {
	s := scene.New(1, func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			return p.Call("etcd", relayed{from, req}, time.Second)
		})
	}, scene.Servers(1))
	defer s.Close()
	var told []string
	s.W.AddNode("etcd", s.Store(kube.NewMemStore(0), func(p *sim.Proc, from sim.NodeID, req any, o, before kube.Object) {
		r := req.(relayed)
		told = append(told, fmt.Sprintf("%s for %s via %s: %s, before rv=%d", r.req, r.by, from, o, before.ResourceVersion))
	}))
	var watched []kube.Event
	s.Client("watcher", func(p *sim.Proc, api *kube.Client) {
		watched, _ = api.Pin("server-1").Watch("pods", 0, 500*time.Millisecond)
	})
	s.Client("controller", func(p *sim.Proc, api *kube.Client) {
		c := api.Pin("server-1")
		p.Sleep(100 * time.Millisecond)
		c.Create(kube.Object{Kind: "pods", Name: "web-1"})
		c.Get("pods/web-1", kube.ReadOptions{ResourceVersion: kube.Latest})
		c.Delete("pods/web-1", 0)
	})
	require.NoError(t, s.Run(time.Second))
	assert.Equal(t, []string{
		"CREATE pods/web-1{rv=0} for controller via server-1: pods/web-1{rv=1}, before rv=0",
		"DELETE pods/web-1 for controller via server-1: pods/web-1{rv=2}, before rv=1",
	}, told)
	assert.Len(t, watched, 1, "the watch waited for the create")
}

// A server that answers the auditor's watch with nothing, or does not
// answer it, is told by what it did: never by a "<nil>" where an answer's
// type should be.
func TestTheAuditorTellsAnAnswerItCouldNotRead(t *testing.T) {
	for _, c := range []struct {
		name  string
		serve sim.Handler
		want  string
	}{
		{"nothing", func(_ *sim.Proc, _ sim.NodeID, req any) (any, error) {
			if _, ok := req.(kube.WatchRequest); ok {
				return []kube.Event{}, nil
			}
			return nil, nil
		}, "the suite could not read deployments/web from server-1: it answered nothing, not an object"},
		{"a string", func(*sim.Proc, sim.NodeID, any) (any, error) { return "events", nil },
			"the suite could not read server-1's history (a watch of deployments from resourceVersion 0): it answered a string, not a list of events"},
		{"silence", func(p *sim.Proc, _ sim.NodeID, _ any) (any, error) { p.Sleep(time.Hour); return nil, nil },
			"the suite could not read server-1's history (a watch of deployments from resourceVersion 0): " + sim.ErrTimeout.Error()},
	} {
		s := scene.New(1, func(p *sim.Proc, _ sim.NodeID, _ []sim.NodeID) { p.Serve(c.serve) }, scene.Servers(1))
		s.AuditAt(time.Second, "deployments", "deployments/web")
		s.Run(time.Minute)
		require.NotEmpty(t, s.Problems, c.name)
		assert.Equal(t, c.want, s.Problems[0], c.name)
		s.Close()
	}
}
