package kube_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// inWorld runs f as the one process of a fresh world, for store tests that
// need a *sim.Proc.
func inWorld(t *testing.T, f func(p *sim.Proc)) {
	t.Helper()
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", f)
	require.NoError(t, w.Run(time.Minute))
}

func TestMemStoreIsAHistoryEveryChangeTakesTheNextVersion(t *testing.T) {
	inWorld(t, func(p *sim.Proc) {
		s := kube.NewMemStore(0)
		web, err := s.Create(p, deployment("web", 3))
		assert.NoError(t, err)
		assert.Equal(t, int64(1), web.ResourceVersion, "the first change is rv 1")
		pod1, _ := s.Create(p, pod("web-1", "deployments/web"))
		assert.Equal(t, int64(2), pod1.ResourceVersion, "versions count changes across all keys, like etcd's revision")

		web.Replicas = 5
		web, err = s.Update(p, web)
		assert.NoError(t, err)
		assert.Equal(t, int64(3), web.ResourceVersion)

		gone, err := s.Delete(p, "pods/web-1", 0)
		assert.NoError(t, err)
		assert.Equal(t, int64(4), gone.ResourceVersion, "a deletion is a change too, with its own version")
		assert.Equal(t, "deployments/web", gone.Owner, "the deleted object comes back as it was")

		l, _ := s.List(p, "deployments", kube.ReadOptions{})
		assert.Equal(t, int64(4), l.ResourceVersion, "a list reports the history's position")
		assert.Equal(t, []kube.Object{web}, l.Items)

		assert.Equal(t, []check.Change{
			{Version: 1, Key: "deployments/web", Value: 3},
			{Version: 2, Key: "pods/web-1", Value: "deployments/web"},
			{Version: 3, Key: "deployments/web", Value: 5},
			{Version: 4, Key: "pods/web-1", Deleted: true, Value: "deployments/web"},
		}, s.Changes())
	})
}

func TestMemStoreAStaleUpdateIsAConflictAndAnUnconditionalOneIsNot(t *testing.T) {
	inWorld(t, func(p *sim.Proc) {
		s := kube.NewMemStore(0)
		read, _ := s.Create(p, deployment("web", 3))

		// controller-b scales to 5 while controller-a still holds rv 1.
		b := read
		b.Replicas = 5
		_, err := s.Update(p, b)
		assert.NoError(t, err)

		a := read
		a.Replicas = 8
		_, err = s.Update(p, a)
		assert.ErrorIs(t, err, kube.ErrConflict)
		assert.Equal(t, kube.Conflict("deployments/web", 1, 2), err, "the message names both versions")

		a.ResourceVersion = 0 // no precondition: last writer wins
		got, err := s.Update(p, a)
		assert.NoError(t, err)
		assert.Equal(t, 8, got.Replicas)

		_, err = s.Delete(p, "deployments/web", 1)
		assert.ErrorIs(t, err, kube.ErrConflict, "a delete can be conditional too")
		_, err = s.Create(p, deployment("web", 1))
		assert.ErrorIs(t, err, kube.ErrAlreadyExists)
		_, err = s.Update(p, deployment("api", 1))
		assert.ErrorIs(t, err, kube.ErrNotFound)
		_, err = s.Get(p, "deployments/api", kube.ReadOptions{ResourceVersion: kube.Any})
		assert.ErrorIs(t, err, kube.ErrNotFound)
	})
}

func TestMemStoreAWriteThatChangesNothingMakesNoNewVersion(t *testing.T) {
	inWorld(t, func(p *sim.Proc) {
		s := kube.NewMemStore(0)
		web, _ := s.Create(p, deployment("web", 5))
		again, err := s.Update(p, web)
		assert.NoError(t, err)
		assert.Equal(t, web, again, "the stored object comes back unchanged")
		assert.Equal(t, int64(1), s.ResourceVersion())
		assert.Len(t, s.Changes(), 1)
	})
}

func TestMemStoreWatchReplaysInOrderWaitsAndAnswersGoneWhenCompacted(t *testing.T) {
	inWorld(t, func(p *sim.Proc) {
		s := kube.NewMemStore(3)
		for i := 1; i <= 5; i++ {
			_, _ = s.Create(p, pod("web-"+string(rune('0'+i)), "deployments/web"))
		}
		// Five changes, three retained: rv 3, 4, 5.
		evs, err := s.Watch(p, "pods", 2, 0)
		assert.NoError(t, err)
		if assert.Len(t, evs, 3) {
			assert.Equal(t, []int64{3, 4, 5}, []int64{evs[0].Object.ResourceVersion, evs[1].Object.ResourceVersion, evs[2].Object.ResourceVersion})
		}
		_, err = s.Watch(p, "pods", 1, 0)
		assert.ErrorIs(t, err, kube.ErrGone, "rv 2 was compacted away: an informer at rv 1 must relist")
		assert.Equal(t, kube.Gone(1, 3), err)

		evs, err = s.Watch(p, "deployments", 5, 100*ms)
		assert.NoError(t, err)
		assert.Empty(t, evs, "nothing came within the wait")
		assert.Equal(t, 100*ms, p.Now(), "the watch waited its full wait")

		// A writer arrives 30ms later: the waiting watch answers at once.
		p.Go("writer", func(p *sim.Proc) {
			p.Sleep(30 * ms)
			_, _ = s.Create(p, deployment("web", 5))
		})
		evs, err = s.Watch(p, "deployments", 5, time.Second)
		assert.NoError(t, err)
		assert.Equal(t, []kube.Event{{Type: kube.Added, Object: kube.Object{Kind: "deployments", Name: "web", Replicas: 5, ResourceVersion: 6}}}, evs)
		assert.Equal(t, 130*ms, p.Now())
	})
}

func TestMemStoreProposeDecidesAndApplyOrdersAReplicaFollows(t *testing.T) {
	inWorld(t, func(p *sim.Proc) {
		leader, follower := kube.NewMemStore(0), kube.NewMemStore(0)
		ev, changed, err := leader.Propose(kube.CreateRequest{Object: deployment("web", 3)})
		assert.NoError(t, err)
		assert.True(t, changed)
		assert.Equal(t, int64(0), leader.ResourceVersion(), "Propose changes nothing")
		assert.NoError(t, leader.Apply(p, ev))
		assert.NoError(t, follower.Apply(p, ev))
		assert.Error(t, follower.Apply(p, ev), "a change applied twice is refused: versions only grow")

		_, changed, err = leader.Propose(kube.UpdateRequest{Object: ev.Object})
		assert.NoError(t, err)
		assert.False(t, changed, "writing the same object again changes nothing")
		_, _, err = leader.Propose(kube.DeleteRequest{Key: "deployments/web", ResourceVersion: 7})
		assert.ErrorIs(t, err, kube.ErrConflict)

		assert.Nil(t, check.OneHistory(map[string][]check.Change{"server-1": leader.Changes(), "server-2": follower.Changes()}))
		assert.Equal(t, leader.Objects(), follower.Objects())
	})
}

// A deployment has two fields two writers can change apart: Replicas and
// Image. A whole-object write-back carries both, so a writer that read an
// old copy erases the other's field; the history records both fields, so
// the erasure shows in it.
func TestMemStoreADeploymentsImageIsASecondFieldAWriteBackCarries(t *testing.T) {
	inWorld(t, func(p *sim.Proc) {
		s := kube.NewMemStore(0)
		web := deployment("web", 5)
		web.Image = "web:v1"
		read, err := s.Create(p, web)
		require.NoError(t, err)
		assert.Equal(t, "deployments/web{replicas=5 image=web:v1 rv=1}", read.String())

		scaled := read
		scaled.Replicas = 7
		_, err = s.Update(p, scaled)
		require.NoError(t, err)
		edited := read // an older copy: replicas 5
		edited.Image, edited.ResourceVersion = "web:v2", 0
		got, err := s.Update(p, edited)
		require.NoError(t, err, "an unconditional write-back is accepted")
		assert.Equal(t, 5, got.Replicas, "and it carried the old replica count with it")

		assert.Equal(t, []check.Change{
			{Version: 1, Key: "deployments/web", Value: "replicas=5 image=web:v1"},
			{Version: 2, Key: "deployments/web", Value: "replicas=7 image=web:v1"},
			{Version: 3, Key: "deployments/web", Value: "replicas=5 image=web:v2"},
		}, s.Changes())
		assert.Equal(t, 5, deployment("web", 5).Value(), "without an image the history records the replica count, as before")
	})
}
