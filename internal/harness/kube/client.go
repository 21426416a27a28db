package kube

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/sim"
)

// DefaultTimeout is how long a Client waits for an answer, in virtual time,
// unless told otherwise (Client.WithTimeout). A watch waits its own wait on
// top of it.
const DefaultTimeout = time.Second

// Client is a kubectl-like client: it sends each request to one of the API
// servers it was given, as a load balancer would, and waits for the answer.
//
// A Client belongs to the process it was made for: only that process may
// use it. Give another process (a worker started with p.Go) its own with
// For, which shares the balancer and the recorder.
//
// Errors are the API's (match them with errors.Is: ErrNotFound, ErrConflict,
// ...), and the network's failures become API errors too: no answer in time
// is ErrTimeout (504, indefinite: the write may or may not have happened), a
// crashed server or one that serves nothing is ErrUnavailable (500: the
// request was not handled).
//
// The settings (Pin, Named, WithTimeout, RoundRobin, Record, Log, Quiet, Noted) each
// return a new Client and leave the one they are called on unchanged:
//
//	c := kube.NewClient(p, "server-1", "server-2").Named("controller-a").Record(h)
//	dashboard := c.Pin("server-2") // the dashboard reads server-2
//
// A client that records keeps recording: no setting stops it or changes the
// name its records carry (see Record). A suite that hands its code a
// recording client judges that code by what the client records, whatever
// the code does with it.
type Client struct {
	p          *sim.Proc
	name       string
	servers    []sim.NodeID
	pin        sim.NodeID
	timeout    time.Duration
	roundRobin bool
	next       *int     // the round-robin position, shared by For
	records    []record // where the client records, shared by For
	logs       []requestLog
	quiet      bool
	noted      func(Request) string // the note of each request, if not the client's own (Noted)
}

// record is one history a client records its operations in, and the name
// they are recorded under there.
type record struct {
	h    *check.History
	name string
}

// NewClient returns a client for process p that spreads its requests over
// servers, choosing one at random (from the world's seed) for each request.
// Its name, in the timeline and in recorded histories, is p's node.
func NewClient(p *sim.Proc, servers ...sim.NodeID) *Client {
	if len(servers) == 0 {
		panic("kube: NewClient needs at least one server")
	}
	return &Client{p: p, name: string(p.Node()), servers: servers, timeout: DefaultTimeout, next: new(int)}
}

// For returns a client with the same settings for another process of the
// same world; it shares the round-robin position and the recorder.
func (c *Client) For(p *sim.Proc) *Client { d := *c; d.p = p; return &d }

// Pin returns a client that sends every request to server, as a dashboard
// wired to one API server does.
func (c *Client) Pin(server sim.NodeID) *Client { d := *c; d.pin = server; return &d }

// Named returns a client that calls itself name: "controller-a",
// "dashboard". The histories it records in from then on (Record) know it by
// that name; those it records in already keep the name it had when it began
// to.
func (c *Client) Named(name string) *Client { d := *c; d.name = name; return &d }

// WithTimeout returns a client that waits at most d for each answer.
func (c *Client) WithTimeout(d time.Duration) *Client {
	if d <= 0 {
		panic(fmt.Sprintf("kube: WithTimeout(%v): a timeout must be positive", d))
	}
	e := *c
	e.timeout = d
	return &e
}

// RoundRobin returns a client that takes the servers in turn instead of at
// random.
func (c *Client) RoundRobin() *Client { d := *c; d.roundRobin = true; return &d }

// Quiet returns a client that writes no note to the timeline.
func (c *Client) Quiet() *Client { d := *c; d.quiet = true; return &d }

// Noted returns a client that writes note's line to the timeline for each
// request, once it is answered, in place of its own: a suite's own words
// for what its client asked and heard ("web=5 → yes rv 2").
func (c *Client) Noted(note func(Request) string) *Client { d := *c; d.noted = note; return &d }

// Record returns a client that records its operations in h for the checkers,
// under the client's name: Get and List (Latest reads only: an Any read
// promises no freshness, so it is not recorded) as reads, Create, Update
// (UpdateIfVersion with a precondition, Write without) and Delete as writes.
// Each object's value is Object.Value (a deployment's Replicas, a pod's
// Owner), with its resourceVersion. A timeout, or an error from a server that
// does not say the write had no effect (Unavailable, Timeout), is recorded as
// indefinite; a server that could not be reached as Refused. Watches are not
// recorded.
//
// Record adds h to the histories the client records in; it never takes one
// away, and Record(nil) adds nothing. So code handed a recording client
// cannot hide its operations from the history it records in, nor, with
// Named, record them under another's name.
func (c *Client) Record(h *check.History) *Client {
	d := *c
	if h != nil {
		d.records = append(slices.Clip(c.records), record{h: h, name: c.name})
	}
	return &d
}

// Name is the client's name: the one the histories it records in from now
// on know it by.
func (c *Client) Name() string { return c.name }

// Servers lists the servers the client may send to.
func (c *Client) Servers() []sim.NodeID {
	if c.pin != "" {
		return []sim.NodeID{c.pin}
	}
	return append([]sim.NodeID(nil), c.servers...)
}

// Get reads the object at key.
func (c *Client) Get(key string, opts ReadOptions) (Object, error) {
	x := c.begin(check.Read(key), opts.ResourceVersion == Latest)
	o, err := answer[Object](x, GetRequest{Key: key, Opts: opts}, c.timeout)
	x.end(err, check.Found(o.Value(), o.ResourceVersion))
	if x.noting() {
		x.note("GET "+key+readMode(opts), result(err, func() string { return body(o) }))
	}
	return o, err
}

// List reads every object of kind. Recorded, each item is one read of its
// key, all at the list's call and return times.
func (c *Client) List(kind string, opts ReadOptions) (List, error) {
	x := c.begin(check.Input{}, false)
	l, err := answer[List](x, ListRequest{Kind: kind, Opts: opts}, c.timeout)
	if err == nil && opts.ResourceVersion == Latest {
		for _, o := range l.Items {
			for _, r := range c.records {
				id := r.h.Call(r.name, string(x.server), check.ListItem(kind, o.Key()), x.start)
				r.h.Return(id, check.Found(o.Value(), o.ResourceVersion), c.p.Now())
			}
		}
	}
	if x.noting() {
		x.note("LIST "+kind+readMode(opts), result(err, func() string {
			return fmt.Sprintf("%d items rv=%d", len(l.Items), l.ResourceVersion)
		}))
	}
	return l, err
}

// Create stores a new object and returns it as stored, with its
// resourceVersion.
func (c *Client) Create(obj Object) (Object, error) {
	x := c.begin(check.Create(obj.Key(), obj.Value()), true)
	o, err := answer[Object](x, CreateRequest{Object: obj}, c.timeout)
	x.end(err, check.Acked(o.ResourceVersion))
	if x.noting() {
		x.note("CREATE "+obj.Key()+" "+fields(obj), result(err, func() string { return fmt.Sprintf("rv=%d", o.ResourceVersion) }))
	}
	return o, err
}

// Update replaces an object. A non-zero obj.ResourceVersion is a
// precondition: the answer is ErrConflict if the object has changed since.
func (c *Client) Update(obj Object) (Object, error) {
	in := check.Write(obj.Key(), obj.Value())
	if obj.ResourceVersion != 0 {
		in = check.UpdateIfVersion(obj.Key(), obj.Value(), obj.ResourceVersion)
	}
	x := c.begin(in, true)
	o, err := answer[Object](x, UpdateRequest{Object: obj}, c.timeout)
	x.end(err, check.Acked(o.ResourceVersion))
	if x.noting() {
		x.note("UPDATE "+obj.Key()+" "+fields(obj)+precondition(obj.ResourceVersion), result(err, func() string { return fmt.Sprintf("rv=%d", o.ResourceVersion) }))
	}
	return o, err
}

// Delete removes the object at key, conditionally on a non-zero
// resourceVersion. It returns the object as it was, with the
// resourceVersion of the deletion.
func (c *Client) Delete(key string, resourceVersion int64) (Object, error) {
	in := check.Delete(key)
	if resourceVersion != 0 {
		in = check.DeleteIfVersion(key, resourceVersion)
	}
	x := c.begin(in, true)
	o, err := answer[Object](x, DeleteRequest{Key: key, ResourceVersion: resourceVersion}, c.timeout)
	x.end(err, check.Acked(o.ResourceVersion))
	if x.noting() {
		x.note("DELETE "+key+precondition(resourceVersion), result(err, func() string { return fmt.Sprintf("rv=%d", o.ResourceVersion) }))
	}
	return o, err
}

// Watch returns the changes to kind after resourceVersion, waiting up to
// wait for at least one; an empty answer means none came. ErrGone means the
// server no longer holds resourceVersion: relist. The client waits wait plus
// its timeout for the answer. Only watches that bring events or fail are
// noted in the timeline.
func (c *Client) Watch(kind string, resourceVersion int64, wait time.Duration) ([]Event, error) {
	x := c.begin(check.Input{}, false)
	evs, err := answer[[]Event](x, WatchRequest{Kind: kind, ResourceVersion: resourceVersion, Wait: wait}, wait+c.timeout)
	if (err != nil || len(evs) > 0) && x.noting() {
		x.note(fmt.Sprintf("WATCH %s from rv=%d", kind, resourceVersion), result(err, func() string {
			parts := make([]string, len(evs))
			for i, ev := range evs {
				parts[i] = fmt.Sprintf("%s %s rv=%d", ev.Type, ev.Object.Name, ev.Object.ResourceVersion)
			}
			return strings.Join(parts, ", ")
		}))
	}
	return evs, err
}

// exchange is one request in progress: where it went and how it is recorded.
type exchange struct {
	c       *Client
	server  sim.NodeID
	start   time.Duration
	in      check.Input
	ids     []check.OpID // its call in each of the client's histories
	record  bool
	refused bool // the server was not reached: the request was not handled
}

// begin picks the server for the next request and records its call.
func (c *Client) begin(in check.Input, record bool) *exchange {
	x := &exchange{c: c, server: c.pick(), start: c.p.Now(), in: in, record: record && len(c.records) > 0}
	if x.record {
		for _, r := range c.records {
			x.ids = append(x.ids, r.h.Call(r.name, string(x.server), in, x.start))
		}
	}
	return x
}

func (c *Client) pick() sim.NodeID {
	switch {
	case c.pin != "":
		return c.pin
	case len(c.servers) == 1:
		return c.servers[0]
	case c.roundRobin:
		s := c.servers[*c.next%len(c.servers)]
		*c.next++
		return s
	}
	return c.servers[c.p.Rand().Intn(len(c.servers))]
}

// call sends req and turns the network's failures into API errors.
func (x *exchange) call(req any, timeout time.Duration) (any, error) {
	reply, err := x.c.p.Call(x.server, req, timeout)
	switch {
	case errors.Is(err, sim.ErrTimeout):
		err = StatusError{504, "Timeout", fmt.Sprintf("no answer from %s within %s; the request may or may not have taken effect", x.server, timeout)}
	case errors.Is(err, sim.ErrNodeDown):
		err, x.refused = Unavailable(string(x.server)+" is down (connection refused)"), true
	case errors.Is(err, sim.ErrUnreachable):
		err, x.refused = Unavailable(string(x.server)+" serves no requests"), true
	}
	return reply, err
}

// answer sends req and takes the reply as the type the request promises. A
// server that answers with something else has a bug; the client says so in
// an error, and the history treats the operation as one whose outcome is
// unknown. A watch may answer nil: no events. The request is logged with
// the error the client returns.
func answer[T any](x *exchange, req any, timeout time.Duration) (T, error) {
	reply, err := x.call(req, timeout)
	v, ok := reply.(T)
	if _, watch := any(v).([]Event); err == nil && !ok && !(watch && reply == nil) {
		err = fmt.Errorf("the server answered with %T where a %T was due: a bug in the server", reply, v)
	}
	x.logged(req, reply, err)
	return v, err
}

// end records how the operation ended: ok on success, else what err says
// about the store.
func (x *exchange) end(err error, ok check.Result) {
	if !x.record {
		return
	}
	now := x.c.p.Now()
	var r check.Result
	switch {
	case err == nil:
		r = ok
	case x.refused, errors.Is(err, ErrTooManyRequests):
		r = check.Fail(check.Refused)
	case errors.Is(err, ErrNotFound):
		r = check.Fail(check.NotFound)
	case errors.Is(err, ErrAlreadyExists):
		r = check.Fail(check.AlreadyExists)
	case errors.Is(err, ErrConflict):
		r = check.Fail(check.Conflict)
	default: // Timeout, Unavailable from a server, anything unknown: it may have happened
		r = check.Result{Outcome: check.Indefinite}
	}
	for i, rec := range x.c.records {
		rec.h.Return(x.ids[i], r, now)
	}
}

// note writes the operation's line in the timeline:
// "GET deployments/web @server-2 → replicas=3 rv=4".
func (x *exchange) note(what, came string) {
	x.c.p.Logf("%s", what+" @"+string(x.server)+" → "+came)
}

// noting reports whether the client writes its own note of each request
// to the timeline: the note's words are put together only then.
func (x *exchange) noting() bool { return !x.c.quiet && x.c.noted == nil }

// result is what an operation's note says it came to.
func result(err error, ok func() string) string {
	var se StatusError
	switch {
	case err == nil:
		return ok()
	case errors.As(err, &se):
		return se.Reason
	}
	return "error: " + err.Error()
}

// body is the object's fields without its key: "replicas=5 rv=12", what
// String says between the braces.
func body(o Object) string { return string(o.appendBody(make([]byte, 0, 48))) }

// fields is the object's fields without key and version: "replicas=5".
func fields(o Object) string { return strings.TrimSpace(string(o.appendFields(make([]byte, 0, 48)))) }

func precondition(rv int64) string {
	if rv == 0 {
		return ""
	}
	return fmt.Sprintf(" if rv=%d", rv)
}

func readMode(opts ReadOptions) string {
	if opts.ResourceVersion == Latest {
		return ""
	}
	return fmt.Sprintf(" (rv=%q)", opts.ResourceVersion)
}
