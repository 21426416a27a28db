package scene_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// ping is what server-2 asks server-1 before it answers a get, in the
// servers of ownCopyWorld.
type ping struct{}

// ownCopyWorld is a world of two servers that each keep a store of their
// own and copy nothing: kubectl creates web through server-1, and at 100ms
// a reader gets web through server-2, which first calls server-1 with a
// ping (given up after wait) if wait is set. The faults are injected as
// given.
func ownCopyWorld(t *testing.T, wait time.Duration, faults ...scene.Fault) *scene.Scene {
	boot := func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
		serve := kube.Handler(kube.NewMemStore(0))
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			switch req.(type) {
			case ping:
				return "pong", nil
			case kube.GetRequest:
				if wait > 0 && self == "server-2" {
					p.Call("server-1", ping{}, wait)
				}
			}
			return serve(p, from, req)
		})
	}
	s := scene.New(1, boot)
	s.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		api.Pin("server-1").Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3})
	})
	s.Client("reader", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(100 * ms)
		api.Pin("server-2").Get(web, kube.ReadOptions{ResourceVersion: kube.Latest})
	})
	s.Inject(faults...)
	require.NoError(t, s.Run(time.Second))
	t.Cleanup(s.Close)
	return s
}

// A server that answers a Latest get from its own copy, without a word
// back from the other server after the read reached it, is told by that
// cause: which server answered which read when, what it asked the other
// (nothing, or a call it gave up under a cut), and the acknowledged write
// its copy lacked. A server that heard back from the other before it
// answered misused the answer, which Linearizable tells: not this judge.
func TestAReadAnsweredFromTheOwnCopyIsToldByItsCause(t *testing.T) {
	f := scene.OwnCopyRead(ownCopyWorld(t, 0))
	require.NotNil(t, f)
	assert.Equal(t, "stale-read", f.Name)
	assert.Equal(t, course.OneHistory, f.Clause)
	assert.Regexp(t, `^server-2 answered reader's Latest get of deployments/web at [0-9.]+ms from its own copy, no deployments/web, `+
		`without asking server-1 anything after the read reached it at [0-9.]+ms\. `+
		`Its copy lacked kubectl's create deployments/web=3 \(sent to server-1 at 0ms, answered yes at [0-9.]+ms\), before reader sent its read at 100ms\. `, f.Story)

	f = scene.OwnCopyRead(ownCopyWorld(t, 200*ms, scene.Cut{A: "server-1", B: "server-2", For: time.Second}))
	require.NotNil(t, f)
	assert.Regexp(t, `\(it asked server-1 ping at [0-9.]+ms and gave up waiting at [0-9.]+ms\) while link server-1 ↔ server-2 cut \(from 0ms to 1000ms\)\. `, f.Story)

	assert.Nil(t, scene.OwnCopyRead(ownCopyWorld(t, 200*ms)), "server-2 heard back from server-1 before it answered")
}

// A server that asks the other, is refused because the other is down, and
// answers from its own copy is told so: it could not know its copy was the
// latest. Refused is not heard from.
func TestAReadAnsweredFromTheOwnCopyWhileTheOtherIsDownIsToldSo(t *testing.T) {
	f := scene.OwnCopyRead(ownCopyWorld(t, 200*ms, scene.Crash{Node: "server-1", At: 50 * ms}))
	require.NotNil(t, f)
	assert.Equal(t, "stale-read", f.Name)
	assert.Regexp(t, `^server-2 answered reader's Latest get of deployments/web at [0-9.]+ms from its own copy, no deployments/web, `+
		`with no answer from server-1 to anything it asked after the read reached it at [0-9.]+ms `+
		`\(it asked server-1 ping at [0-9.]+ms and was refused at [0-9.]+ms: server-1 was down\) while crash server-1 \(from 50ms\)\. `+
		`Its copy lacked kubectl's create deployments/web=3 .*With server-1 down, server-2 could not know its copy was the latest`, f.Story)

	assert.Nil(t, scene.OwnCopyRead(ownCopyWorld(t, 200*ms, scene.Crash{Node: "server-1", At: 50 * ms, For: 10 * ms})),
		"server-1 was back, and answered, before server-2 answered")
}
