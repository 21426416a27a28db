package ex04suite

import (
	"errors"
	"fmt"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// clientTimeout is how long a client waits for an answer. A request may
// cross the 400ms links several times (client, server-2, server-1 and back),
// so a correct server answers well within it.
const clientTimeout = 5 * time.Second

// client is a kubectl-like client that records every request it makes in
// the history the checkers read: what it asked, of which server, when, and
// what it was told.
type client struct {
	p *sim.Proc
	h *check.History
}

// get reads key from server with a Latest read.
func (c client) get(server sim.NodeID, key string) (kube.Object, error) {
	op := c.h.Call(string(c.p.Node()), string(server), check.Read(key), c.p.Now())
	reply, err := c.p.Call(server, kube.GetRequest{Key: key, Opts: kube.ReadOptions{ResourceVersion: kube.Latest}}, clientTimeout)
	obj, _ := reply.(kube.Object)
	switch {
	case err == nil:
		c.h.Return(op, check.Found(obj.Replicas, obj.ResourceVersion), c.p.Now())
		c.p.Logf("read %s → %d (rv %d)", short(key), obj.Replicas, obj.ResourceVersion)
	case errors.Is(err, kube.ErrNotFound):
		c.h.Return(op, check.Fail(check.NotFound), c.p.Now())
		c.p.Logf("read %s → not found", short(key))
	default:
		c.end(op, err, "read "+short(key))
	}
	return obj, err
}

// peek reads key from server with a kube.Any read (whatever that server's
// copy holds), without recording it: how the suite inspects a server.
func (c client) peek(server sim.NodeID, key string) (kube.Object, error) {
	reply, err := c.p.Call(server, kube.GetRequest{Key: key, Opts: kube.ReadOptions{ResourceVersion: kube.Any}}, clientTimeout)
	obj, _ := reply.(kube.Object)
	return obj, err
}

// create creates deployment key with replicas on server.
func (c client) create(server sim.NodeID, key string, replicas int) (kube.Object, error) {
	kind, nm := kube.SplitKey(key)
	op := c.h.Call(string(c.p.Node()), string(server), check.Create(key, replicas), c.p.Now())
	return c.write(op, server, kube.CreateRequest{Object: kube.Object{Kind: kind, Name: nm, Replicas: replicas}}, "create "+short(key))
}

// scale sets deployment key's replicas on server: unconditionally when rv is
// 0, as kubectl scale does, and otherwise only if the deployment is still
// at resourceVersion rv, as a controller's update is.
func (c client) scale(server sim.NodeID, key string, replicas int, rv int64) (kube.Object, error) {
	kind, nm := kube.SplitKey(key)
	in, what := check.Write(key, replicas), fmt.Sprintf("scale %s to %d", nm, replicas)
	if rv != 0 {
		in, what = check.UpdateIfVersion(key, replicas, rv), fmt.Sprintf("scale %s to %d if rv %d", nm, replicas, rv)
	}
	op := c.h.Call(string(c.p.Node()), string(server), in, c.p.Now())
	return c.write(op, server, kube.UpdateRequest{Object: kube.Object{Kind: kind, Name: nm, Replicas: replicas, ResourceVersion: rv}}, what)
}

// short is the object's name alone, for the timeline's narrow lanes.
func short(key string) string {
	_, n := kube.SplitKey(key)
	return n
}

func (c client) write(op check.OpID, server sim.NodeID, req any, what string) (kube.Object, error) {
	reply, err := c.p.Call(server, req, clientTimeout)
	obj, _ := reply.(kube.Object)
	switch {
	case err == nil:
		c.h.Return(op, check.Acked(obj.ResourceVersion), c.p.Now())
		c.p.Logf("%s → ok (rv %d)", what, obj.ResourceVersion)
	case errors.Is(err, kube.ErrConflict):
		c.h.Return(op, check.Fail(check.Conflict), c.p.Now())
		c.p.Logf("%s → conflict", what)
	case errors.Is(err, kube.ErrNotFound):
		c.h.Return(op, check.Fail(check.NotFound), c.p.Now())
		c.p.Logf("%s → not found", what)
	case errors.Is(err, kube.ErrAlreadyExists):
		c.h.Return(op, check.Fail(check.AlreadyExists), c.p.Now())
		c.p.Logf("%s → already exists", what)
	default:
		c.end(op, err, what)
	}
	return obj, err
}

// end records an answer that says nothing definite about the store. A
// timeout, or an error the client cannot tell from one (the server may have
// acted before failing), leaves the operation indefinite; only a refusal
// that cannot have taken effect (the server was unreachable) is Refused.
func (c client) end(op check.OpID, err error, what string) {
	if errors.Is(err, sim.ErrNodeDown) || errors.Is(err, sim.ErrUnreachable) || errors.Is(err, kube.ErrTooManyRequests) {
		c.h.Return(op, check.Fail(check.Refused), c.p.Now())
	} else {
		c.h.Timeout(op, c.p.Now())
	}
	c.p.Logf("%s → %v", what, err)
}
