package kube

import (
	"fmt"

	"onehistory/internal/harness/sim"
)

// Serve makes p's node an API server: each request that arrives (GetRequest,
// ListRequest, CreateRequest, UpdateRequest, DeleteRequest, WatchRequest)
// runs as its own process and becomes the matching call on s, whose result
// travels back as the reply (an Object, a List or a []Event) with its error.
// A request of any other type is answered with an error.
//
// Serve returns at once; the node serves until it crashes. A restarted node
// serves nothing until its boot calls Serve again.
func Serve(p *sim.Proc, s Storage) {
	p.Serve(Handler(s))
}

// Handler is the sim.Handler Serve registers: for a node that serves other
// requests too (a replica's peer messages), call it for the API requests
// and handle the rest yourself.
func Handler(s Storage) sim.Handler {
	return func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		switch r := req.(type) {
		case GetRequest:
			return s.Get(p, r.Key, r.Opts)
		case ListRequest:
			return s.List(p, r.Kind, r.Opts)
		case CreateRequest:
			return s.Create(p, r.Object)
		case UpdateRequest:
			return s.Update(p, r.Object)
		case DeleteRequest:
			return s.Delete(p, r.Key, r.ResourceVersion)
		case WatchRequest:
			return s.Watch(p, r.Kind, r.ResourceVersion, r.Wait)
		}
		return nil, fmt.Errorf("kube: an API server does not understand %T", req)
	}
}

// IsRequest reports whether req is one of the API requests Handler serves.
func IsRequest(req any) bool {
	switch req.(type) {
	case GetRequest, ListRequest, CreateRequest, UpdateRequest, DeleteRequest, WatchRequest:
		return true
	}
	return false
}
