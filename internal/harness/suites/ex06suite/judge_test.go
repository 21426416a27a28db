package ex06suite

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// lonely servers say yes to every write they can and tell no one.
func lonely(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) { kube.Serve(p, kube.NewMemStore(0)) }

// oneStore is one store behind both servers: one history, whatever happens
// to the link between them.
func oneStore() scene.Boot {
	shared := kube.NewMemStore(0)
	return func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) { kube.Serve(p, shared) }
}

// A server that knows nothing of the other refuses controller-b's scale
// (web does not exist there): a cluster that says no is not the fix.
func TestTheStoryCountsRefusals(t *testing.T) {
	f := chapter(lonely).Verdict("story", "story", 1)
	require.NotNil(t, f)
	assert.Equal(t, "writes-refused", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, "only 2 of 3 writes sent while the servers' link was whole were accepted"), f.Story)
}

// One store behind both servers keeps one history in the story.
func TestOneStoreKeepsTheStoryToOneHistory(t *testing.T) {
	assert.Nil(t, chapter(oneStore()).Verdict("story", "story", 1))
}

// A write in flight when the link is cut, or sent just after, is not held
// against the cluster; one long before or after is.
func TestACutHoldsUpOnlyTheWritesAroundIt(t *testing.T) {
	s := scene.New(1, nil)
	defer s.Close()
	s.Inject(scene.Cut{A: server1, B: server2, From: 2 * time.Second, For: time.Second})
	op := func(call, ret time.Duration) check.Operation {
		return check.Operation{Input: check.Write("deployments/web", 1), Call: call, Return: ret, Result: check.Acked(1)}
	}
	assert.False(t, heldUp(s, op(0, 100*ms)), "long before")
	assert.True(t, heldUp(s, op(1900*ms, 2100*ms)), "in flight when the cut began")
	assert.True(t, heldUp(s, op(3000*ms+cutRecovery, 3000*ms+cutRecovery+time.Millisecond)), "just within the recovery")
	assert.False(t, heldUp(s, op(3001*ms+cutRecovery, 3100*ms+cutRecovery)), "after the recovery")
}

// A yes to deleting batch when it is already gone passes check.Durable as
// soon as anyone deletes batch once; counted, the yeses outnumber the
// deletions the history holds, and the one that names no deletion is told.
func TestAYesToDeletingWhatIsGoneIsALostWrite(t *testing.T) {
	const batch = "deployments/batch"
	h := check.NewHistory()
	op := func(client, server string, in check.Input, call, ret time.Duration, r check.Result) {
		h.Return(h.Call(client, server, in, call), r, ret)
	}
	op("controller-a", "server-1", check.Create(batch, 7), 0, 10*ms, check.Acked(1))
	op("controller-a", "server-1", check.Delete(batch), 20*ms, 30*ms, check.Acked(2))
	final := []check.Change{{Version: 1, Key: batch, Value: 7}, {Version: 2, Key: batch, Deleted: true}}

	// One yes, one deletion: nothing is missing.
	assert.Nil(t, unheldDelete(h, final))

	// controller-b is told yes to deleting what is gone, without a position.
	op("controller-b", "server-2", check.Delete(batch), 40*ms, 50*ms, check.Acked(0))
	require.Nil(t, check.Durable(h, final), "Durable's question cannot tell")
	v := unheldDelete(h, final)
	require.NotNil(t, v)
	assert.Equal(t, "lost-write", v.Name)
	assert.Equal(t, []check.OpID{2}, v.Ops)
	assert.True(t, strings.HasPrefix(v.Story, "server-2 acknowledged controller-b's delete deployments/batch at 50ms as rv 0, a position no change has. "+
		"Clients were told yes to 2 deletions of deployments/batch, but the final history of 2 changes holds 1"), v.Story)
}

// A server that makes a kube.Any read wait on the other server, gone for
// good, answers the auditor nothing: unanswered-read, naming the server
// and the key.
func TestAnAnyReadThatWaitsOnAServerGoneIsUnanswered(t *testing.T) {
	s := scene.New(1, func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
		store := kube.Handler(kube.NewMemStore(0))
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			if r, ok := req.(kube.GetRequest); ok && r.Opts.ResourceVersion == kube.Any {
				p.Sleep(time.Hour) // waits on a server that never answers
			}
			return store(p, from, req)
		})
	}, scene.RequestTimeout(requestTimeout))
	defer s.Close()
	s.AuditAt(time.Second, "deployments", web)
	s.Run(time.Minute)
	f := unansweredAnyRead(&world{Scene: s})
	require.NotNil(t, f)
	assert.Equal(t, "unanswered-read", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, `once the clients had stopped, the suite asked server-1 for deployments/web with kube.Any (resourceVersion "0") and got no answer in 4s`), f.Story)
}

// One store behind both servers is one history: every own-copy scene
// passes, on every seed the check runs.
func TestTheOwnCopyScenesPassOneStore(t *testing.T) {
	for _, v := range ocVariants {
		for seed := int64(1); seed <= ocSeeds; seed++ {
			f := chapter(oneStore()).Verdict("linearizable", "own-copy "+string(v), seed)
			assert.Nil(t, f, "seed %d, scene %s", seed, v)
		}
	}
}

// Servers that copy nothing show controller-b batch through server-1, where
// controller-a has just created it, and then refuse its deletion through
// server-2, which never heard of batch: the story tells the read, the
// refusal from the server's own copy, and the rule, and the details say
// what the scene built.
func TestARefusalFromTheFollowersOwnCopyIsToldAsTheScene(t *testing.T) {
	w := &world{Scene: ownCopyScene(1, lonely, ocDelete), ownCopy: true}
	defer w.Close()
	require.Nil(t, scene.Ran(w.Scene))
	f := linearizable(w)
	require.NotNil(t, f)
	assert.Equal(t, "non-linearizable", f.Name)
	assert.EqualValues(t, 1, f.Clause)
	assert.True(t, strings.HasPrefix(f.Story, "controller-b read deployments/batch=2 (rv 2) through server-1, the sequencer, at "), f.Story)
	assert.Contains(t, f.Story, "the effect of controller-a's create deployments/batch=2, sent there at ")
	assert.Contains(t, f.Story, "Then it asked server-2 to delete deployments/batch and was refused not-found at ")
	assert.Contains(t, f.Story, "No one deleted deployments/batch in between")
	assert.Contains(t, f.Story, "A server that is not the sequencer must ask it, not refuse a write on its own copy's word")
	assert.Contains(t, f.Details, "the scene, as built:\n  slow link server-1 → server-2 only (400ms) from ")
	assert.Contains(t, f.Details, "controller-a create deployments/batch=2 via server-1")
}

// finished is a world by hand: the clients' history and the servers'
// histories as the auditor read them.
func finished(h *check.History, one, two []check.Change, faults ...sim.Fault) *world {
	return &world{Scene: &scene.Scene{History: h, Servers: []sim.NodeID{server1, server2}, Histories: map[string][]check.Change{string(server1): one, string(server2): two},
		AuditedAt: auditAt, Faults: faults}}
}

// scaled records an acknowledged scale of key to value through server.
func scaled(h *check.History, client string, server sim.NodeID, key string, value int, call, ret time.Duration, rv int64) check.Change {
	id := h.Call(client, string(server), check.Write(key, value), call)
	h.Return(id, check.Acked(rv), ret)
	return check.Change{Version: rv, Key: key, Value: int64(value)}
}

// Each server ordering the writes to objects of its own is told by the
// split: which server alone holds changes to which objects. A follower
// that orders a write itself while the link is cut is told by the cut.
// A lost copy is not two sequencers.
func TestTwoSequencersAreToldByWhoOrderedWhat(t *testing.T) {
	const auth, cache = "deployments/auth", "deployments/cache"
	h := check.NewHistory()
	created := scaled(h, "kubectl", server1, web, 3, 0, 10*ms, 1)
	one, two := []check.Change{created}, []check.Change{created}
	for i := range 3 {
		at := time.Duration(400+100*i) * ms
		a := scaled(h, "controller-a", server1, web, 10+i, at, at+50*ms, int64(2+i))
		b := scaled(h, "controller-b", server2, auth, 20+i, at, at+50*ms, int64(2+i))
		one, two = append(one, a), append(two, b)
	}
	f := twoSequencers(finished(h, one, two))
	require.NotNil(t, f)
	assert.Equal(t, "two-sequencers", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, "server-1 and server-2 both gave out rv 2: server-1 gave it to controller-a's write deployments/web=10 (sent to server-1 at 400ms, answered yes at 450ms), "+
		"and server-2 gave it to controller-b's write deployments/auth=20 (sent to server-2 at 400ms, answered yes at 450ms); neither ever applied the other's change."), f.Story)
	assert.Contains(t, f.Story, "server-1's 3 are all to deployments/web and server-2's 3 all to deployments/auth: each server ordered the writes to objects of its own")

	h = check.NewHistory()
	created = scaled(h, "kubectl", server1, web, 3, 0, 10*ms, 1)
	a := scaled(h, "controller-a", server1, cache, 11, 1000*ms, 3000*ms, 2)
	b := scaled(h, "controller-b", server2, web, 12, 600*ms, 650*ms, 2)
	cut := sim.Fault{Kind: sim.FaultCut, Desc: "link server-1 ↔ server-2 cut", Start: 500 * ms, End: 2500 * ms}
	f = twoSequencers(finished(h, []check.Change{created, a}, []check.Change{created, b}, cut))
	require.NotNil(t, f)
	assert.Contains(t, f.Story, "Each write was sent to the server that holds it alone, while the servers' link was failing, and each server ordered the write it was sent")

	lost := finished(h, []check.Change{created, a}, []check.Change{created})
	assert.Nil(t, twoSequencers(lost))
	require.NotNil(t, lostCopy(lost))
	assert.Equal(t, "lost-copy", lostCopy(lost).Name)
}

// A yes that names another change's position is told with both: where the
// one history holds the write, and what stands at the position named. A
// yes at the write's own position passes.
func TestAYesAtAnotherChangesPositionIsMisnumbered(t *testing.T) {
	const api = "deployments/api"
	h := check.NewHistory()
	created := scaled(h, "kubectl", server1, api, 108, 0, 10*ms, 1)
	mine := scaled(h, "controller-a", server2, api, 126, 1008*ms, 1100*ms, 2)
	theirs := scaled(h, "controller-b", server1, api, 125, 1010*ms, 1050*ms, 3)
	final := []check.Change{created, mine, theirs}
	assert.Nil(t, misnumberedYes(finished(h, final, final)))

	h = check.NewHistory()
	scaled(h, "kubectl", server1, api, 108, 0, 10*ms, 1)
	scaled(h, "controller-a", server2, api, 126, 1008*ms, 1100*ms, 3) // its copy already held the next change
	scaled(h, "controller-b", server1, api, 125, 1010*ms, 1050*ms, 3)
	f := misnumberedYes(finished(h, final, final))
	require.NotNil(t, f)
	assert.Equal(t, "misnumbered-yes", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, "server-2 answered controller-a's write deployments/api=126 (sent at 1008ms) with rv 3 at 1100ms, "+
		"but the one history holds that write at rv 2, and at rv 3 deployments/api=125"), f.Story)
}

// copyMsg and orderMsg are what the servers of kindWorld send each other.
type (
	copyMsg  struct{}
	orderMsg struct{}
)

// kindWorld is a world whose server-1 begins every write it is sent with a
// copyMsg to server-2, as a sequencer sends its copies, and whose server-2
// does the same for creations and deletions but begins an update with an
// orderMsg, as a follower that sends it on (the stores copy nothing: only
// the messages count). kubectl creates web through server-1, then
// controller-b creates batch and scales web through server-2.
func kindWorld(t *testing.T) *world {
	boot := func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
		serve := kube.Handler(kube.NewMemStore(0))
		other := server2
		if self == server2 {
			other = server1
		}
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			switch req.(type) {
			case copyMsg, orderMsg:
				return nil, nil
			case kube.UpdateRequest:
				if self == server2 {
					p.Call(other, orderMsg{}, time.Second)
					break
				}
				p.Call(other, copyMsg{}, time.Second)
			case kube.CreateRequest, kube.DeleteRequest:
				p.Call(other, copyMsg{}, time.Second)
			}
			return serve(p, from, req)
		})
	}
	s := scene.New(1, boot)
	s.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		api.Pin(server1).Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3})
	})
	s.Client("controller-b", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(100 * ms)
		api = api.Pin(server2)
		api.Create(kube.Object{Kind: "deployments", Name: "batch", Replicas: 1})
		api.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 4})
		api.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: 5})
	})
	require.NoError(t, s.Run(5*time.Second))
	t.Cleanup(s.Close)
	return &world{Scene: s}
}

// A follower that orders creations and deletions itself and sends updates
// on is told by the kinds: its first message for each, and the sequencer's
// for the writes it orders. A write of the kind it sends on names no kind.
func TestTwoSequencersByKindNameTheKinds(t *testing.T) {
	w := kindWorld(t)
	ops := w.History.Operations()
	p := &scene.Parting{Holder: string(server1), Lacker: string(server2), Write: &ops[0], InsteadWrite: &ops[1]}
	assert.Equal(t, "server-2 ordered the creations it was sent itself, and sent only the updates on to server-1: "+
		"for each of the creations its first message to server-1 was copyMsg, as server-1's is for a write it orders, and for each of the updates it was orderMsg",
		byKind(w, p))

	p.InsteadWrite = &ops[len(ops)-1] // the update, sent on
	assert.Equal(t, "", byKind(w, p))
}

// howFar is what asking servers call each other with before a Latest get.
type howFar struct{}

// asking servers keep a store each and copy nothing, but before a Latest
// get they call the other server; a call refused because the other is
// down they take as leave to answer from their own store.
func asking(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
	serve := kube.Handler(kube.NewMemStore(0))
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		switch r := req.(type) {
		case howFar:
			return int64(0), nil
		case kube.GetRequest:
			if r.Opts.ResourceVersion == kube.Latest {
				for _, peer := range servers {
					if peer != self {
						p.Call(peer, howFar{}, time.Second)
					}
				}
			}
		}
		return serve(p, from, req)
	})
}

// In the peer-down scene the sequencer dies for good after showing
// dashboard-2 controller-a's scale: server-2, answering a Latest get from
// its own copy when its call to server-1 is refused, is told by that cause;
// one store behind both servers passes on every seed.
func TestAReadAnsweredWhileTheSequencerIsDownIsToldSo(t *testing.T) {
	w := &world{Scene: peerDownScene(1, asking)}
	t.Cleanup(w.Close)
	require.Nil(t, scene.Ran(w.Scene))
	f := ownCopyRead(w)
	require.NotNil(t, f)
	assert.Equal(t, "stale-read", f.Name)
	assert.Regexp(t, `^server-2 answered dashboard-[12]'s Latest get of deployments/web at [0-9.]+ms from its own copy, no deployments/web, `+
		`with no answer from server-1 .*\(it asked server-1 howFar at [0-9.]+ms and was refused at [0-9.]+ms: server-1 was down\) while crash server-1`, f.Story)
	assert.Contains(t, f.Story, "With server-1 down, server-2 could not know its copy was the latest")

	for seed := int64(1); seed <= ocSeeds; seed++ {
		assert.Nil(t, chapter(oneStore()).Verdict("linearizable", "peer down", seed), "seed %d", seed)
	}
}

// forwarding servers: server-1 keeps the one store, server-2 hands every
// request to it; with hide set, server-2 answers Unavailable whenever its
// call fails, server-1's own refusals included.
func forwarding(hide bool) scene.Boot {
	return func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
		if self == servers[0] {
			kube.Serve(p, kube.NewMemStore(0))
			return
		}
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			reply, err := p.Call(servers[0], req, 2*time.Second)
			if err != nil && hide {
				return nil, kube.Unavailable("server-1 did not say yes")
			}
			return reply, err
		})
	}
}

// A follower that answers Unavailable for a write the sequencer refused by
// the API's rules is told by that refusal; one that passes the refusal on
// is not.
func TestARefusalToldAsUnavailableIsHidden(t *testing.T) {
	var f *world
	for seed := int64(1); seed <= 20 && f == nil; seed++ {
		w := &world{Scene: workloadScene(seed, forwarding(true), 1, true)}
		t.Cleanup(w.Close)
		if refusalHidden(w) != nil {
			f = w
		}
	}
	require.NotNil(t, f, "some world of 20 has a refusal to hide")
	got := refusalHidden(f)
	assert.Equal(t, "refusal-hidden", got.Name)
	assert.Regexp(t, `^controller-[abc] asked server-2 to write \(.*\) at [0-9.]+ms; at [0-9.]+ms server-2 heard server-1 refuse a write: "(Conflict|NotFound|AlreadyExists) \(40[49]\): .*", and no client of server-2 was told so: controller-[abc] was answered at [0-9.]+ms with an answer that leaves its write open `, got.Story)

	for seed := int64(1); seed <= 5; seed++ {
		w := &world{Scene: workloadScene(seed, forwarding(false), 1, true)}
		t.Cleanup(w.Close)
		assert.Nil(t, refusalHidden(w), "seed %d", seed)
	}
}

// deleted records an acknowledged deletion of key through server, answered
// with rv.
func deleted(h *check.History, client string, server sim.NodeID, key string, call, ret time.Duration, rv int64) check.Change {
	h.Return(h.Call(client, string(server), check.Delete(key), call), check.Acked(rv), ret)
	return check.Change{Version: rv, Key: key, Deleted: true}
}

// A yes to a deletion at the deletion's own position passes. A follower
// that answers the same deletion with rv 0 (an empty answer, no object,
// no position) is told: the server, the client, when it was sent and
// answered, and where the one history holds the deletion.
func TestAYesToADeletionAtRvZeroIsMisnumbered(t *testing.T) {
	const batch = "deployments/batch"
	h := check.NewHistory()
	created := scaled(h, "kubectl", server1, batch, 2, 0, 10*ms, 1)
	gone := deleted(h, "controller-b", server2, batch, 400*ms, 450*ms, 2)
	final := []check.Change{created, gone}
	assert.Nil(t, misnumberedDelete(finished(h, final, final)), "a yes at the deletion's own rv")

	h = check.NewHistory()
	scaled(h, "kubectl", server1, batch, 2, 0, 10*ms, 1)
	deleted(h, "controller-b", server2, batch, 400*ms, 450*ms, 0) // answered empty
	f := misnumberedDelete(finished(h, final, final))
	require.NotNil(t, f)
	assert.Equal(t, "misnumbered-yes", f.Name)
	assert.Equal(t, 450*ms, f.At)
	assert.True(t, strings.HasPrefix(f.Story, "server-2 answered controller-b's delete deployments/batch (sent at 400ms) with yes and rv 0 at 450ms, "+
		"but the one history holds no change at rv 0 (it holds a deletion of deployments/batch at rv 2): the answer gave the deletion no place in the one history"), f.Story)
}

// A yes to a deletion that names the position of another change (here the
// follower's copy, a change behind, told the creation's rv) is told with
// what stands there and where the deletion is; a rv past the final
// history is lostWrite's, not this judge's.
func TestAYesToADeletionAtAnotherChangesPositionIsMisnumbered(t *testing.T) {
	const batch = "deployments/batch"
	h := check.NewHistory()
	created := scaled(h, "kubectl", server1, batch, 2, 0, 10*ms, 1)
	deleted(h, "controller-b", server2, batch, 400*ms, 450*ms, 1) // the position of the creation
	final := []check.Change{created, {Version: 2, Key: batch, Deleted: true}}
	f := misnumberedDelete(finished(h, final, final))
	require.NotNil(t, f)
	assert.Equal(t, "misnumbered-yes", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, "server-2 answered controller-b's delete deployments/batch (sent at 400ms) with yes and rv 1 at 450ms, "+
		"but at rv 1 the one history holds rv 1 deployments/batch=2 (it holds a deletion of deployments/batch at rv 2)"), f.Story)
	assert.Contains(t, f.Story, "A server answers a delete as it answers every write, with what the sequencer decided")

	h = check.NewHistory()
	scaled(h, "kubectl", server1, batch, 2, 0, 10*ms, 1)
	deleted(h, "controller-b", server2, batch, 400*ms, 450*ms, 3) // beyond the final history
	assert.Nil(t, misnumberedDelete(finished(h, final, final)), "a rv the final history does not reach is lostWrite's")
}
