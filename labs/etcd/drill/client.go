package drill

import (
	"context"
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/check"
)

// DefaultTimeout bounds each request unless WithTimeout says otherwise.
const DefaultTimeout = 300 * time.Millisecond

// Client talks to the API servers for one Proc: through the balancer, which
// picks a server at random for each request, or pinned to one server. Its
// methods return copies; the zero Client is not usable (use NewClient).
type Client struct {
	p       *Proc
	servers []string
	pinned  string
	timeout time.Duration
	record  *check.History
}

// NewClient is a client of servers behind the balancer.
func NewClient(p *Proc, servers ...string) *Client {
	for _, s := range servers {
		p.c.server(s) // unknown names panic here, not mid-run
	}
	return &Client{p: p, servers: servers, timeout: DefaultTimeout}
}

// Pin returns a client that sends every request to server.
func (cl *Client) Pin(server string) *Client {
	cl.p.c.server(server)
	c := *cl
	c.pinned = server
	return &c
}

// WithTimeout returns a client whose requests give up after d.
func (cl *Client) WithTimeout(d time.Duration) *Client {
	c := *cl
	c.timeout = d
	return &c
}

// Record returns a client that also records every request in h, as
// check.Linearizable expects: the etcd revision is the version.
func (cl *Client) Record(h *check.History) *Client {
	c := *cl
	c.record = h
	return &c
}

func (cl *Client) pick() string {
	if cl.pinned != "" {
		return cl.pinned
	}
	return cl.servers[cl.p.rnd.IntN(len(cl.servers))]
}

// Get reads key from one server.
func (cl *Client) Get(key string) (Object, error) {
	name := cl.pick()
	s := cl.p.c.server(name)
	in := check.Read(key)
	done := cl.begin(name, in)
	ctx, cancel := context.WithTimeout(cl.p.ctx, cl.timeout)
	v, rev, found, err := s.Get(ctx, key)
	cancel()
	switch {
	case err != nil:
		err = classify(err)
		done(failure(err), false)
		return Object{}, fmt.Errorf("get %s from %s: %w", key, name, err)
	case !found:
		done(check.Fail(check.NotFound), false)
		return Object{}, fmt.Errorf("get %s from %s: %w", key, name, ErrNotFound)
	}
	done(check.Found(v, rev), false)
	return Object{Key: key, Value: v, Revision: rev, Server: name}, nil
}

// Put writes value to key on one server and returns the revision it
// created (0 if the server does not tell).
func (cl *Client) Put(key string, value int) (int64, error) {
	name := cl.pick()
	s := cl.p.c.server(name)
	done := cl.begin(name, check.Write(key, value))
	ctx, cancel := context.WithTimeout(cl.p.ctx, cl.timeout)
	rev, err := s.Put(ctx, key, value)
	cancel()
	if err != nil {
		err = classify(err)
		done(failure(err), true)
		return 0, fmt.Errorf("put %s=%d on %s: %w", key, value, name, err)
	}
	done(check.Acked(rev), true)
	return rev, nil
}

// begin records the call in the cluster's history (and the drill's, if it
// asked) and returns what records the return.
func (cl *Client) begin(server string, in check.Input) func(r check.Result, write bool) {
	c := cl.p.c
	at := c.Now()
	id := c.history.Call(cl.p.name, server, in, at)
	var mine check.OpID
	if cl.record != nil {
		mine = cl.record.Call(cl.p.name, server, in, at)
	}
	return func(r check.Result, write bool) {
		end := max(c.Now(), at)
		c.history.Return(id, r, end)
		if cl.record != nil {
			cl.record.Return(mine, r, end)
		}
		c.mu.Lock()
		c.requests = append(c.requests, request{client: cl.p.name, server: server, write: write, at: at, outcome: r.Outcome})
		c.mu.Unlock()
	}
}

// classify turns a server's error into ErrUnavailable (a refusal) or
// ErrTimeout (anything else: the request may have had its effect).
func classify(err error) error {
	if errors.Is(err, ErrUnavailable) {
		return ErrUnavailable
	}
	return ErrTimeout
}

func failure(err error) check.Result {
	if errors.Is(err, ErrUnavailable) {
		return check.Fail(check.Refused)
	}
	return check.Result{Outcome: check.Indefinite}
}
