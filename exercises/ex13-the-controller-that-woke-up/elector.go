package ex13

import (
	"errors"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// LeaseKey is the lease the controllers elect their leader through.
const LeaseKey = "leases/controller"

// The lease's timing, client-go's defaults for the core controllers.
const (
	// LeaseDuration is how long a lease holds after its last renewal.
	LeaseDuration = 15 * time.Second
	// RenewDeadline is how long a leader may go without a confirmed
	// renewal before it must stop acting.
	RenewDeadline = 10 * time.Second
	// RetryPeriod is how often an elector tries to take or renew the
	// lease.
	RetryPeriod = 2 * time.Second
)

// Elector takes part in the election for one controller: it takes the lease
// when it is free, renews it while it holds it, and tells its controller
// whether it may act.
type Elector struct {
	id      string
	api     *kube.Client
	leading bool
}

// NewElector starts the election for controller id on p's node, talking to
// the API server through api: it tries to take or renew the lease every
// RetryPeriod, in a process of its own, until the node crashes.
func NewElector(p *sim.Proc, api *kube.Client, id string) *Elector {
	e := &Elector{id: id, api: api}
	p.Go("elector", func(p *sim.Proc) {
		api := e.api.For(p)
		for {
			e.tryAcquireOrRenew(p, api)
			p.Sleep(RetryPeriod)
		}
	})
	return e
}

// tryAcquireOrRenew reads the lease, and writes it as ours if it is free,
// expired or ours already.
func (e *Elector) tryAcquireOrRenew(p *sim.Proc, api *kube.Client) {
	now := p.Clock()
	l, err := api.Get(LeaseKey, kube.ReadOptions{})
	if errors.Is(err, kube.ErrNotFound) {
		_, err := api.Create(kube.Object{Kind: "leases", Name: "controller", Lease: kube.LeaseSpec{
			Holder: e.id, LeaseDurationSeconds: int(LeaseDuration / time.Second), AcquireTime: now, RenewTime: now, Transitions: 1}})
		e.leading = err == nil
		return
	}
	if err != nil {
		return
	}
	// TODO(ex13): the lease's RenewTime was written by its holder's clock,
	// not this node's: two clocks can disagree by any amount. Judge expiry
	// by when this elector saw the record last change, on its own clock.
	expires := l.Lease.RenewTime + time.Duration(l.Lease.LeaseDurationSeconds)*time.Second
	if l.Lease.Holder != e.id && now < expires {
		e.leading = false
		return
	}
	if l.Lease.Holder != e.id {
		l.Lease.Holder, l.Lease.AcquireTime = e.id, now
		l.Lease.Transitions++
	}
	l.Lease.RenewTime = now
	_, err = api.Update(l) // conditional on the version read: two takers cannot both win
	switch {
	case err == nil:
		e.leading = true
	case errors.Is(err, kube.ErrConflict):
		e.leading = false
	}
}

// Leading reports whether the controller may act now as the leader, and the
// fence every write it makes on that belief must carry.
func (e *Elector) Leading(p *sim.Proc) (kube.Fence, bool) {
	// TODO(ex13): a leader that has not renewed for RenewDeadline on its own
	// clock cannot know it still holds the lease. And a belief can be stale
	// by the time a write arrives (a pause between the decision and the
	// write): hand out the lease's token, so that the store can refuse the
	// writes of a leader whose lease has passed on.
	return kube.Fence{}, e.leading
}
