package ex03suite

// What a drill never did: each broken cluster that only one part of a drill
// shows tells, when the drill misses it, which part that drill lacked, read
// from what its clients sent and were answered in the world's trace.

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// call is one request a drill's client sent, with the answer it got, if
// any (ok: an answer without an error; err: the error it came with).
type call struct {
	at, answered time.Duration
	client       sim.NodeID
	server       sim.NodeID
	req          any
	reply        any
	ok           bool
	err          error // the error it was answered with, if any
}

// calls lists the requests the drill's clients sent to the servers, in the
// order sent, each paired with its answer. An answer carries no request's
// name: it is paired with the oldest unanswered request of the same client
// to the same server about the same key (an object's, or the one an error
// names), or of the same kind for a list.
func calls(w *world) []*call {
	if w.sent == nil {
		w.sent = sent(w)
	}
	return w.sent
}

// sent pairs the requests the drill's clients sent with their answers, for
// calls.
func sent(w *world) []*call {
	clients, servers := w.drill.Clients(), w.drill.Servers()
	out := []*call{}
	waiting := map[[2]sim.NodeID][]*call{} // by client and server, oldest first
	take := func(at [2]sim.NodeID, match func(c *call) bool) *call {
		i := slices.IndexFunc(waiting[at], match)
		if i < 0 {
			return nil
		}
		c := waiting[at][i]
		waiting[at] = slices.Delete(waiting[at], i, i+1)
		return c
	}
	printed := map[*call]string{} // fmt.Sprint of each request a timeout was matched against, printed once
	for ev := range w.W.Trace().All() {
		if !slices.Contains(clients, ev.Node) || !slices.Contains(servers, ev.Peer) {
			continue
		}
		at := [2]sim.NodeID{ev.Node, ev.Peer}
		switch ev.Kind {
		case sim.EvSend:
			if kube.IsRequest(ev.Msg) {
				c := &call{at: ev.At, answered: -1, client: ev.Node, server: ev.Peer, req: ev.Msg}
				out = append(out, c)
				waiting[at] = append(waiting[at], c)
			}
		case sim.EvTimeout:
			msg := fmt.Sprint(ev.Msg)
			take(at, func(c *call) bool {
				s, ok := printed[c]
				if !ok {
					s = fmt.Sprint(c.req)
					printed[c] = s
				}
				return s == msg
			})
		case sim.EvRecvReply:
			var c *call
			switch r := ev.Msg.(type) {
			case kube.Object:
				c = take(at, func(c *call) bool { return keyOf(c.req) == r.Key() })
			case kube.List:
				c = take(at, func(c *call) bool { _, ok := c.req.(kube.ListRequest); return ok })
			}
			if c == nil && ev.Err != nil {
				c = take(at, func(c *call) bool { return keyOf(c.req) != "" && strings.Contains(ev.Err.Error(), keyOf(c.req)) })
			}
			if c == nil {
				c = take(at, func(*call) bool { return true })
			}
			if c != nil {
				c.answered, c.reply, c.ok, c.err = ev.At, ev.Msg, ev.Err == nil, ev.Err
			}
		}
	}
	return out
}

// keyOf is the key a request names, "" for a list or a watch.
func keyOf(req any) string {
	switch r := req.(type) {
	case kube.GetRequest:
		return r.Key
	case kube.CreateRequest:
		return r.Object.Key()
	case kube.UpdateRequest:
		return r.Object.Key()
	case kube.DeleteRequest:
		return r.Key
	}
	return ""
}

// neverAcknowledged: not one of the drill's writes was acknowledged (what
// they were answered, describe tells); a broken cluster shows nothing to a
// drill that changed nothing.
func neverAcknowledged(w *world) string {
	n := 0
	for _, c := range calls(w) {
		if kube.IsWrite(c.req) {
			n++
		}
	}
	if n == 0 {
		return "never sent a write"
	}
	return fmt.Sprintf("never had one of its %d writes acknowledged (what each server answered is below), so it changed nothing a cluster could lose or disagree on", n)
}

// lacksWriteThroughServer2: writes through server-1 only.
func lacksWriteThroughServer2(w *world) string {
	if slices.ContainsFunc(calls(w), func(c *call) bool { return kube.IsWrite(c.req) && c.server == server2 }) {
		return ""
	}
	return "never sent a write to server-2"
}

// lacksCrashAfterCut: the lost-write cluster loses most when server-1 goes
// down after server-2 missed copies, which only a partition makes it do (a
// crashed server-2 copies everything from server-1 when it boots). Told:
// no crash of server-1 at all, or crashes and no partition.
func lacksCrashAfterCut(w *world) string {
	faults := w.W.Faults()
	if !slices.ContainsFunc(faults, func(f sim.Fault) bool { return f.Kind == sim.FaultCrash && slices.Contains(f.Nodes, server1) }) {
		return "never crashed server-1, the server that holds the truth"
	}
	if !slices.ContainsFunc(faults, func(f sim.Fault) bool { return f.Kind == sim.FaultPartition }) {
		return "only ever crashed servers and never cut one off with a partition: a crashed server-2 boots and copies everything server-1 holds, " +
			"while a cut-off one misses the copies sent meanwhile for good, which server-1 going down next turns into lost writes"
	}
	return ""
}

// lacksFinalComparison: no partition; no write through server-2 in
// progress while one cut server-1 off (or shortly after: server-2 takes
// writes alone until it has heard from server-1 for catchUp); the servers'
// answers for a key, once every fault was over, differed and the drill did
// not compare them; or it never asked each server for the key of such a
// write once every fault was over. "" when it did all of that.
func lacksFinalComparison(w *world) string {
	faults := w.W.Faults()
	end := w.W.Now()
	apart := func(c *call) bool {
		till := c.answered
		if till < 0 {
			till = end
		}
		return slices.ContainsFunc(faults, func(f sim.Fault) bool {
			fEnd := end
			if !f.Open {
				fEnd = f.End + catchUp
			}
			return f.Kind == sim.FaultPartition && c.at <= fEnd && till >= f.Start &&
				slices.Contains(f.Nodes, server1) != slices.Contains(f.Nodes, server2)
		})
	}
	if !slices.ContainsFunc(faults, func(f sim.Fault) bool { return f.Kind == sim.FaultPartition }) {
		return "never cut a server off with a partition (a crash is another fault: a crashed server refuses at once, a cut-off one is silent)"
	}
	cs := calls(w)
	var taken []string // the keys of writes through server-2 while server-1 was cut off, in order
	for _, c := range cs {
		if kube.IsWrite(c.req) && c.server == server2 && apart(c) {
			taken = append(taken, keyOf(c.req))
		}
	}
	if len(taken) == 0 {
		return "never wrote through server-2 while a partition cut server-1 off"
	}
	over := time.Duration(0)
	for _, f := range faults {
		if f.Open {
			over = end
		}
		over = max(over, f.End)
	}
	held := map[string]map[sim.NodeID]kube.Object{} // what each server answered for a key once every fault was over
	hold := func(s sim.NodeID, o kube.Object) {
		if held[o.Key()] == nil {
			held[o.Key()] = map[sim.NodeID]kube.Object{}
		}
		held[o.Key()][s] = o
	}
	for _, c := range cs {
		if c.at < over || !c.ok {
			continue
		}
		switch r := c.reply.(type) {
		case kube.Object:
			if _, ok := c.req.(kube.GetRequest); ok {
				hold(c.server, r)
			}
		case kube.List:
			for _, o := range r.Items {
				hold(c.server, o)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(held)) {
		if a, b := held[k][server1], held[k][server2]; a.Kind != "" && b.Kind != "" && a != b {
			return fmt.Sprintf("read %s from server-1 as %s and from server-2 as %s once every fault was over, but never compared the two", k, a, b)
		}
	}
	for _, k := range slices.Backward(taken) {
		if len(held[k]) == 2 {
			continue
		}
		// A server it asked for k once every fault was over, that did not
		// answer: the drill asked too soon, and not again.
		for _, c := range cs {
			if c.at >= over && !c.ok && reads(c.req, k) && held[k][c.server].Kind == "" {
				return fmt.Sprintf("asked %s for %s (which it wrote through server-2 while server-1 was cut off) only %s after the last fault was over, "+
					"was not answered, and never asked again once the faults were well over", c.server, k, sim.FormatTime(c.at-over))
			}
		}
		return fmt.Sprintf("never read %s (which it wrote through server-2 while server-1 was cut off) from each server on its own once every fault was over", k)
	}
	return ""
}

// lacksDegradedFault: degraded mode stops copying writes to server-2 only
// once server-2 fails to answer, and shows it only when server-2, back,
// answers for a server-1 that is away. Told by the first step the drill
// never took: no write while server-2 was down or cut off; a crash of
// server-2 it never restarted; no read of server-2 on its own, or none
// answered, while server-1 was away after such a write.
func lacksDegradedFault(w *world) string {
	faults := w.W.Faults()
	end := w.W.Now()
	// away: at at, a crash or a partition had taken s away.
	away := func(s sim.NodeID, at time.Duration) (sim.Fault, bool) {
		for _, f := range faults {
			fEnd := f.End
			if f.Open {
				fEnd = end
			}
			if (f.Kind == sim.FaultCrash || f.Kind == sim.FaultPartition) && f.Touches(s) && at >= f.Start && at <= fEnd {
				return f, true
			}
		}
		return sim.Fault{}, false
	}
	cs := calls(w)
	first := time.Duration(-1) // the first write sent while server-2 was away
	for _, c := range cs {
		if _, ok := away(server2, c.at); ok && kube.IsWrite(c.req) {
			first = c.at
			break
		}
	}
	if first < 0 {
		return "never wrote while server-2 was down or cut off, the only time this cluster stops copying writes to server-2"
	}
	for _, f := range faults {
		if f.Kind == sim.FaultCrash && f.Open && f.Touches(server2) {
			return fmt.Sprintf("crashed server-2 at %s and never restarted it, so server-2 never came back to answer for server-1", sim.FormatTime(f.Start))
		}
	}
	asked, answered := 0, 0
	for _, c := range cs {
		if _, ok := away(server1, c.at); !ok || c.server != server2 || c.at < first || kube.IsWrite(c.req) || !kube.IsRequest(c.req) {
			continue
		}
		asked++
		if c.ok || errors.Is(c.err, kube.ErrNotFound) {
			answered++
		}
	}
	switch {
	case asked == 0:
		return "wrote while server-2 was away, but never read server-2 on its own while server-1 was down or cut off afterwards"
	case answered == 0:
		return fmt.Sprintf("read server-2 on its own %d times while server-1 was away, after writing while server-2 was, and had no answer: "+
			"server-2 refuses reads until server-1 has been away for %s, so a drill must ask again and again", asked, takeoverAfter)
	}
	return ""
}
