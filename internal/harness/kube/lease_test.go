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

func lease(holder string, renew time.Duration, transitions int64) kube.Object {
	return kube.Object{Kind: "leases", Name: "controller", Lease: kube.LeaseSpec{
		Holder: holder, LeaseDurationSeconds: 15, AcquireTime: renew, RenewTime: renew, Transitions: transitions}}
}

// A lease is an object like any other: a renewal is a change with its own
// version, written conditionally on the version read, and the history
// records who held it and when by the holder's clock.
func TestALeaseIsAnObjectWhoseRenewalsAreChanges(t *testing.T) {
	inWorld(t, func(p *sim.Proc) {
		s := kube.NewMemStore(0)
		l, err := s.Create(p, lease("controller-a", 1000*ms, 1))
		require.NoError(t, err)
		renewed := l
		renewed.Lease.RenewTime = 3000 * ms
		renewed, err = s.Update(p, renewed)
		require.NoError(t, err)
		assert.Equal(t, int64(2), renewed.ResourceVersion, "a renewal that changes only the renew time is a change")

		_, err = s.Update(p, l) // controller-b, with what it read before the renewal
		assert.ErrorIs(t, err, kube.ErrConflict, "two takers of one lease: the second's write is conditional on what it read")
		same, err := s.Update(p, renewed)
		require.NoError(t, err)
		assert.Equal(t, int64(2), same.ResourceVersion, "writing the record as it stands is no change")

		assert.Equal(t, "leases/controller{holder=controller-a duration=15s acquired=1000ms renewed=3000ms transitions=1 rv=2}", renewed.String())
		assert.Equal(t, []check.Change{
			{Version: 1, Key: "leases/controller", Value: "holder=controller-a duration=15s acquired=1000ms renewed=1000ms transitions=1"},
			{Version: 2, Key: "leases/controller", Value: "holder=controller-a duration=15s acquired=1000ms renewed=3000ms transitions=1"},
		}, s.Changes())
	})
}

// Kleppmann's fencing token, as a store decides it: controller-a decided
// to create a pod while it held the lease with token 1, then paused;
// controller-b took the lease (token 2). controller-a's write arrives late
// and is refused, whatever it believes; controller-b's is accepted. A write
// with no fence is not judged by any lease.
func TestAWriteWhoseLeaseHasPassedIsFencedOff(t *testing.T) {
	inWorld(t, func(p *sim.Proc) {
		s := kube.NewMemStore(0)
		l, _ := s.Create(p, lease("controller-a", 1000*ms, 1))
		tokenA := kube.Fence{LeaseKey: "leases/controller", Token: 1}
		created, err := s.Create(p, kube.Object{Kind: "pods", Name: "web-1", Owner: "deployments/web", Fence: tokenA})
		require.NoError(t, err, "the holder's write, under its token")
		assert.Equal(t, kube.Fence{}, created.Fence, "a fence is a condition, never stored")

		taken := l
		taken.Lease = kube.LeaseSpec{Holder: "controller-b", LeaseDurationSeconds: 15, AcquireTime: 75400 * ms, RenewTime: 75400 * ms, Transitions: 2}
		_, err = s.Update(p, taken)
		require.NoError(t, err)

		_, err = s.Create(p, kube.Object{Kind: "pods", Name: "web-6", Owner: "deployments/web", Fence: tokenA})
		assert.ErrorIs(t, err, kube.ErrFenced)
		assert.EqualError(t, err, `Fenced (409): write to pods/web-6 fenced off: it carries token 1 of leases/controller, but the lease is at token 2, held by "controller-b"`)
		created.Replicas, created.Fence = 1, tokenA
		_, err = s.Update(p, created)
		assert.ErrorIs(t, err, kube.ErrFenced, "an update is fenced as a create is")

		_, err = s.Create(p, kube.Object{Kind: "pods", Name: "web-3", Owner: "deployments/web", Fence: kube.Fence{LeaseKey: "leases/controller", Token: 2}})
		assert.NoError(t, err, "the new holder's write")
		_, err = s.Create(p, kube.Object{Kind: "pods", Name: "web-4", Owner: "deployments/web", Fence: kube.Fence{LeaseKey: "leases/other", Token: 1}})
		assert.ErrorIs(t, err, kube.ErrFenced, "a lease that does not exist fences every write")
		_, err = s.Create(p, kube.Object{Kind: "pods", Name: "web-5", Owner: "deployments/web"})
		assert.NoError(t, err, "an unfenced write")
		assert.Len(t, s.Changes(), 5, "the refused writes left no trace")
	})
}
