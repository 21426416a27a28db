package ex08suite

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

// judged is a world with no servers running, whose history and audit the
// test writes by hand.
func judged(servers int) *world {
	return newWorld(scene.New(1, nil, scene.Servers(servers)), "deployments/web")
}

// op records one operation of client through server, from call to ret.
func op(w *world, client, server string, in check.Input, call, ret time.Duration, r check.Result) {
	id := w.History.Call(client, server, in, call)
	w.History.Return(id, r, ret)
}

func TestAnOlderWriteThatEveryServerHoldsIsTheStorysFailure(t *testing.T) {
	w := judged(3)
	op(w, "controller-a", "server-3", check.Write("deployments/web", 5), 1000*ms, 1010*ms, check.Acked(2))
	op(w, "controller-b", "server-1", check.Write("deployments/web", 2), 1200*ms, 1210*ms, check.Acked(3))
	w.States = map[string]map[string]any{"server-1": {"deployments/web": 5}, "server-2": {"deployments/web": 5}, "server-3": {"deployments/web": 5}}
	w.AuditedAt = 3000 * ms

	f := overwritten(w, "")
	require.NotNil(t, f)
	assert.Equal(t, "overwritten-by-older-write", f.Name)
	assert.Equal(t, 1210*ms, f.At, "the failure is the moment the lost write was acknowledged")
	assert.Contains(t, f.Story, "controller-b's write deployments/web=2 through server-1, acknowledged at 1210ms, is gone")
	assert.Contains(t, f.Story, "all 3 servers hold deployments/web=5, the value of controller-a's write")
}

func TestTheLastWriteStayingIsNoFailureAndNeitherIsALaggingServer(t *testing.T) {
	w := judged(3)
	op(w, "controller-a", "server-3", check.Write("deployments/web", 5), 1000*ms, 1010*ms, check.Acked(2))
	op(w, "controller-b", "server-1", check.Write("deployments/web", 2), 1200*ms, 1210*ms, check.Acked(3))
	w.States = map[string]map[string]any{"server-1": {"deployments/web": 2}, "server-2": {"deployments/web": 2}, "server-3": {"deployments/web": 2}}
	assert.Nil(t, overwritten(w, ""), "the later write is the one every server holds")

	w.States["server-3"] = map[string]any{"deployments/web": 5}
	assert.Nil(t, overwritten(w, ""), "servers that disagree have not converged: that is no-convergence, not this")

	w.States = map[string]map[string]any{"server-1": {"deployments/web": 5}, "server-2": {"deployments/web": 5}, "server-3": {"deployments/web": 5}}
	w.History = check.NewHistory()
	op(w, "controller-a", "server-3", check.Write("deployments/web", 5), 1000*ms, 1300*ms, check.Acked(2))
	op(w, "controller-b", "server-1", check.Write("deployments/web", 2), 1200*ms, 1210*ms, check.Acked(3))
	assert.Nil(t, overwritten(w, ""), "two writes that overlap may take effect in either order")
}

func TestARequestToAWholeClusterMustBeAnswered(t *testing.T) {
	w := judged(3)
	w.Faults = []check.Fault{{Kind: sim.FaultCrash, Desc: "crash server-1", Nodes: []sim.NodeID{"server-1"}, Start: 500 * ms, End: 900 * ms}, {Kind: sim.FaultSkew, Desc: "clock skew", Start: 0, End: 0}}
	op(w, "client-a", "server-2", check.Write("deployments/web", 7), 700*ms, 1700*ms, check.Result{Outcome: check.Indefinite})
	op(w, "client-a", "server-2", check.Write("deployments/web", 8), 2000*ms, 3000*ms, check.Result{Outcome: check.Indefinite})
	op(w, "client-b", "server-3", check.Write("deployments/web", 9), 2100*ms, 2110*ms, check.Acked(4))

	f := stalled(w, 0, time.Second)
	require.NotNil(t, f, "the write at 2000ms met a whole cluster and got no answer")
	assert.Equal(t, "unavailable-while-majority-up", f.Name)
	assert.Contains(t, f.Story, "client-a's write deployments/web=8 through server-2 at 2000ms got no answer")
	assert.Contains(t, f.Story, "the leader and a majority of the servers had been up and connected")
	assert.Contains(t, f.Story, "1 of 2 such requests failed", "the write during the crash is not held against the cluster")

	assert.True(t, calm(w.Faults, 1000*ms, 1100*ms), "a clock skew is no outage")
	assert.False(t, calm(w.Faults, 400*ms, 500*ms), "a request in flight when the crash began met it")
}

// frame writes e as record.go does.
func frame(e disklog.Entry) []byte { return disklog.Frame(e) }

func TestTheTimelineLeavesOutHeartbeatsAcksAndRepairs(t *testing.T) {
	type Append struct{ Entries []int }
	type Ack struct{ Have int }
	type Repair struct{ Copies []int }
	assert.True(t, quiet(Append{}))
	assert.False(t, quiet(Append{Entries: []int{1}}))
	assert.True(t, quiet(Ack{}))
	assert.True(t, quiet(Repair{Copies: []int{1}}))
	assert.False(t, quiet("GET deployments/web"))
}

func TestARequestIsDueOnlyWhereTheLeaderAndAMajorityCouldAnswerIt(t *testing.T) {
	w := judged(3)
	w.health = &health{bad: map[[2]sim.NodeID][]time.Duration{}}
	for at := 500 * ms; at <= 900*ms; at += 10 * ms { // server-2 down from 500ms to 900ms
		w.health.bad[[2]sim.NodeID{"client-a", "server-2"}] = append(w.health.bad[[2]sim.NodeID{"client-a", "server-2"}], at)
	}
	op(w, "client-a", "server-2", check.Write("deployments/web", 7), 1200*ms, 2200*ms, check.Result{Outcome: check.Indefinite})
	assert.Nil(t, stalled(w, 0, time.Second), "server-2 came back less than a second before the request")

	op(w, "client-a", "server-1", check.Write("deployments/web", 8), 700*ms, 1700*ms, check.Result{Outcome: check.Indefinite})
	f := stalled(w, 0, time.Second)
	require.NotNil(t, f, "with server-2 down, the leader and server-3 are a majority: the leader must answer")
	assert.Contains(t, f.Story, "client-a's write deployments/web=8 through server-1 at 700ms got no answer")
}

func TestAServerMayHoldOnlyWhatItsDiskCanGiveBack(t *testing.T) {
	web := func(i int64, replicas int) disklog.Entry {
		return disklog.Entry{Index: i, Event: kube.Event{Type: kube.Modified, Object: kube.Object{Kind: "deployments", Name: "web", Replicas: replicas, ResourceVersion: i}}}
	}
	w := judged(1)
	w.W.AddNode("server-1", func(p *sim.Proc) {
		f := p.Disk().Open(logFile)
		f.Append(frame(web(1, 3)))
		f.Append([]byte{0, 0, 1}) // a torn entry left in the file
		f.Append(frame(web(2, 5)))
		f.Sync(p)
	})
	require.NoError(t, w.Run(time.Second))
	defer w.Close()
	w.Histories = map[string][]check.Change{"server-1": {
		{Version: 1, Key: "deployments/web", Value: 3},
		{Version: 2, Key: "deployments/web", Value: 5},
	}}
	f := lostOnRestart(w)
	require.NotNil(t, f)
	assert.Equal(t, "lost-on-restart", f.Name)
	assert.Contains(t, f.Story, "server-1 has applied 2 changes, but its log on disk gives back only the first 1 of them")

	w.Histories["server-1"] = w.Histories["server-1"][:1]
	assert.Nil(t, lostOnRestart(w), "what it applied is all readable")
}

func TestAConditionalDeleteOfAChangedObjectIsAStaleDelete(t *testing.T) {
	w := judged(3)
	w.Histories = map[string][]check.Change{"server-1": {
		{Version: 1, Key: "deployments/web", Value: 11},
		{Version: 2, Key: "deployments/web", Value: 12},
		{Version: 3, Key: "deployments/web", Deleted: true},
	}}
	deleted := func(ifVersion int64) *check.History {
		h := check.NewHistory()
		id := h.Call("client-a", "server-2", check.DeleteIfVersion("deployments/web", ifVersion), 400*ms)
		h.Return(id, check.Acked(3), 420*ms)
		return h
	}

	f := w.violation(check.StaleDelete(deleted(1), w.Longest()))
	require.NotNil(t, f, "client-a named rv 1, but web was at rv 2 when it was deleted")
	assert.Equal(t, "stale-delete", f.Name)
	assert.Equal(t, 420*ms, f.At)
	assert.Contains(t, f.Story, "client-a's delete deployments/web if rv=1 through server-2, sent at 400ms, was acknowledged at 420ms as rv 3")
	assert.Contains(t, f.Story, "the last change to it before the deletion is rv 2 deployments/web=12")

	assert.Nil(t, check.StaleDelete(deleted(2), w.Longest()), "a delete whose precondition names the object's last version is no failure")
}

// caughtUp is a catch-up scene with no servers running, server-3 away from
// awayAt until 2800ms, whose history the test writes by hand.
func caughtUp() *catchUpWorld {
	return &catchUpWorld{world: judged(3), away: "server-3", back: awayAt + awayFor}
}

func TestABurstTooSmallToLeaveAFollowerBehindFailsTheCatchUp(t *testing.T) {
	w := caughtUp()
	for i := range 40 { // 40 writes acknowledged while server-3 was away
		at := awayAt + time.Duration(i)*50*ms
		op(w.world, "writer-1", "server-1", check.Write("deployments/web", 100+i), at, at+40*ms, check.Acked(int64(i+2)))
	}
	f := w.burst()
	require.NotNil(t, f, "40 writes leave server-3 less than one batch behind: the check would test nothing")
	assert.Equal(t, "burst-too-slow", f.Name)
	assert.Contains(t, f.Story, "the 4 writers sent 40 writes through the other servers and only 40 were acknowledged; at least 65 are needed")

	for i := range 30 {
		at := awayAt + time.Duration(i)*50*ms
		op(w.world, "writer-2", "server-2", check.Write("deployments/api", 200+i), at, at+45*ms, check.Acked(int64(i+42)))
	}
	assert.Nil(t, w.burst(), "70 writes acknowledged while it was away")

	silent := caughtUp()
	for i := range 20 { // a leader that commits nothing: every write times out
		at := awayAt + time.Duration(i)*100*ms
		op(silent.world, "writer-1", "server-1", check.Write("deployments/web", 100+i), at, at+time.Second, check.Result{Outcome: check.Indefinite})
	}
	f = silent.burst()
	require.NotNil(t, f)
	assert.Equal(t, check.Unanswered, f.Name, "the writes got no answer: the cluster's failure, told as such")
}

func TestAFollowerThatIsBackMustAnswerTheReadsParkedOnIt(t *testing.T) {
	w := caughtUp()
	op(w.world, "reader", "server-3", check.Read("deployments/web"), 2801*ms, 3801*ms, check.Result{Outcome: check.Indefinite})
	op(w.world, "reader", "server-3", check.Read("deployments/web"), 3816*ms, 3830*ms, check.Found(120, 190))
	op(w.world, "reader", "server-3", check.Read("deployments/web"), 3845*ms, 4845*ms, check.Result{Outcome: check.Indefinite})
	f := w.parkedReads()
	require.NotNil(t, f)
	assert.Equal(t, check.Unanswered, f.Name)
	assert.Equal(t, 2801*ms, f.At)
	assert.Contains(t, f.Story, "server-3 came back at 2800ms and answered only 1 of the 3 Latest reads parked on it")

	op(w.world, "reader", "server-3", check.Read("deployments/api"), 4860*ms, 4870*ms, check.Found(230, 191))
	assert.Nil(t, w.parkedReads(), "half the reads answered: the first waited while it caught up")
}

func TestAReadOfAnyKindMayShowOnlyWhatAMajorityHolds(t *testing.T) {
	web := func(i int64, replicas int) disklog.Entry {
		return disklog.Entry{Index: i, Event: kube.Event{Type: kube.Modified, Object: kube.Object{Kind: "deployments", Name: "web", Replicas: replicas, ResourceVersion: i}}}
	}
	w := judged(5)
	defer w.Close()
	for i, id := range w.Servers {
		w.W.AddNode(id, func(p *sim.Proc) {
			f := p.Disk().Open(logFile)
			f.Append(frame(web(1, 3)))
			if i < 2 { // the leader and one follower cut off with it hold entry 2
				f.Append(frame(web(2, 12)))
			}
			f.Sync(p)
		})
	}
	op(w, "writer", "server-1", check.Write("deployments/web", 12), 520*ms, 1520*ms, check.Result{Outcome: check.Indefinite})
	obj := func(replicas int, rv int64) kube.Object {
		return kube.Object{Kind: "deployments", Name: "web", Replicas: replicas, ResourceVersion: rv}
	}
	w.W.AddNode("reader", func(p *sim.Proc) {
		p.Sleep(600 * ms)
		w.readCommitted(p, "reader", "server-2", anyRead, "deployments/web", obj(3, 1))
	})
	require.NoError(t, w.Run(time.Second))
	assert.Nil(t, w.early, "a stale Any read of a committed change is no failure")

	w.W.AddNode("reader-2", func(p *sim.Proc) {
		w.readCommitted(p, "reader", "server-2", anyRead, "deployments/web", obj(12, 2))
	})
	require.NoError(t, w.Run(2*time.Second))
	f := w.early
	require.NotNil(t, f, "server-2 showed a change only two of five disks hold")
	assert.Equal(t, "read-uncommitted", f.Name)
	assert.Contains(t, f.Story, "server-2 answered reader's Any read of deployments/web with replicas=12 (rv 2, written by writer's write deployments/web=12 through server-1, sent at 520ms and answered indefinite at 1520ms)")
	assert.Contains(t, f.Story, "only 2 of 5 servers' disks held it, synced (server-1, server-2) at position 2 of the log")
	assert.Contains(t, f.Story, "An Any read may be stale, an earlier point of the one history, but never ahead of it")
}
