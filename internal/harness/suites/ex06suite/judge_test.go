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
