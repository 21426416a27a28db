package ex08suite

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
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

	f := overwritten("")(w)
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
	assert.Nil(t, overwritten("")(w), "the later write is the one every server holds")

	w.States["server-3"] = map[string]any{"deployments/web": 5}
	assert.Nil(t, overwritten("")(w), "servers that disagree have not converged: that is no-convergence, not this")

	w.States = map[string]map[string]any{"server-1": {"deployments/web": 5}, "server-2": {"deployments/web": 5}, "server-3": {"deployments/web": 5}}
	w.History = check.NewHistory()
	op(w, "controller-a", "server-3", check.Write("deployments/web", 5), 1000*ms, 1300*ms, check.Acked(2))
	op(w, "controller-b", "server-1", check.Write("deployments/web", 2), 1200*ms, 1210*ms, check.Acked(3))
	assert.Nil(t, overwritten("")(w), "two writes that overlap may take effect in either order")
}

// unhealthy marks server unable to answer client from from to to, as the
// health samples would.
func unhealthy(w *world, client, server sim.NodeID, from, to time.Duration) {
	if w.health == nil {
		w.health = &health{bad: map[[2]sim.NodeID][]time.Duration{}}
	}
	for at := from; at <= to; at += healthEvery {
		w.health.bad[[2]sim.NodeID{client, server}] = append(w.health.bad[[2]sim.NodeID{client, server}], at)
	}
}

func TestARequestToAWholeClusterMustBeAnswered(t *testing.T) {
	w := judged(3)
	unhealthy(w, "client-a", "server-2", 500*ms, 900*ms) // the leader down from 500ms to 900ms
	op(w, "client-a", "server-2", check.Write("deployments/web", 7), 700*ms, 1700*ms, check.Result{Outcome: check.Indefinite})
	op(w, "client-a", "server-2", check.Write("deployments/web", 8), 2000*ms, 3000*ms, check.Result{Outcome: check.Indefinite})
	op(w, "client-b", "server-3", check.Write("deployments/web", 9), 2100*ms, 2110*ms, check.Acked(4))

	f := stalled(w)
	require.NotNil(t, f, "the write at 2000ms met a whole cluster and got no answer")
	assert.Equal(t, "unavailable-while-majority-up", f.Name)
	assert.Contains(t, f.Story, "client-a's write deployments/web=8 through server-2 at 2000ms got no answer")
	assert.Contains(t, f.Story, "the leader and a majority of the servers had been up and connected")
	assert.Contains(t, f.Story, "1 of 2 such requests failed", "the write during the outage is not held against the cluster")
}

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
	unhealthy(w, "client-a", "server-2", 500*ms, 900*ms) // server-2 down from 500ms to 900ms
	op(w, "client-a", "server-2", check.Write("deployments/web", 7), 1200*ms, 2200*ms, check.Result{Outcome: check.Indefinite})
	assert.Nil(t, stalled(w), "server-2 came back less than a second before the request")

	op(w, "client-a", "server-1", check.Write("deployments/web", 8), 700*ms, 1700*ms, check.Result{Outcome: check.Indefinite})
	f := stalled(w)
	require.NotNil(t, f, "with server-2 down, the leader and server-3 are a majority: the leader must answer")
	assert.Contains(t, f.Story, "client-a's write deployments/web=8 through server-1 at 700ms got no answer")
}

// web is entry i of a log: deployments/web scaled to replicas.
func web(i int64, replicas int) Entry {
	return Entry{Index: i, Event: kube.Event{Type: kube.Modified,
		Object: kube.Object{Kind: "deployments", Name: "web", Replicas: replicas, ResourceVersion: i}}}
}

func TestAnEntryCountsOnlyWhereItIsSyncedAtItsPosition(t *testing.T) {
	w := judged(3)
	defer w.Close()
	w.W.AddNode("server-1", func(p *sim.Proc) {
		f := p.Disk().Open(LogFile)
		f.Append(Frame(web(1, 3)))
		f.Append(Frame(web(2, 5)))
		f.Sync(p)
		f.Append(Frame(web(3, 2))) // not synced
	})
	w.W.AddNode("server-2", func(p *sim.Proc) {
		f := p.Disk().Open(LogFile)
		f.Append(Frame(web(2, 5))) // entry 2 at position 1
		f.Sync(p)
	})
	w.W.AddNode("server-3", func(p *sim.Proc) {})
	require.NoError(t, w.W.Run(time.Second))

	d := w.disks
	assert.True(t, d.At("server-1", 2).Is("deployments/web", false, 5))
	assert.False(t, d.At("server-1", 2).Is("deployments/web", false, 7), "another value at that position is another change")
	assert.Nil(t, d.At("server-1", 3), "appended but not synced: a crash may take it")
	assert.Nil(t, d.At("server-2", 2), "an entry at the wrong position of the log")
	assert.Nil(t, d.At("server-2", 1), "an entry whose own index is not its position")
	assert.Nil(t, d.At("server-3", 1), "a server that never opened its log holds nothing")
	assert.Len(t, d.Log("server-1"), 2)
	assert.Equal(t, []string{"server-1"}, d.Holders(2, "deployments/web", false, 5))
}

func TestAServerMayHoldOnlyWhatItsDiskCanGiveBack(t *testing.T) {
	w := judged(1)
	w.W.AddNode("server-1", func(p *sim.Proc) {
		f := p.Disk().Open(LogFile)
		f.Append(Frame(web(1, 3)))
		f.Append([]byte{0, 0, 1}) // a torn entry left in the file
		f.Append(Frame(web(2, 5)))
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

	w.History = deleted(1)
	f := staleDelete(w)
	require.NotNil(t, f, "client-a named rv 1, but web was at rv 2 when it was deleted")
	assert.Equal(t, "stale-delete", f.Name)
	assert.Equal(t, 420*ms, f.At)
	assert.Contains(t, f.Story, "client-a's delete deployments/web if rv=1 through server-2, sent at 400ms, was acknowledged at 420ms as rv 3")
	assert.Contains(t, f.Story, "the last change to it before the deletion is rv 2 deployments/web=12")

	w.History = deleted(2)
	assert.Nil(t, staleDelete(w), "a delete whose precondition names the object's last version is no failure")
}

// caughtUp is a catch-up scene with no servers running, server-3 away from
// awayAt until 2800ms, whose history the test writes by hand.
func caughtUp() *world {
	w := judged(3)
	w.away, w.back = "server-3", awayAt+awayFor
	return w
}

func TestABurstTooSmallToLeaveAFollowerBehindFailsTheCatchUp(t *testing.T) {
	w := caughtUp()
	for i := range 40 { // 40 writes acknowledged while server-3 was away
		at := awayAt + time.Duration(i)*50*ms
		op(w, "writer-1", "server-1", check.Write("deployments/web", 100+i), at, at+40*ms, check.Acked(int64(i+2)))
	}
	f := burst(w)
	require.NotNil(t, f, "40 writes leave server-3 less than one batch behind: the check would test nothing")
	assert.Equal(t, "burst-too-slow", f.Name)
	assert.Contains(t, f.Story, "the 4 writers sent 40 writes through the other servers and only 40 were acknowledged; at least 65 are needed")

	for i := range 30 {
		at := awayAt + time.Duration(i)*50*ms
		op(w, "writer-2", "server-2", check.Write("deployments/api", 200+i), at, at+45*ms, check.Acked(int64(i+42)))
	}
	assert.Nil(t, burst(w), "70 writes acknowledged while it was away")

	silent := caughtUp()
	for i := range 20 { // a leader that commits nothing: every write times out
		at := awayAt + time.Duration(i)*100*ms
		op(silent, "writer-1", "server-1", check.Write("deployments/web", 100+i), at, at+time.Second, check.Result{Outcome: check.Indefinite})
	}
	f = burst(silent)
	require.NotNil(t, f)
	assert.Equal(t, check.Unanswered, f.Name, "the writes got no answer: the cluster's failure, told as such")
}

func TestAFollowerThatIsBackMustAnswerTheReadsParkedOnIt(t *testing.T) {
	w := caughtUp()
	op(w, "reader", "server-3", check.Read("deployments/web"), 2801*ms, 3801*ms, check.Result{Outcome: check.Indefinite})
	op(w, "reader", "server-3", check.Read("deployments/web"), 3816*ms, 3830*ms, check.Found(120, 190))
	op(w, "reader", "server-3", check.Read("deployments/web"), 3845*ms, 4845*ms, check.Result{Outcome: check.Indefinite})
	f := parkedReads(w)
	require.NotNil(t, f)
	assert.Equal(t, check.Unanswered, f.Name)
	assert.Equal(t, 2801*ms, f.At)
	assert.Contains(t, f.Story, "server-3 came back at 2800ms and answered only 1 of the 3 Latest reads parked on it")

	op(w, "reader", "server-3", check.Read("deployments/api"), 4860*ms, 4870*ms, check.Found(230, 191))
	assert.Nil(t, parkedReads(w), "half the reads answered: the first waited while it caught up")
}

func TestAReadOfAnyKindMayShowOnlyWhatAMajorityHolds(t *testing.T) {
	w := judged(5)
	defer w.Close()
	for i, id := range w.Servers {
		w.W.AddNode(id, func(p *sim.Proc) {
			f := p.Disk().Open(LogFile)
			f.Append(Frame(web(1, 3)))
			if i < 2 { // the leader and one follower cut off with it hold entry 2
				f.Append(Frame(web(2, 12)))
			}
			f.Sync(p)
		})
	}
	op(w, "writer", "server-1", check.Write("deployments/web", 12), 520*ms, 3520*ms, check.Result{Outcome: check.Indefinite})
	require.NoError(t, w.W.Run(time.Second))
	obj := func(replicas int, rv int64) kube.Object {
		return kube.Object{Kind: "deployments", Name: "web", Replicas: replicas, ResourceVersion: rv}
	}

	stale := Read{Client: "reader", Server: "server-2", How: AnyRead, Key: "deployments/web", Object: obj(3, 1)}
	assert.Nil(t, w.disks.Uncommitted(600*ms, stale), "a stale Any read of a committed change is no failure")

	ahead := Read{Client: "reader", Server: "server-2", How: AnyList, Key: "deployments/web", Object: obj(12, 2)}
	f := w.disks.Uncommitted(610*ms, ahead)
	require.NotNil(t, f, "server-2 showed a change only two of five disks hold")
	assert.Equal(t, "read-uncommitted", f.Name)
	assert.Equal(t, 610*ms, f.At)
	assert.Contains(t, f.Story, "server-2 answered reader's Any list of deployments/web with replicas=12 (rv 2, written by writer's write deployments/web=12 through server-1, sent at 520ms and answered indefinite at 3520ms) at 610ms")
	assert.Contains(t, f.Story, "only 2 of 5 servers' disks held it, synced (server-1, server-2) at position 2 of the log")
	assert.Contains(t, f.Story, "An Any list may be stale, an earlier point of the one history, but never ahead of it")
	assert.Contains(t, f.Details, "server-3    1 entries · 1: MODIFIED deployments/web{replicas=3 rv=1}\n")
}

// agreement-first judges the minority scene whole, but asks a randomized
// world only whether an answer came early: the three other randomized
// checks judge the rest of the same world. Every failure lists the faults.
func TestAgreementFirstAsksARandomizedWorldOnlyForAnEarlyAnswer(t *testing.T) {
	var judges []scene.Judge[*world]
	for _, k := range chapter(nil).Checks {
		if k.Name == "agreement-first" {
			judges = k.Judges
		}
	}
	verdict := func(w *world) *suite.Failure {
		for _, judge := range judges {
			if f := judge(w); f != nil {
				return f
			}
		}
		return nil
	}
	w := judged(3)
	w.Inject(scene.Partition{Groups: [][]sim.NodeID{{"server-1"}}, From: 500 * ms, For: time.Second})
	op(w, "client-a", "server-1", check.Create("deployments/web", 10), 50*ms, 60*ms, check.Acked(1))
	op(w, "client-a", "server-1", check.Write("deployments/web", 11), 100*ms, 110*ms, check.Acked(2))
	op(w, "client-b", "server-2", check.Read("deployments/web"), 200*ms, 210*ms, check.Found(10, 1)) // stale
	f := verdict(w)
	require.NotNil(t, f, "in the minority scene, the stale read fails the check")
	assert.Equal(t, "stale-read", f.Name)
	assert.Contains(t, f.Details, "3 servers (leader server-1); faults:\n  partition server-1 | the rest from 500ms for 1000ms")

	w.randomized = true
	assert.Nil(t, verdict(w), "in a randomized world, the stale read is the linearizable check's")
}

// A yes whose majority counted a follower's copy written and not yet synced
// is told by that follower: the entry it acknowledged, its last message to
// the leader once the entry had reached its log, and when it synced. A
// follower that said nothing since the entry reached it acknowledged
// nothing: the yes is then the leader's miscount, told as before.
func TestAYesThatCountedACopyNotYetSyncedIsToldByThatCopy(t *testing.T) {
	run := func(sendFirst bool) *world {
		w := judged(3)
		w.W.AddNode("server-1", func(p *sim.Proc) {
			f := p.Disk().Open(LogFile)
			f.Append(Frame(web(1, 5)))
			f.Sync(p)
			p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) { return nil, nil })
		})
		w.W.AddNode("server-2", func(p *sim.Proc) {
			f := p.Disk().Open(LogFile)
			if sendFirst {
				p.Send("server-1", "ack 0")
				p.Sleep(2 * ms)
				f.Append(Frame(web(1, 5)))
			} else {
				f.Append(Frame(web(1, 5)))
				p.Send("server-1", "ack 1")
			}
			p.Sleep(20 * ms)
			f.Sync(p)
		})
		w.W.AddNode("server-3", func(p *sim.Proc) {})
		w.W.AddNode("client-a", func(p *sim.Proc) {
			p.Sleep(10 * ms)
			w.acknowledged(p, "client-a", "server-1", "its scale of deployments/web to 5", "deployments/web", false, 5, 1)
		})
		require.NoError(t, w.W.Run(time.Second))
		return w
	}
	w := run(false)
	defer w.Close()
	f := early(w)
	require.NotNil(t, f)
	assert.Equal(t, "acknowledged-before-sync", f.Name)
	assert.Equal(t, 10*ms, f.At, "the moment the client heard yes")
	assert.True(t, strings.HasPrefix(f.Story, "server-2 acknowledged entry 1 before its disk had synced it (its last message to server-1 before the yes, at 0ms, "+
		"once the entry had reached its log, was ack 1): at the yes its log held the entry written, not synced, and it synced it only at 21ms. "+
		"server-1 told client-a yes for its scale of deployments/web to 5 (rv 1) at 10ms, but at that moment only 1 of 3 servers' disks held it, synced (server-1)"), f.Story)

	w = run(true)
	defer w.Close()
	f = early(w)
	require.NotNil(t, f)
	assert.Equal(t, "acknowledged-before-majority", f.Name, "server-2's only word came before the entry reached it")
}

// A follower whose log stood still, shorter than the leader's, from the
// end of the last fault to the audit was left behind: the story names the
// entry that never reached it. One whose log grew within the last second
// is still catching up, not judged here.
func TestAFollowerLeftBehindIsNamedWithTheEntryThatNeverReachedIt(t *testing.T) {
	run := func(lateGrowth bool) *world {
		return oneBehind(t, func(p *sim.Proc, i int, f *sim.File) {
			if i == 2 && lateGrowth {
				p.Sleep(2500*ms - p.Now())
				f.Append(Frame(web(2, 5)))
				f.Sync(p)
			}
		})
	}
	w := run(false)
	f := leftBehind(w)
	require.NotNil(t, f)
	assert.Equal(t, "left-behind", f.Name)
	assert.Equal(t, chaosEnd, f.At)
	assert.True(t, strings.HasPrefix(f.Story, "server-3 was left behind: from 1400ms, when the last fault had ended, to the audit at 3000ms it was up and connected to the leader server-1, "+
		"yet at the audit its log on disk holds 1 entry and server-1's 3, and its log last grew at 0ms. Entry 2, MODIFIED deployments/web{replicas=5 rv=2}, which server-1's log holds, never reached it"), f.Story)

	w = run(true)
	assert.Nil(t, leftBehind(w), "server-3's log grew at 2500ms: it is still catching up")
}

// A follower the leader kept sending later entries, never the one it
// lacks, is told with what it last told the leader: it claimed a log it
// did not hold.
func TestAFollowerThatClaimedEntriesItLacksIsToldByItsLastWord(t *testing.T) {
	later := Entry{Index: 3, Event: web(3, 7).Event}
	w := oneBehind(t, func(p *sim.Proc, i int, _ *sim.File) {
		switch i {
		case 0:
			p.Sleep(2000*ms - p.Now())
			p.Send("server-3", later)
		case 2:
			p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
				p.Send("server-1", "I hold 3 entries")
				return nil, nil
			})
		}
	})
	f := leftBehind(w)
	require.NotNil(t, f)
	assert.Contains(t, f.Story, "Entry 2, MODIFIED deployments/web{replicas=5 rv=2}, which server-1's log holds, never reached it, while server-1 sent it later entries once after that, "+
		"the last at 20")
	assert.Contains(t, f.Story, "the leader took server-3 for holding entry 2 already. server-3's last word to the leader, at 20")
	assert.Contains(t, f.Story, "was I hold 3 entries, with 1 entry on its disk")
}

// An entry a follower holds that the leader lost in a crash, before its own
// sync, left the leader too early: sent-before-synced, at the crash. A
// world that stopped on a panic is told by that breach, the panic its
// evidence; a panic with the logs together is the panic.
func TestAnEntryTheLeaderLostBeforeItsSyncIsTheFailureEvenAfterAPanic(t *testing.T) {
	w := newWorld(scene.New(1, nil, scene.Servers(2)), "deployments/web")
	defer w.Close()
	w.W.AddNode("server-1", func(p *sim.Proc) {
		f := p.Disk().Open(LogFile)
		f.Append(Frame(web(1, 3)))
		f.Sync(p)
		f.Append(Frame(web(2, 12))) // sent before it is synced
		p.Sleep(time.Second)
	})
	w.W.AddNode("server-2", func(p *sim.Proc) {
		f := p.Disk().Open(LogFile)
		f.Append(Frame(web(1, 3)))
		f.Append(Frame(web(2, 12)))
		f.Sync(p)
	})
	w.W.At(5*ms, func() { w.W.Crash("server-1") })
	require.NoError(t, w.W.Run(10*ms))
	losses := w.W.DiskLosses("server-1")
	require.Len(t, losses, 1)
	require.Zero(t, losses[0].Kept, "this seed's crash keeps none of the unsynced bytes")

	f := logsApart(w)
	require.NotNil(t, f)
	assert.Equal(t, "sent-before-synced", f.Name)
	assert.Equal(t, 5*ms, f.At, "the crash that lost the leader's copy")
	assert.True(t, strings.HasPrefix(f.Story, "entry 2, MODIFIED deployments/web{replicas=12 rv=2}, reached server-2's disk, but the leader server-1 does not hold it: "+
		"its crash at 5ms lost "), f.Story)
	assert.Contains(t, f.Story, "since then its log stops at entry 1. The entry left server-1 before its own disk held it for sure")

	w.Err = &sim.PanicError{Proc: "server-1/handle#7 Propose", At: 9 * ms, Value: "ex08: appending entry 2 after entry 2", Stack: "the stack"}
	f = ran(w)
	require.NotNil(t, f)
	assert.Equal(t, "sent-before-synced", f.Name, "the breach, not the panic that found it")
	assert.True(t, strings.HasSuffix(f.Story, ". A check in the servers' own code found the breach at 9ms and panicked, in server-1/handle#7 Propose: ex08: appending entry 2 after entry 2"), f.Story)
	assert.True(t, strings.HasSuffix(f.Details, "the panic that stopped the world:\nthe stack"), f.Details)

	together := judged(2)
	defer together.Close()
	together.W.AddNode("server-1", func(p *sim.Proc) {})
	together.W.AddNode("server-2", func(p *sim.Proc) {})
	require.NoError(t, together.W.Run(time.Second))
	together.Err = w.Err
	f = ran(together)
	require.NotNil(t, f)
	assert.Equal(t, "appended-twice", f.Name, "nothing parted before the panic: the log's own check caught an entry written again")
	assert.True(t, strings.HasPrefix(f.Story, "server-1 was about to write entry 2 again, after entry 2, the last its log held: an entry it already held was taken as new."), f.Story)
	assert.Contains(t, f.Story, "The log's own check (log.go) stopped it at 9ms, in server-1/handle#7 Propose: ex08: appending entry 2 after entry 2")

	together.Err = &sim.PanicError{Proc: "server-3/handle#160 Append", At: 1507 * ms, Value: "ex08: appending entry 12 after entry 10", Stack: "the stack"}
	f = ran(together)
	require.NotNil(t, f)
	assert.Equal(t, "log-gap", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, "server-3 was handed entry 12 to write right after entry 10, the last its log held: the entries between never reached it"), f.Story)

	together.Err = &sim.PanicError{Proc: "server-3/handle#160 Append", At: 1507 * ms, Value: "index out of range [3] with length 3", Stack: "the stack"}
	f = ran(together)
	require.NotNil(t, f)
	assert.Equal(t, suite.PanicName, f.Name, "any other panic is the panic")
}

// A read a restarted server answered from an entry of the log it read back,
// written before its crash, is told as that recovery taken for agreement.
func TestAReadFromWhatARestartedServerRecoveredSaysSo(t *testing.T) {
	w := judged(3)
	defer w.Close()
	w.W.AddNode("server-1", func(p *sim.Proc) { p.Sleep(time.Second) })
	w.W.At(100*ms, func() { w.W.Crash("server-1") })
	w.W.At(200*ms, func() { w.W.Restart("server-1") })
	require.NoError(t, w.W.Run(300*ms))
	op(w, "writer", "server-1", check.Write("deployments/web", 12), 50*ms, 1050*ms, check.Result{Outcome: check.Indefinite})
	op(w, "writer", "server-1", check.Write("deployments/web", 13), 250*ms, 260*ms, check.Acked(6))

	assert.Equal(t, "server-1 came back at 200ms, from its crash at 100ms, with entry 5 in the log it read back from its disk, and took it as committed",
		w.recovered("server-1", "deployments/web", 12, 5, 300*ms))
	assert.Empty(t, w.recovered("server-1", "deployments/web", 13, 6, 300*ms), "written after the restart")
	assert.Empty(t, w.recovered("server-2", "deployments/web", 12, 5, 300*ms), "server-2 never crashed")
}

// Append and testEntry stand for the exercise's types, read by their
// fields' names.
type (
	Append    struct{ Entries []testEntry }
	testEntry struct{ Index int64 }
)

// An entry written twice is told with the Appends that brought it: two
// reached the follower, the second while its slow disk synced the first,
// and the story names both and the slow disk. One Append alone is told
// without them.
func TestAnEntryWrittenTwiceIsToldWithTheAppendsThatBroughtIt(t *testing.T) {
	w := judged(3)
	defer w.Close()
	w.W.AddNode("server-1", func(p *sim.Proc) {
		p.Send("server-3", Append{Entries: []testEntry{{Index: 3}}})
		p.Sleep(20 * ms)
		p.Send("server-3", Append{Entries: []testEntry{{Index: 3}, {Index: 4}}})
		p.Send("server-3", Append{Entries: []testEntry{{Index: 5}}})
	})
	w.W.AddNode("server-2", func(p *sim.Proc) {})
	w.W.AddNode("server-3", func(p *sim.Proc) { p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return nil, nil }) })
	w.W.SetDiskSyncLatency("server-3", 90*ms)
	require.NoError(t, w.W.Run(100*ms))

	w.Err = &sim.PanicError{Proc: "server-3/handle#9 Append", At: 95 * ms, Value: "ex08: appending entry 3 after entry 3", Stack: "the stack"}
	f := ran(w)
	require.NotNil(t, f)
	assert.Equal(t, "appended-twice", f.Name)
	assert.Contains(t, f.Story, "2 Appends carrying entry 3 had reached server-3 by then, the first from server-1 at ")
	assert.Contains(t, f.Story, "{Index:3} {Index:4}")
	assert.Contains(t, f.Story, "while its disk was slow (disk of server-3 syncing in 90ms from 0ms to ")

	w.Err = &sim.PanicError{Proc: "server-3/handle#9 Append", At: 95 * ms, Value: "ex08: appending entry 5 after entry 5", Stack: "the stack"}
	f = ran(w)
	require.NotNil(t, f)
	assert.Equal(t, "appended-twice", f.Name)
	assert.NotContains(t, f.Story, "Appends carrying", "one Append brought entry 5: nothing to tell of two")
}

// WrittenLog reads a log once, synced or not, up to the first frame that is
// not the next entry, with where each frame ends: what Written gives
// position by position.
func TestWrittenLogReadsEveryEntryOnceAndWhereEachEnds(t *testing.T) {
	w := judged(1)
	w.W.AddNode("server-1", func(p *sim.Proc) {
		f := p.Disk().Open(LogFile)
		f.Append(Frame(web(1, 3)))
		f.Sync(p)
		f.Append(Frame(web(2, 5))) // written, not synced
		f.Append(Frame(web(4, 7))) // not the next entry
	})
	require.NoError(t, w.Run(time.Second))
	defer w.Close()
	log, ends := w.disks.WrittenLog("server-1")
	require.Len(t, log, 2)
	assert.Equal(t, []int64{1, 2}, []int64{log[0].Index, log[1].Index})
	for i := range log {
		e, end := w.disks.Written("server-1", int64(i+1))
		require.NotNil(t, e)
		assert.Equal(t, end, ends[i], "entry %d ends where Written says", i+1)
	}
	assert.Len(t, w.disks.Log("server-1"), 1, "only entry 1 is synced")
}

// A leader that holds an entry its disk has synced until its next
// heartbeat is told by what it did: when the entry was synced and when it
// first went to a follower. One that sends it at once is no failure.
func TestALeaderThatHoldsAnEntryBackIsToldByItsSyncAndItsSend(t *testing.T) {
	run := func(wait time.Duration) *world {
		w := judged(3)
		w.W.AddNode("server-1", func(p *sim.Proc) {
			f := p.Disk().Open(LogFile)
			p.Sleep(5 * ms)
			f.Append(Frame(web(1, 5)))
			f.Sync(p)
			p.Sleep(wait)
			p.Send("server-2", Append{Entries: []testEntry{{Index: 1}}})
		})
		w.W.AddNode("server-2", func(p *sim.Proc) {
			p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) { return nil, nil })
		})
		w.W.AddNode("server-3", func(p *sim.Proc) {})
		require.NoError(t, w.W.Run(time.Second))
		return w
	}
	w := run(95 * ms)
	defer w.Close()
	f := heldBack(w)
	require.NotNil(t, f)
	assert.Equal(t, "entry-held-back", f.Name)
	assert.Equal(t, course.AgreementFirst, f.Clause)
	assert.True(t, strings.HasPrefix(f.Story, "server-1, the leader, had entry 1 (deployments/web{replicas=5 rv=1}) synced on its own disk at 6ms, but sent it to no follower until 101ms (to server-2), 95ms later"), f.Story)

	w = run(heldBackFor)
	defer w.Close()
	assert.Nil(t, heldBack(w), "sent within heldBackFor of its sync")
}

// A yes that came long after a majority's disks held its entry is told by
// those moments: when the majority held it, and when the yes came. One that
// comes within the allowance is no failure.
func TestAWriteAnsweredLongAfterItsMajorityIsToldByThatMajority(t *testing.T) {
	run := func(answered time.Duration) *world {
		w := judged(3)
		for i, id := range []sim.NodeID{"server-1", "server-2", "server-3"} {
			w.W.AddNode(id, func(p *sim.Proc) {
				f := p.Disk().Open(LogFile)
				p.Sleep(time.Duration(5*(i+1)) * ms)
				f.Append(Frame(web(1, 5)))
				f.Sync(p)
			})
		}
		require.NoError(t, w.W.Run(time.Second))
		op(w, "controller-a", "server-1", check.Write("deployments/web", 5), 0, answered, check.Acked(1))
		return w
	}
	w := run(120 * ms)
	defer w.Close()
	f := committedLate(w)
	require.NotNil(t, f)
	assert.Equal(t, "committed-late", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, "controller-a's write deployments/web=5 through server-1 was answered only at 120ms, "+
		"but a majority of the disks held its entry 1, synced, from 11ms (server-1 at 6ms, server-2 at 11ms, server-3 at 16ms), 109ms earlier"), f.Story)

	w = run(11*ms + committedLateFor)
	defer w.Close()
	assert.Nil(t, committedLate(w), "answered within the allowance")
}

// syncing boots a leader that writes one entry to its log and sends it to
// server-2, before its sync if early, else after; the others only listen.
func syncing(early bool) scene.Boot {
	return func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
		if self != servers[0] {
			p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) { return nil, nil })
			return
		}
		e := Entry{Index: 1, Event: kube.Event{Type: kube.Added, Object: kube.Object{Kind: "deployments", Name: "web", Replicas: 3, ResourceVersion: 1}}}
		f := p.Disk().Open(LogFile)
		f.Append(Frame(e))
		if early {
			p.Send(servers[1], Append{Entries: []testEntry{{Index: 1}}})
		}
		f.Sync(p)
		if !early {
			p.Send(servers[1], Append{Entries: []testEntry{{Index: 1}}})
		}
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) { return nil, nil })
	}
}

// A leader that sends an entry its own disk has not synced is told by the
// bytes its disk held then; one that sends it after its sync is not.
func TestAnEntrySentBeforeTheLeadersSyncIsTold(t *testing.T) {
	for _, early := range []bool{true, false} {
		w := newWorld(scene.New(1, syncing(early), scene.Servers(3), scene.WorldOptions(sim.DiskSyncLatency(30*ms))), "deployments/web")
		t.Cleanup(w.Close)
		require.NoError(t, w.Run(time.Second))
		f := sentUnsynced(w)
		if !early {
			assert.Nil(t, f)
			continue
		}
		require.NotNil(t, f)
		assert.Equal(t, "sent-before-synced", f.Name)
		assert.Regexp(t, `^server-1, the leader, sent server-2 entry 1 \(.*\) at 0ms, when its own disk had synced 0 bytes of its log and the entry's frame ends at byte [0-9]+: `+
			`the entry was in the leader's file, not yet on its disk for sure\. Its disk held it for sure only at 30ms\. `, f.Story)
	}
}

// restartedBehind is a restart-behind scene with no servers running,
// whose history the test writes by hand: writer-1's scale of web to 140,
// acknowledged as rv 40 at 1250ms, before server-1's crash at 1300ms.
func restartedBehind() *world {
	w := judged(3)
	w.away, w.back, w.restarted = "server-3", behindRejoin, behindCrash+behindDown
	op(w, "writer-1", "server-1", check.Write("deployments/web", 139), 1200*ms, 1210*ms, check.Acked(39))
	op(w, "writer-1", "server-2", check.Write("deployments/web", 140), 1240*ms, 1250*ms, check.Acked(40))
	return w
}

// A restarted leader that answers a Latest read before the log it
// recovered is committed again shows web as it was before a write
// acknowledged before the crash: read-before-recovered, told with the
// crash, the return, where each follower stood, the read and the write it
// misses. Through the lagging follower the read index is named; a read
// that shows the write, or a write acknowledged only after the crash,
// passes.
func TestAReadARestartedLeaderAnsweredBeforeItsLogWasCommittedAgainIsToldSo(t *testing.T) {
	w := restartedBehind()
	op(w, "reader", "server-1", check.Read("deployments/web"), 1601*ms, 1603*ms, check.Found(139, 39))
	f := readBeforeRecovered(w)
	require.NotNil(t, f)
	assert.Equal(t, "read-before-recovered", f.Name)
	assert.Equal(t, course.OneHistory, f.Clause)
	assert.Equal(t, 1603*ms, f.At)
	assert.True(t, strings.HasPrefix(f.Story, "server-1 crashed at 1300ms and came back at 1600ms with the log it read back from its disk, acknowledged writes in it "+
		"that had to be committed again before it answered anything: server-2, which held them all, was cut off from it from 1590ms, and server-3, "+
		"cut off from 300ms to 1585ms, was catching up on them one Append at a time. At 1603ms server-1 answered "), f.Story)
	assert.Contains(t, f.Story, "reader read deployments/web via server-1 [1601ms, 1603ms] → 139 (rv 39), while ")
	assert.Contains(t, f.Story, "writer-1 write deployments/web=140 via server-2 [1240ms, 1250ms] → ok (rv 40) had been acknowledged at 1250ms, before the crash")
	assert.Contains(t, f.Story, "A restarted leader answers no read and gives no read index until every entry of the log it recovered is committed again")

	w = restartedBehind()
	op(w, "reader", "server-3", check.Read("deployments/web"), 1606*ms, 1608*ms, check.Found(139, 39))
	f = readBeforeRecovered(w)
	require.NotNil(t, f)
	assert.Contains(t, f.Story, "At 1608ms server-3, with the read index server-1 gave it, answered ")

	w = restartedBehind()
	op(w, "reader", "server-1", check.Read("deployments/web"), 1601*ms, 1603*ms, check.Found(140, 40))
	assert.Nil(t, readBeforeRecovered(w), "the read shows the last write acknowledged before the crash")

	w = restartedBehind()
	op(w, "writer-2", "server-2", check.Write("deployments/web", 141), 1290*ms, 1310*ms, check.Acked(41))
	op(w, "reader", "server-1", check.Read("deployments/web"), 1601*ms, 1603*ms, check.Found(140, 40))
	assert.Nil(t, readBeforeRecovered(w), "a write acknowledged after the crash was never in the log the leader read back as acknowledged")
}

// AppendAfter stands for an Append that names the entry its entries
// follow, as the exercise's prints (Prev:N).
type AppendAfter struct {
	Prev    int64
	Entries []Entry
}

// behindWithAppend is a randomized world whose server-3 holds entry 1 of
// server-1's 3 and, at 2000ms, is sent entries 2 and 3 by server-1 in an
// Append that says they follow entry prev. server-3 checks it as a
// follower should: it writes them only if its log ends at prev.
func behindWithAppend(t *testing.T, prev int64) *world {
	return oneBehind(t, func(p *sim.Proc, i int, f *sim.File) {
		switch i {
		case 0:
			p.Sleep(2000*ms - p.Now())
			p.Send("server-3", AppendAfter{Prev: prev, Entries: []Entry{web(2, 5), web(3, 7)}})
		case 2:
			p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
				if a, ok := req.(AppendAfter); ok && a.Prev == 1 {
					for _, e := range a.Entries {
						f.Append(Frame(e))
					}
					f.Sync(p)
				}
				return nil, nil
			})
		}
	})
}

// oneBehind builds a randomized world of three whose server-3 holds, synced,
// entry 1 of the three (web=3, 5, 7) that server-1 and server-2 hold; each
// server then goes on with then, given its place and its log. It runs to
// 3000ms, the audit.
func oneBehind(t *testing.T, then func(p *sim.Proc, i int, log *sim.File)) *world {
	w := judged(3)
	t.Cleanup(w.Close)
	w.randomized = true
	for i, id := range w.Servers {
		w.W.AddNode(id, func(p *sim.Proc) {
			f := p.Disk().Open(LogFile)
			f.Append(Frame(web(1, 3)))
			if i < 2 {
				f.Append(Frame(web(2, 5)))
				f.Append(Frame(web(3, 7)))
			}
			f.Sync(p)
			then(p, i, f)
		})
	}
	require.NoError(t, w.W.Run(3*time.Second))
	w.AuditedAt = 3000 * ms
	w.Histories = map[string][]check.Change{"server-1": nil, "server-2": nil, "server-3": nil}
	return w
}

// A follower that rightly refuses an Append naming the wrong entry before
// the ones it carries is left behind, and told by that Append: the index
// it said its entries follow, and the one the leader's log holds before
// them. The same Append naming the right entry is written, and the
// follower catches up.
func TestAFollowerThatRefusedAnAppendNamingTheWrongPrevIsToldByThatPrev(t *testing.T) {
	f := leftBehind(behindWithAppend(t, 2))
	require.NotNil(t, f)
	assert.Equal(t, "left-behind", f.Name)
	assert.Equal(t, chaosEnd, f.At)
	assert.True(t, strings.HasPrefix(f.Story, "server-3 was left behind: from 1400ms, when the last fault had ended, to the audit at 3000ms it was up and connected to the leader server-1, "+
		"yet at the audit its log on disk holds 1 entry and server-1's 3, and its log last grew at 0ms. Entry 2, MODIFIED deployments/web{replicas=5 rv=2}, which server-1's log holds, "+
		"reached it once from server-1 after that, the last at 20"), f.Story)
	assert.Contains(t, f.Story, "and it never wrote it: the message that carried it, entries from 2 on, said they follow entry 2 (Prev:2), "+
		"where server-1's log holds entry 1 before entry 2. A leader tells a follower where the entries it sends go by the index of the entry right before them")

	w := behindWithAppend(t, 1)
	assert.Len(t, w.disks.Log("server-3"), 3, "an Append that names the entry right before its own is written")
	assert.Nil(t, leftBehind(w), "server-3 caught up")
}

// parkedOn is a catch-up scene whose server-3, back at 2800ms, writes an
// entry to its log at each of grows and answers one of the reader's three
// Latest reads; no other server runs.
func parkedOn(t *testing.T, grows ...time.Duration) *world {
	w := caughtUp()
	for _, id := range w.Servers {
		w.W.AddNode(id, func(p *sim.Proc) {
			if id != w.away {
				return
			}
			f := p.Disk().Open(LogFile)
			for i, at := range grows {
				p.Sleep(at - p.Now())
				f.Append(Frame(web(int64(i+1), 100+i)))
				f.Sync(p)
			}
		})
	}
	require.NoError(t, w.W.Run(4*time.Second))
	t.Cleanup(w.Close)
	op(w, "reader", "server-3", check.Read("deployments/web"), 2801*ms, 3801*ms, check.Result{Outcome: check.Indefinite})
	op(w, "reader", "server-3", check.Read("deployments/web"), 3816*ms, 3830*ms, check.Found(120, 190))
	op(w, "reader", "server-3", check.Read("deployments/web"), 3845*ms, 4845*ms, check.Result{Outcome: check.Indefinite})
	return w
}

// A follower back far behind whose log grew only twice while the first
// read parked on it waited, 400ms apart, is told by how seldom the leader
// sent it what it was missing. One whose log grew every 100ms is told as a
// follower that did not answer; one that answered half the reads passes.
func TestReadsParkedOnAFollowerTheLeaderFedSeldomAreToldByItsLog(t *testing.T) {
	f := parkedReads(parkedOn(t, 2900*ms, 3300*ms))
	require.NotNil(t, f)
	assert.Equal(t, check.Unanswered, f.Name)
	assert.Equal(t, 2801*ms, f.At)
	assert.True(t, strings.HasPrefix(f.Story, "server-3 came back at 2800ms and answered only 1 of the 3 Latest reads parked on it over the next 800ms; "+
		"the first left without an answer: "), f.Story)
	assert.Contains(t, f.Story, "While it waited, server-3, far behind and connected to the leader server-1 while the writers went on, wrote to its log only 2 times, "+
		"and nothing for 400ms at a stretch: the leader sent it what it was missing that seldom")
	assert.Contains(t, f.Story, "a leader that sends them 400ms apart, not far more often than a client waits (1000ms), leaves every read parked on it to time out")

	f = parkedReads(parkedOn(t, 2850*ms, 2950*ms, 3050*ms, 3150*ms, 3250*ms, 3350*ms))
	require.NotNil(t, f)
	assert.Equal(t, check.Unanswered, f.Name)
	assert.NotContains(t, f.Story, "that seldom", "its log grew every 100ms: the leader fed it often enough")
	assert.Contains(t, f.Story, "A follower that is back catches up and answers, it does not refuse until it is told everything")

	w := parkedOn(t, 2900*ms, 3300*ms)
	op(w, "reader", "server-3", check.Read("deployments/api"), 4860*ms, 4870*ms, check.Found(230, 191))
	assert.Nil(t, parkedReads(w), "half the reads answered: the first waited while it caught up")
}
