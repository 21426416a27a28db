package drill_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suites/ex03suite/drill"
)

const ms = time.Millisecond

// Secret is what server-1 tells server-2 of each write: a message between
// the servers, which no client ever sees.
type Secret struct{ Cluster string }

// hidden builds a cluster the way the hidden suite does: two servers the
// drill knows only by name. server-1 serves a store, logs each request to
// its disk and tells server-2 which kind of cluster it is; server-2 only
// listens. At 50ms the cluster hurts itself: server-2 crashes, a fault of
// its own that is not the drill's.
func hidden(t *testing.T) (*sim.World, *drill.Cluster) {
	w := sim.New(1, sim.Latency(2*ms, 20*ms))
	t.Cleanup(w.Close)
	store := kube.NewMemStore(0)
	serve := kube.Handler(store)
	w.AddNode("server-1", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			p.Disk().Open("wal").Append([]byte("the broken one\n"))
			p.Send("server-2", Secret{Cluster: "acknowledged, then lost"})
			return serve(p, from, req)
		})
	})
	w.AddNode("server-2", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) { return nil, nil })
	})
	w.At(50*ms, func() { w.Crash("server-2") })
	return w, drill.New(w, "server-1", "server-2")
}

// A drill sees what a chaos engineer sees from outside: its clients' lanes
// and the faults it injected. Were the servers' lanes in its timeline, a
// drill could read which broken cluster it was handed from the servers'
// messages to each other, and catch it without running a single check.
func TestADrillsTimelineShowsItsClientsAndItsFaultsOnly(t *testing.T) {
	_, c := hidden(t)
	c.Client("writer", func(p *sim.Proc) {
		api := kube.NewClient(p, c.Servers()...).Pin("server-1")
		for i := range 3 {
			_, _ = api.Create(kube.Object{Kind: "deployments", Name: fmt.Sprint("web-", i), Replicas: 1})
			p.Sleep(40 * ms)
		}
	})
	c.At(100*ms, func() { c.Crash("server-1") })
	c.At(200*ms, func() { c.Restart("server-1") })
	require.NoError(t, c.Run(time.Second))

	tl := c.Timeline(sim.TimelineOptions{Wide: true})
	header, _, _ := strings.Cut(tl, "\n")
	assert.Contains(t, header, "writer")
	assert.NotContains(t, header, "server-1", "a server has no lane")
	assert.NotContains(t, header, "server-2", "a server has no lane")
	assert.Contains(t, tl, "CREATE deployments/web-0", "what the client did")
	assert.Contains(t, tl, "crash server-1", "the drill's own fault")
	assert.Contains(t, tl, "restart server-1", "the drill's own fault")
	for _, secret := range []string{"Secret", "acknowledged, then lost", "wal", "crash server-2"} {
		assert.NotContains(t, tl, secret, "the drill sees nothing of the servers' own doings")
	}

	// Its faults are the ones it injected, not the cluster's own.
	var faults []string
	for _, f := range c.Faults() {
		faults = append(faults, f.Desc)
	}
	assert.Equal(t, []string{"crash server-1"}, faults)

	// Asking for a server's lane is a misuse, said in the drill's terms.
	assert.PanicsWithError(t, `sim: misuse: drill: Timeline: "server-2" is not a client: a drill sees the servers only through what its clients are told`,
		func() { c.Timeline(sim.TimelineOptions{Columns: []sim.NodeID{"writer", "server-2"}}) })
}

// A client does not learn whether its request or the answer was lost: its
// lane shows that no answer came, not where the message died.
func TestADrillsTimelineDoesNotSayWhereAMessageWasLost(t *testing.T) {
	_, c := hidden(t)
	c.Client("reader", func(p *sim.Proc) {
		_, err := kube.NewClient(p, "server-1").WithTimeout(100*ms).Get("deployments/web", kube.ReadOptions{})
		assert.ErrorIs(t, err, kube.ErrTimeout)
	})
	c.Partition([]sim.NodeID{"server-1"})
	require.NoError(t, c.Run(time.Second))
	tl := c.Timeline(sim.TimelineOptions{Wide: true})
	assert.Contains(t, tl, "timed out")
	assert.NotContains(t, tl, "✗", "a lost message")
	assert.NotContains(t, tl, "partitioned")
	assert.Contains(t, tl, "partition server-1", "the drill's own partition")
}
