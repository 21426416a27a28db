package ex03suite

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// nameChance is the failure of a drill whose comparison of the servers'
// copies went through the load balancer.
const nameChance = "comparison-left-to-chance"

// leftToChance judges a drill that compared the servers' copies through
// the load balancer: once every fault was over, one of its clients read
// both servers, and yet read one key (or listed one kind) two times or
// more from one server and never from the other. The balancer picks a server at random for each
// request, so whether such a client compared server-1's copy with
// server-2's, or one server's with itself, was chance: in this world it
// was the latter, whatever the cluster and whatever the drill concluded.
// A drill that compares pins each look to its server.
func leftToChance(w *world) *suite.Failure {
	if runs, _ := w.drill.Ran(); runs == 0 {
		return nil
	}
	over := time.Duration(0) // when the last fault was over
	for _, f := range w.W.Faults() {
		if f.Open {
			return nil // a fault never over: no comparison once it is
		}
		over = max(over, f.End)
	}
	type look struct {
		client sim.NodeID
		key    string
	}
	asked := map[look][]*call{}                     // the reads of each key by each client, once every fault was over
	askedOf := map[sim.NodeID]map[sim.NodeID]bool{} // the servers each client read then
	// The reads the drill's clients sent the servers once every fault was
	// over, as calls lists them: what they were answered does not matter
	// here, so they are read from the trace without pairing every request
	// of the run with its answer.
	clients, servers := w.drill.Clients(), w.drill.Servers()
	for ev := range w.W.Trace().All() {
		if ev.Kind != sim.EvSend || ev.At < over || !slices.Contains(clients, ev.Node) || !slices.Contains(servers, ev.Peer) {
			continue
		}
		var l look
		switch r := ev.Msg.(type) {
		case kube.GetRequest:
			l = look{ev.Node, r.Key}
		case kube.ListRequest:
			l = look{ev.Node, "the list of " + r.Kind}
		default:
			continue
		}
		c := &call{at: ev.At, answered: -1, client: ev.Node, server: ev.Peer, req: ev.Msg}
		asked[l] = append(asked[l], c)
		if askedOf[c.client] == nil {
			askedOf[c.client] = map[sim.NodeID]bool{}
		}
		askedOf[c.client][c.server] = true
	}
	for _, l := range slices.SortedFunc(maps.Keys(asked), func(a, b look) int {
		return int(asked[a][0].at - asked[b][0].at)
	}) {
		cs := asked[l]
		if len(cs) < 2 || len(askedOf[l.client]) < 2 || slices.ContainsFunc(cs, func(c *call) bool { return c.server != cs[0].server }) {
			continue
		}
		other := server1
		if cs[0].server == server1 {
			other = server2
		}
		return &suite.Failure{Name: nameChance, Clause: course.OneHistory, At: cs[0].at, Story: fmt.Sprintf(
			"your drill's %s read %s %d times once every fault was over (from %s on), and every one of those reads went to %s, none to %s, "+
				"though it read %s at that time: it asked through the load balancer, which picks a server at random for each request, "+
				"so whether it compared %s's copy with %s's was left to chance, and on the cluster %q (seed %d) it compared %s's with itself. "+
				"A drill compares the servers by pinning each look to its server (api.Pin(s))",
			l.client, l.key, len(cs), suite.FormatTime(cs[0].at), cs[0].server, other, other,
			server1, server2, w.cluster.name, w.Seed, cs[0].server)}
	}
	return nil
}
