package kube

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/sim"
)

// Informer keeps a local copy of every object of one kind, as client-go's
// reflector and indexer do: it lists, then watches from the list's
// resourceVersion, applying each event to its cache and passing it to its
// handlers. When a watch fails because the server could not be reached or
// did not answer in time, it waits (with backoff) and watches again from the
// same resourceVersion, trusting the history to replay what it missed; on
// Gone it relists at once; on any other error it waits and relists.
//
// The cache lags by design: it is as fresh as the last event that arrived,
// from whichever server answered. A controller that acts on it acts on the
// past; that is the story of ex05.
//
// An informer runs in a background process of the node it was made on, and
// ends with Stop or when the node crashes (its cache is memory, and is gone
// with it). Handlers run in that process, in the order of the events: they
// must not block (add keys to a WorkQueue; do the work elsewhere).
type Informer struct {
	client *Client
	kind   string
	cfg    informerConfig

	cache    map[string]Object
	rv       int64
	synced   bool
	stopped  bool
	handlers []func(Event)
	sync     sim.Cond
}

type informerConfig struct {
	listRV     string
	wait       time.Duration
	minBackoff time.Duration
	maxBackoff time.Duration
}

// InformerOption configures an informer at NewInformer.
type InformerOption func(*informerConfig)

// ListFrom sets the read semantics of the informer's lists: Any ("0", the
// default, as client-go's first list) accepts a server's possibly stale
// view; Latest insists on the most recent state.
func ListFrom(resourceVersion string) InformerOption {
	return func(c *informerConfig) { c.listRV = resourceVersion }
}

// WatchWait sets how long each watch request waits for events before the
// informer asks again (default 1s).
func WatchWait(d time.Duration) InformerOption {
	return func(c *informerConfig) { c.wait = d }
}

// RetryBackoff sets how long the informer waits after an error before it
// relists: first min, doubling at each further error up to max (defaults
// 50ms and 1s). A successful list resets it.
func RetryBackoff(min, max time.Duration) InformerOption {
	return func(c *informerConfig) { c.minBackoff, c.maxBackoff = min, max }
}

// NewInformer starts an informer for kind on p's node, talking through c
// (it uses c.For with its own process). The first list happens as soon as p
// blocks; handlers registered before then see every object arrive.
func NewInformer(p *sim.Proc, c *Client, kind string, opts ...InformerOption) *Informer {
	cfg := informerConfig{listRV: Any, wait: time.Second, minBackoff: 50 * time.Millisecond, maxBackoff: time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	inf := &Informer{client: c, kind: kind, cfg: cfg, cache: map[string]Object{}, sync: sim.Cond{Name: "informer " + kind + " sync"}}
	p.Go("informer "+kind, inf.run)
	return inf
}

// OnChange registers a handler for every change the informer sees: the
// events of its watch and the differences a relist finds (Added for a new
// object, Modified for a changed one, Deleted for one that is gone). A handler
// registered after the first list is first told of every cached object as
// Added, as client-go does.
func (inf *Informer) OnChange(h func(ev Event)) {
	inf.handlers = append(inf.handlers, h)
	if inf.synced {
		for _, o := range inf.List() {
			h(Event{Type: Added, Object: o})
		}
	}
}

// Get returns the cached object at key.
func (inf *Informer) Get(key string) (Object, bool) {
	o, ok := inf.cache[key]
	return o, ok
}

// List returns every cached object, sorted by key.
func (inf *Informer) List() []Object { return sortedObjects(inf.cache) }

// HasSynced reports whether the first list has filled the cache.
func (inf *Informer) HasSynced() bool { return inf.synced }

// WaitForSync blocks p until the first list has filled the cache, and
// reports whether it did (false if the informer was stopped first).
func (inf *Informer) WaitForSync(p *sim.Proc) bool {
	for !inf.synced && !inf.stopped {
		inf.sync.Wait(p)
	}
	return inf.synced
}

// ResourceVersion is the version of the last change the cache reflects.
func (inf *Informer) ResourceVersion() int64 { return inf.rv }

// Stop ends the informer after its current request; the cache stays as it
// was.
func (inf *Informer) Stop() {
	inf.stopped = true
	inf.sync.Broadcast()
}

// run is the informer's loop: list, then watch until an error, again and
// again.
func (inf *Informer) run(p *sim.Proc) {
	c := inf.client.For(p)
	backoff := inf.cfg.minBackoff
	for !inf.stopped {
		l, err := c.List(inf.kind, ReadOptions{ResourceVersion: inf.cfg.listRV})
		if inf.stopped {
			return
		}
		if err != nil {
			p.Sleep(backoff)
			backoff = min(2*backoff, inf.cfg.maxBackoff)
			continue
		}
		backoff = inf.cfg.minBackoff
		inf.replace(l)
		for !inf.stopped {
			evs, err := c.Watch(inf.kind, inf.rv, inf.cfg.wait)
			if inf.stopped {
				return
			}
			if errors.Is(err, ErrGone) {
				break // the history no longer holds inf.rv: relist at once
			}
			if err != nil {
				p.Sleep(backoff)
				backoff = min(2*backoff, inf.cfg.maxBackoff)
				if resumable(err) {
					continue // watch again from where it stopped
				}
				break // something else went wrong: relist
			}
			backoff = inf.cfg.minBackoff
			for _, ev := range evs {
				if ev.Object.ResourceVersion > inf.rv {
					inf.apply(ev)
				}
			}
		}
	}
}

// resumable reports whether a failed watch can simply be tried again from
// the same resourceVersion, as client-go's reflector does when the server
// could not be reached, was busy, or did not answer in time: nothing says the
// history moved on without it, and the history will replay what it missed.
func resumable(err error) bool {
	return errors.Is(err, ErrUnavailable) || errors.Is(err, ErrTimeout) || errors.Is(err, ErrTooManyRequests)
}

// replace makes the cache the list's items and tells the handlers what
// changed.
func (inf *Informer) replace(l List) {
	var evs []Event
	seen := map[string]bool{}
	for _, o := range l.Items {
		seen[o.Key()] = true
		old, ok := inf.cache[o.Key()]
		switch {
		case !ok:
			evs = append(evs, Event{Type: Added, Object: o})
		case old != o:
			evs = append(evs, Event{Type: Modified, Object: o})
		}
	}
	for _, o := range inf.List() {
		if !seen[o.Key()] {
			evs = append(evs, Event{Type: Deleted, Object: o})
		}
	}
	inf.rv = l.ResourceVersion
	for _, ev := range evs {
		inf.store(ev)
		inf.notify(ev)
	}
	if !inf.synced {
		inf.synced = true
		inf.sync.Broadcast()
	}
}

// apply applies one watch event.
func (inf *Informer) apply(ev Event) {
	inf.rv = ev.Object.ResourceVersion
	inf.store(ev)
	inf.notify(ev)
}

func (inf *Informer) store(ev Event) {
	if ev.Type == Deleted {
		delete(inf.cache, ev.Object.Key())
	} else {
		inf.cache[ev.Object.Key()] = ev.Object
	}
}

func (inf *Informer) notify(ev Event) {
	for _, h := range inf.handlers {
		h(ev)
	}
}

// String is "informer pods (rv 12, 5 objects)".
func (inf *Informer) String() string {
	return fmt.Sprintf("informer %s (rv %d, %d objects)", inf.kind, inf.rv, len(inf.cache))
}
