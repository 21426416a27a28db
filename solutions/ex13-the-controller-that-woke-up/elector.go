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
//
// Every time it keeps is read from its own node's clock and compared only
// with other readings of the same clock: a lease's RenewTime, written by
// another node's clock, is never compared with this one. A clock set off by
// any constant changes nothing; a clock whose rate differs from the others'
// by less than LeaseDuration/RenewDeadline (1.5) keeps the leader stepping
// down before another can take over. Beyond that, and through any pause,
// only the fence keeps a deposed leader's writes out.
type Elector struct {
	id  string
	api *kube.Client

	observed   kube.LeaseSpec // the lease's record as this elector last saw it
	observedAt time.Duration  // our clock when we saw it change
	seen       bool           // whether we have seen it at all

	leading   bool
	token     int64         // the lease's Transitions when we took it
	renewedAt time.Duration // our clock when our last confirmed renewal began
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
// ours already, or has not been seen to change for LeaseDuration.
func (e *Elector) tryAcquireOrRenew(p *sim.Proc, api *kube.Client) {
	start := p.Clock() // a renewal counts from before its request left
	l, err := api.Get(LeaseKey, kube.ReadOptions{})
	if errors.Is(err, kube.ErrNotFound) {
		spec := kube.LeaseSpec{Holder: e.id, LeaseDurationSeconds: int(LeaseDuration / time.Second), AcquireTime: start, RenewTime: start, Transitions: 1}
		if _, err := api.Create(kube.Object{Kind: "leases", Name: "controller", Lease: spec}); err == nil {
			e.took(spec, start)
		}
		return
	}
	if err != nil {
		return // unknown: Leading steps down by itself once the deadline passes
	}
	if !e.seen || l.Lease != e.observed {
		e.observed, e.observedAt, e.seen = l.Lease, start, true
	}
	ours := l.Lease.Holder == e.id && e.leading && l.Lease.Transitions == e.token
	if !ours && l.Lease.Holder != "" && p.Clock() < e.observedAt+LeaseDuration {
		e.leading = false // another holds it, or held it this lease
		return
	}
	spec := l.Lease
	if !ours {
		spec.Holder, spec.AcquireTime = e.id, start
		spec.Transitions++
	}
	spec.RenewTime = start
	l.Lease = spec
	switch _, err := api.Update(l); {
	case err == nil:
		e.took(spec, start)
	case errors.Is(err, kube.ErrConflict):
		e.leading = false // someone else wrote it first
	}
}

// took records a confirmed write of the lease as ours.
func (e *Elector) took(spec kube.LeaseSpec, start time.Duration) {
	e.leading, e.token, e.renewedAt = true, spec.Transitions, start
	e.observed, e.observedAt, e.seen = spec, start, true
}

// Leading reports whether the controller may act now as the leader, and the
// fence every write it makes on that belief must carry: the lease's token,
// which the store checks when the write arrives, however late.
func (e *Elector) Leading(p *sim.Proc) (kube.Fence, bool) {
	if !e.leading || p.Clock()-e.renewedAt >= RenewDeadline {
		return kube.Fence{}, false
	}
	return kube.Fence{LeaseKey: LeaseKey, Token: e.token}, true
}
