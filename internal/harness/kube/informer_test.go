package kube_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// writer creates pods web-1..web-n, one every gap, retrying each until it is
// acknowledged, then deletes web-1.
func writer(n int, gap time.Duration) func(p *sim.Proc) {
	return func(p *sim.Proc) {
		c := kube.NewClient(p, "server-1").Named("kubectl")
		for i := 1; i <= n; i++ {
			p.Sleep(gap)
			for {
				_, err := c.Create(pod(fmt.Sprintf("web-%d", i), "deployments/web"))
				if err == nil || errors.Is(err, kube.ErrAlreadyExists) {
					break
				}
				p.Sleep(gap)
			}
		}
		_, _ = c.Delete("pods/web-1", 0)
	}
}

func TestInformerListsThenWatchesAndItsHandlersSeeEveryChangeInOrder(t *testing.T) {
	w := sim.New(1, sim.Latency(400*ms, 400*ms))
	defer w.Close()
	store := kube.NewMemStore(0)
	_, _ = store.Create(nil, pod("web-0", "deployments/web"))
	w.AddNode("server-1", serveStore(store))
	w.AddNode("kubectl", writer(5, 300*ms))
	var inf *kube.Informer
	var seen []string
	var syncedAt time.Duration
	w.AddNode("controller", func(p *sim.Proc) {
		inf = kube.NewInformer(p, kube.NewClient(p, "server-1"), "pods")
		inf.OnChange(func(ev kube.Event) { seen = append(seen, fmt.Sprintf("%s %s", ev.Type, ev.Object.Name)) })
		assert.True(t, inf.WaitForSync(p))
		syncedAt = p.Now()
	})
	require.NoError(t, w.Run(10*time.Second))

	assert.Equal(t, 800*ms, syncedAt, "one list round trip over 400ms links")
	assert.Equal(t, []string{"ADDED web-0", "ADDED web-1", "ADDED web-2", "ADDED web-3", "ADDED web-4", "ADDED web-5", "DELETED web-1"}, seen)
	assert.Equal(t, store.Objects(), inf.List(), "the cache caught up with the store")
	assert.Equal(t, store.ResourceVersion(), inf.ResourceVersion())
}

func TestInformerRelistsWhenTheHistoryNoLongerHoldsItsVersion(t *testing.T) {
	w := sim.New(2)
	defer w.Close()
	store := kube.NewMemStore(2) // a short watch window
	w.AddNode("server-1", serveStore(store))
	w.AddNode("kubectl", func(p *sim.Proc) {
		p.Sleep(1150 * ms) // once the informer has listed and is watching
		writer(6, 20*ms)(p)
	})
	var inf *kube.Informer
	var seen []string
	w.AddNode("controller", func(p *sim.Proc) {
		inf = kube.NewInformer(p, kube.NewClient(p, "server-1"), "pods", kube.WatchWait(100*ms))
		inf.OnChange(func(ev kube.Event) { seen = append(seen, fmt.Sprintf("%s %s", ev.Type, ev.Object.Name)) })
	})
	// The controller is 400ms away. Its first watch brings web-1; by the
	// time its next watch arrives, four more pods were created and web-1
	// deleted: the window of two events has moved on.
	w.SetLinks("controller", "server-1", sim.Link{Min: 400 * ms, Max: 400 * ms})
	require.NoError(t, w.Run(5*time.Second))

	assert.Equal(t, store.Objects(), inf.List(), "after Gone, a relist caught up")
	assert.Contains(t, seen, "DELETED web-1", "the relist told the handlers what went away while it was not watching")
	gone := false
	for _, ev := range w.Trace().Events() {
		gone = gone || (ev.Kind == sim.EvNote && ev.Node == "controller" && strings.HasSuffix(ev.Text, "→ Gone"))
	}
	assert.True(t, gone, "the timeline shows the watch answered Gone")
}

func TestInformerCatchesUpAfterItsServerRestarts(t *testing.T) {
	w := sim.New(3, sim.Latency(5*ms, 50*ms))
	defer w.Close()
	store := kube.NewMemStore(0) // survives the restart, as a durable store would
	w.AddNode("server-1", serveStore(store))
	w.AddNode("kubectl", writer(8, 200*ms))
	var inf *kube.Informer
	w.AddNode("controller", func(p *sim.Proc) {
		inf = kube.NewInformer(p, kube.NewClient(p, "server-1"), "pods")
	})
	w.At(500*ms, func() { w.Crash("server-1") })
	w.At(1200*ms, func() { w.Restart("server-1") })
	require.NoError(t, w.Run(5*time.Second))

	assert.Len(t, store.Objects(), 7, "the writer got all eight pods in, and deleted one")
	assert.Equal(t, store.Objects(), inf.List(), "the informer came back and caught up")
}

func TestInformerCutOffResumesItsWatchInsteadOfRelisting(t *testing.T) {
	w := sim.New(4, sim.Latency(5*ms, 20*ms))
	defer w.Close()
	store := kube.NewMemStore(0)
	w.AddNode("server-1", serveStore(store))
	w.AddNode("kubectl", writer(6, 300*ms))
	var inf *kube.Informer
	w.AddNode("controller", func(p *sim.Proc) {
		inf = kube.NewInformer(p, kube.NewClient(p, "server-1").WithTimeout(200*ms), "pods", kube.WatchWait(100*ms))
	})
	// The controller is cut off while pods are created and web-1 deleted.
	w.At(700*ms, func() { w.Partition([]sim.NodeID{"controller"}) })
	w.At(2500*ms, func() { w.Heal() })
	require.NoError(t, w.Run(5*time.Second))

	assert.Equal(t, store.Objects(), inf.List(), "the informer caught up after the partition healed")
	// As client-go's reflector does, it watched again from the version it
	// had, and the history replayed what it missed: one list, at the start.
	lists := 0
	for _, ev := range w.Trace().Events() {
		if _, ok := ev.Msg.(kube.ListRequest); ok && ev.Kind == sim.EvSend && ev.Node == "controller" {
			lists++
		}
	}
	assert.Equal(t, 1, lists, "a partition is no reason to relist")
}
