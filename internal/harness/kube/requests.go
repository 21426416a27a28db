package kube

import (
	"slices"
	"time"

	"onehistory/internal/harness/sim"
)

// Request is one request a client made, whole: who asked which server what,
// when it asked, when the answer (or the client's giving up) came, and what
// the answer was. Unlike the checkers' history (Client.Record), the log
// keeps every kind of request: reads in either mode, lists, watches and
// writes, as they were sent.
type Request struct {
	Client       string
	Server       sim.NodeID
	Ask          any // GetRequest, ListRequest, CreateRequest, UpdateRequest, DeleteRequest or WatchRequest
	Call, Return time.Duration
	Reply        any   // Object, List or []Event (nil: a watch that brought nothing, or an error)
	Err          error // the API error the client returned (ErrTimeout when no answer came in time)
	Refused      bool  // the server was not reached: the request was not handled
}

// Latest reports whether the request is a read (Get or List) that asked for
// the latest state.
func (r Request) Latest() bool {
	switch a := r.Ask.(type) {
	case GetRequest:
		return a.Opts.ResourceVersion == Latest
	case ListRequest:
		return a.Opts.ResourceVersion == Latest
	}
	return false
}

// Requests is a log of requests, in the order they were answered, that
// clients write to (Client.Log). The zero Requests is ready to use.
type Requests struct{ all []Request }

// Add logs r as a client would have: for a test of a judge that reads the
// log, which writes what the clients saw without running them.
func (l *Requests) Add(r Request) { l.all = append(l.all, r) }

// All lists the requests logged so far.
func (l *Requests) All() []Request { return slices.Clone(l.all) }

// Of lists the requests logged so far whose Ask is an A: Of[ListRequest](l).
func Of[A any](l *Requests) []Request {
	var out []Request
	for _, r := range l.all {
		if _, ok := r.Ask.(A); ok {
			out = append(out, r)
		}
	}
	return out
}

// requestLog is one log a client writes to, and its name there.
type requestLog struct {
	l    *Requests
	name string
}

// Log returns a client that also writes every request it makes, of every
// kind, to l, under the client's name. Like Record, it adds l and never
// takes a log away, and Log(nil) adds nothing.
func (c *Client) Log(l *Requests) *Client {
	d := *c
	if l != nil {
		d.logs = append(slices.Clip(c.logs), requestLog{l: l, name: c.name})
	}
	return &d
}

// logged writes the request x made to each of the client's logs, and its
// note if the client is Noted.
func (x *exchange) logged(ask, reply any, err error) {
	r := Request{Client: x.c.name, Server: x.server, Ask: ask,
		Call: x.start, Return: x.c.p.Now(), Reply: reply, Err: err, Refused: x.refused}
	for _, lg := range x.c.logs {
		r.Client = lg.name
		lg.l.all = append(lg.l.all, r)
	}
	if x.c.noted != nil && !x.c.quiet {
		r.Client = x.c.name
		x.c.p.Logf("%s", x.c.noted(r))
	}
}
