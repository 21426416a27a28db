package disklog_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suites/disklog"
)

const ms = time.Millisecond

// web is entry i of a log: deployments/web scaled to replicas.
func web(i int64, replicas int) disklog.Entry {
	return disklog.Entry{Index: i, Event: kube.Event{Type: kube.Modified,
		Object: kube.Object{Kind: "deployments", Name: "web", Replicas: replicas, ResourceVersion: i}}}
}

func TestAnEntryCountsOnlyWhereItIsSyncedAtItsPosition(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) {
		f := p.Disk().Open(disklog.File)
		f.Append(disklog.Frame(web(1, 3)))
		f.Append(disklog.Frame(web(2, 5)))
		f.Sync(p)
		f.Append(disklog.Frame(web(3, 2))) // not synced
	})
	w.AddNode("server-2", func(p *sim.Proc) {
		f := p.Disk().Open(disklog.File)
		f.Append(disklog.Frame(web(2, 5))) // entry 2 at position 1
		f.Sync(p)
	})
	w.AddNode("server-3", func(p *sim.Proc) {})
	require.NoError(t, w.Run(time.Second))

	d := disklog.Decoder{}
	assert.True(t, d.Holds(w, "server-1", 2, "deployments/web", false, 5))
	assert.False(t, d.Holds(w, "server-1", 2, "deployments/web", false, 7), "another value at that position is another change")
	assert.False(t, d.Holds(w, "server-1", 3, "deployments/web", false, 2), "appended but not synced: a crash may take it")
	assert.False(t, d.Holds(w, "server-2", 2, "deployments/web", false, 5), "an entry at the wrong position of the log")
	assert.False(t, d.Holds(w, "server-3", 1, "deployments/web", false, 3), "a server that never opened its log holds nothing")
	assert.Len(t, d.Log(w, "server-1"), 2)
	assert.Equal(t, []string{"server-1"}, d.Holders(w, []sim.NodeID{"server-1", "server-2", "server-3"}, 2, "deployments/web", false, 5))
}

func TestAReadOfAnyKindMayShowOnlyWhatAMajorityHolds(t *testing.T) {
	s := scene.New(1, nil, scene.Servers(5))
	defer s.Close()
	for i, id := range s.Servers {
		s.W.AddNode(id, func(p *sim.Proc) {
			f := p.Disk().Open(disklog.File)
			f.Append(disklog.Frame(web(1, 3)))
			if i < 2 { // the leader and one follower cut off with it hold entry 2
				f.Append(disklog.Frame(web(2, 12)))
			}
			f.Sync(p)
		})
	}
	id := s.History.Call("writer", "server-1", check.Write("deployments/web", 12), 520*ms)
	s.History.Return(id, check.Result{Outcome: check.Indefinite}, 3520*ms)
	require.NoError(t, s.W.Run(time.Second))
	obj := func(replicas int, rv int64) kube.Object {
		return kube.Object{Kind: "deployments", Name: "web", Replicas: replicas, ResourceVersion: rv}
	}
	d := disklog.Decoder{}

	stale := disklog.Read{Client: "reader", Server: "server-2", How: disklog.AnyRead, Key: "deployments/web", Object: obj(3, 1)}
	assert.Nil(t, d.Uncommitted(s, 600*ms, stale), "a stale Any read of a committed change is no failure")

	ahead := disklog.Read{Client: "reader", Server: "server-2", How: disklog.AnyList, Key: "deployments/web", Object: obj(12, 2)}
	f := d.Uncommitted(s, 610*ms, ahead)
	require.NotNil(t, f, "server-2 showed a change only two of five disks hold")
	assert.Equal(t, "read-uncommitted", f.Name)
	assert.Equal(t, 610*ms, f.At)
	assert.Contains(t, f.Story, "server-2 answered reader's Any list of deployments/web with replicas=12 (rv 2, written by writer's write deployments/web=12 through server-1, sent at 520ms and answered indefinite at 3520ms) at 610ms")
	assert.Contains(t, f.Story, "only 2 of 5 servers' disks held it, synced (server-1, server-2) at position 2 of the log")
	assert.Contains(t, f.Story, "An Any list may be stale, an earlier point of the one history, but never ahead of it")
	assert.Contains(t, f.Details, "server-3    1 entries · 1: MODIFIED deployments/web{replicas=3 rv=1}\n")
}
