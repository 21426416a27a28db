package ex04suite

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// lonely servers say yes to every write and tell no one: the survivor of
// the acknowledged scene holds nothing server-1 acknowledged.
func lonely(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) { kube.Serve(p, kube.NewMemStore(0)) }

// oneStore is one store behind both servers: one history, whatever happens
// to the link between them.
func oneStore() scene.Boot {
	shared := kube.NewMemStore(0)
	return func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) { kube.Serve(p, shared) }
}

// Lonely servers say yes to the creation of web and never copy it: the yes
// is told as a write server-2 never got, clause 3, not as a read or a
// timeout, both in the acknowledged scene, where server-1 is then cut off
// and dies, and in the story, whose suite reads server-2 seconds later. One
// store behind both servers loses nothing in either.
func TestAYesGivenBeforeTheCopyIsToldAsClauseThree(t *testing.T) {
	for _, c := range []struct {
		check   string
		seed    int64
		story   string // in the story
		details string // in the details
	}{
		{"acknowledged", 3, "(when the answer was received), then was cut off at ", "crash server-1 at "},
		{"story", 1, "server-2's history still did not hold it", "the scene: "},
	} {
		f := chapter(lonely).Verdict(c.check, c.check, c.seed)
		require.NotNil(t, f, c.check)
		assert.Equal(t, "lost-write", f.Name)
		assert.EqualValues(t, 3, f.Clause, "a yes before the change is anywhere else breaks clause 3")
		assert.True(t, strings.HasPrefix(f.Story, "server-1 told controller its create deployments/web=3 was accepted at "), f.Story)
		assert.Contains(t, f.Story, c.story)
		assert.Contains(t, f.Details, c.details, "the faults are described from their own values")
		assert.NotContains(t, f.Story, "never told yes", "lonely servers said yes to the scale as well")
		assert.Nil(t, chapter(oneStore()).Verdict(c.check, c.check, c.seed), c.check)
	}
}

// One store behind both servers is one history: every read-index scene
// passes the linearizable check, on every seed the check runs.
func TestTheReadIndexScenesPassOneStore(t *testing.T) {
	for _, ri := range riScenes {
		for seed := int64(1); seed <= riSeeds; seed++ {
			f := chapter(oneStore()).Verdict("linearizable", "read-index "+ri.name, seed)
			assert.Nil(t, f, "seed %d, scene %s", seed, ri.name)
		}
	}
}

// readIndexWorld is the read-index scene named name, of seed 1 between
// lonely servers, run to its end.
func readIndexWorld(t *testing.T, name string) *world {
	i := slices.IndexFunc(riScenes, func(ri riScene) bool { return ri.name == name })
	require.GreaterOrEqual(t, i, 0, name)
	w := &world{Scene: readIndexScene(1, lonely, riScenes[i]), readIndex: true}
	t.Cleanup(w.Close)
	require.Nil(t, scene.Ran(w.Scene))
	return w
}

// Servers that copy nothing show dashboard-2 the second scale through the
// writer's server and the first state through the other: the failure names
// the stale read and its clause, and its details retell the scene from its
// own values: the cut, the write it met, the rule.
func TestAReadIndexSceneRetellsItsCutsAndTheRule(t *testing.T) {
	f := linearizable(readIndexWorld(t, "second cut"))
	require.NotNil(t, f)
	assert.Equal(t, "stale-read", f.Name)
	assert.EqualValues(t, 1, f.Clause)
	assert.Contains(t, f.Details, "the scene, as built:\n  link server-1 ↔ server-2 cut from ")
	assert.Contains(t, f.Details, fmt.Sprintf("controller sent its write deployments/web=%d to ", riFirst))
	assert.Contains(t, f.Details, "a Latest read must ask the other server how far its history goes after the read began")
}

// The long cut outlasts several calls of any sensible timeout to the other
// server, yet a correct cluster that waits it out, and then a call's
// timeout more, answers within a client's requestTimeout.
func TestTheLongCutOutlastsTimeoutsButNotTheClients(t *testing.T) {
	assert.GreaterOrEqual(t, riCutLong, 3*time.Second)
	assert.Less(t, riCutLong+riJitter+2*time.Second, requestTimeout)
	assert.Less(t, riFirstCut+riJitter+riCutLong+riJitter+2*time.Second, riAuditAt, "the audit comes after the cut heals and the copies land")
}

// In the lost-ask scene the second cut meets a read, not a write: the
// retelling says that the call the lagging server made then to the other
// server was lost.
func TestTheLostAskSceneRetellsTheLostCall(t *testing.T) {
	f := linearizable(readIndexWorld(t, "lost ask"))
	require.NotNil(t, f)
	assert.Equal(t, "stale-read", f.Name)
	assert.Contains(t, f.Details, fmt.Sprintf("controller sent its write deployments/web=%d to ", riFirst))
	assert.Contains(t, f.Details, "dashboard-2 sent its read deployments/web to ")
	assert.Contains(t, f.Details, "made then to the other server was lost")
	assert.Contains(t, f.Details, "the read waits and asks again")
}

// asking servers keep a store each and copy nothing, but before a Latest
// get they call the other server; a call refused because the other is
// down they take as leave to answer from their own store. So do they
// before a Latest list.
func asking(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
	serve := kube.Handler(kube.NewMemStore(0))
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		latest := false
		switch r := req.(type) {
		case kube.GetRequest:
			latest = r.Opts.ResourceVersion == kube.Latest
		case kube.ListRequest:
			latest = r.Opts.ResourceVersion == kube.Latest
		}
		if latest {
			for _, peer := range servers {
				if peer != self {
					p.Call(peer, ReadIndex{}, time.Second)
				}
			}
		}
		if _, ok := req.(ReadIndex); ok {
			return int64(0), nil
		}
		return serve(p, from, req)
	})
}

// ReadIndex is what asking servers call each other with.
type ReadIndex struct{}

// In the peer-down scene the writer's server dies for good after showing
// dashboard-2 its scale: a server that answers a Latest read from its own
// copy when its call to the dead one is refused is told by that cause, the
// refusal and what its copy lacked; one store behind both servers, which
// lacks nothing, passes on every seed.
func TestAReadAnsweredWhileThePeerIsDownIsToldSo(t *testing.T) {
	w := &world{Scene: readIndexScene(1, asking, peerDownScene), readIndex: true}
	t.Cleanup(w.Close)
	require.Nil(t, scene.Ran(w.Scene))
	f := ownCopyRead(w)
	require.NotNil(t, f)
	assert.Equal(t, "stale-read", f.Name)
	assert.Regexp(t, `\(it asked server-[12] ReadIndex at [0-9.]+ms and was refused at [0-9.]+ms: server-[12] was down\) while crash server-[12] \(from [0-9.]+ms\)`, f.Story)
	assert.Contains(t, f.Story, "could not know its copy was the latest")
	assert.Contains(t, f.Details, "the scene, as built:")

	for seed := int64(1); seed <= riSeeds; seed++ {
		assert.Nil(t, chapter(oneStore()).Verdict("linearizable", "read-index "+peerDownScene.name, seed), "seed %d", seed)
	}
}
