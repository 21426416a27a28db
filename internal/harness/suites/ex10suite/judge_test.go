package ex10suite

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/suites/ex08suite"
)

const ms = time.Millisecond

// judged is a world of n servers with no servers running, whose history
// the test writes by hand.
func judged(t *testing.T, n int) *world {
	s := scene.New(1, nil, scene.Servers(n))
	t.Cleanup(s.Close)
	return &world{Scene: s, disks: ex08suite.NewDisks(s)}
}

// cutOff is a world with no servers running, the leader cut off from both
// followers from 1000ms to 6000ms, whose history the test writes by hand.
func cutOff(t *testing.T) *world {
	w := judged(t, 3)
	w.Faults = []check.Fault{{Kind: sim.FaultPartition, Desc: "partition server-2 server-3 | the rest", Start: 1000 * ms, End: 6000 * ms}}
	w.AuditedAt = 9500 * ms
	return w
}

// A write the leader cannot get agreed is answered Timeout within the write
// timeout; a client that had to give up on its own was kept waiting.
func TestTheLeaderAnswersEveryRequestWithinTheWriteTimeout(t *testing.T) {
	w := cutOff(t)
	h := w.History
	timedOut := h.Call("controller-a", "server-1", check.Write("deployments/web", 101), 1200*ms)
	h.Return(timedOut, check.Result{Outcome: check.Indefinite}, 1200*ms+writeTimeout+2*ms)
	assert.Nil(t, unbounded(w), "the leader said Timeout after 3s: an answer, in time")

	late := h.Call("controller-b", "server-1", check.Write("deployments/api", 102), 1300*ms)
	h.Timeout(late, 1300*ms+requestTimeout)
	f := unbounded(w)
	require.NotNil(t, f)
	assert.Equal(t, "no-answer-in-time", f.Name)
	assert.Equal(t, 1300*ms+answerBound, f.At, "the moment the bound ran out")
	assert.Contains(t, f.Story, "controller-b sent write deployments/api=102 to the leader at 1300ms and gave up waiting at 4800ms, 3500ms later")
	assert.Contains(t, f.Story, "the leader kept it waiting past 3000ms, the write timeout")
}

// A leader that crashed while it was asked answers nothing, and that is
// the crash's doing, not a missing time limit; a follower's silence is not
// the leader's either.
func TestACrashedLeaderOrAFollowerIsNotHeldToTheBound(t *testing.T) {
	w := cutOff(t)
	w.Faults = append(w.Faults, check.Fault{Kind: sim.FaultCrash, Desc: "crash server-1", Nodes: []sim.NodeID{"server-1"}, Start: 2000 * ms, End: 2500 * ms})
	h := w.History
	lost := h.Call("controller-a", "server-1", check.Write("deployments/web", 103), 1900*ms)
	h.Timeout(lost, 1900*ms+requestTimeout)
	away := h.Call("controller-c", "server-2", check.Read("deployments/web"), 1100*ms)
	h.Timeout(away, 1100*ms+requestTimeout)
	assert.Nil(t, unbounded(w))

	waiting := h.Call("controller-d", "server-1", check.Write("deployments/web", 104), 3000*ms)
	_ = waiting // never answered: still waiting when the audit began
	f := unbounded(w)
	require.NotNil(t, f)
	assert.Contains(t, f.Story, "was still waiting when the audit began at 9500ms")
}

// In the minority scene, a follower cut off with the leader holds a write
// only the two of them have: a reader may see the value before it, never
// that one, whether it gets or lists; the failure names the read, the
// write behind the value and the cut.
func TestAFollowerCutOffWithTheLeaderShowsOnlyWhatAMajorityHolds(t *testing.T) {
	w := judged(t, minorityServers)
	web := func(i int64, replicas int) ex08suite.Entry {
		return ex08suite.Entry{Index: i, Event: kube.Event{Type: kube.Modified,
			Object: kube.Object{Kind: "deployments", Name: "web", Replicas: replicas, ResourceVersion: i}}}
	}
	for i, id := range w.Servers {
		w.W.AddNode(id, func(p *sim.Proc) {
			f := p.Disk().Open(ex08suite.LogFile)
			f.Append(ex08suite.Frame(web(1, 1)))
			if i < 2 { // the leader and its companion
				f.Append(ex08suite.Frame(web(2, 12)))
			}
			f.Sync(p)
		})
	}
	w.Inject(scene.Partition{Groups: [][]sim.NodeID{{"server-1", "server-2"}}, From: 0, For: cutFor})
	w.History.Call("writer", "server-1", check.Write("deployments/web", 12), 20*ms)
	read := func(replicas int, rv int64, how string) {
		w.W.AddNode(sim.NodeID(fmt.Sprintf("reader-%d", rv)), func(p *sim.Proc) {
			p.Sleep(100 * ms) // once the disks are synced
			obj := kube.Object{Kind: "deployments", Name: "web", Replicas: replicas, ResourceVersion: rv}
			w.readCommitted(p, "reader", "server-2", how, "deployments/web", obj)
		})
	}
	read(1, 1, ex08suite.AnyRead)
	require.NoError(t, w.W.Run(time.Second))
	assert.Nil(t, w.uncommitted, "the value every disk holds is committed")

	read(12, 2, ex08suite.AnyList)
	require.NoError(t, w.W.Run(2*time.Second))
	f := uncommitted(w)
	require.NotNil(t, f)
	assert.Equal(t, "read-uncommitted", f.Name)
	assert.Contains(t, f.Story, "server-2 answered reader's Any list of deployments/web with replicas=12 (rv 2, written by writer's write deployments/web=12 through server-1, sent at 20ms and not answered yet)")
	assert.Contains(t, f.Story, "only 2 of 5 servers' disks held it, synced (server-1, server-2)")
	assert.Contains(t, f.Details, "partition server-1 server-2 | the rest from 0ms for 4000ms")
}

// webAt is the change at position i of the log: web scaled to replicas.
func webAt(i int64, replicas int) ex08suite.Entry {
	return ex08suite.Entry{Index: i, Event: kube.Event{Type: kube.Modified,
		Object: kube.Object{Kind: "deployments", Name: "web", Replicas: replicas, ResourceVersion: i}}}
}

// disksHold adds the servers, each with entries on its disk, synced:
// held[i] is how many of them server i holds (nil: every one). Each then
// goes on with then, if any, given its log.
func disksHold(w *world, entries []ex08suite.Entry, held []int, then func(p *sim.Proc, id sim.NodeID, log *sim.File)) {
	for i, id := range w.Servers {
		w.W.AddNode(id, func(p *sim.Proc) {
			f := p.Disk().Open(ex08suite.LogFile)
			n := len(entries)
			if held != nil {
				n = held[i]
			}
			for _, e := range entries[:n] {
				f.Append(ex08suite.Frame(e))
			}
			f.Sync(p)
			if then != nil {
				then(p, id, f)
			}
		})
	}
}

// A Conflict about the version the agreed log holds was decided against a
// tail no majority held; one the agreed log bears out was not.
func TestARefusalMustBeTrueOfTheAgreedLog(t *testing.T) {
	w := judged(t, 3)
	disksHold(w, []ex08suite.Entry{webAt(1, 1), webAt(2, 5)}, []int{2, 1, 1}, nil) // entry 2 on the leader's disk only
	refuse := func(rv int64) {
		w.W.AddNode(sim.NodeID(fmt.Sprintf("controller-%d", rv)), func(p *sim.Proc) {
			p.Sleep(100 * ms)
			writer{w: w, p: p}.refused(50*ms, fmt.Sprintf("scale deployments/web to 7 if rv=%d", rv), "deployments/web", false, rv, kube.ErrConflict)
		})
	}
	refuse(2)
	require.NoError(t, w.W.Run(time.Second))
	assert.Nil(t, refusedEarly(w), "the agreed log has web at rv=1: a precondition of rv=2 does conflict")

	refuse(1)
	require.NoError(t, w.W.Run(2*time.Second))
	f := refusedEarly(w)
	require.NotNil(t, f)
	assert.Equal(t, "refused-before-agreement", f.Name)
	assert.Contains(t, f.Story, "the leader answered controller-1's scale deployments/web to 7 if rv=1 (sent at 50ms) Conflict at 200ms, "+
		"but the log a majority held on disk then (entries 1–1) has deployments/web at rv=1")
	assert.Contains(t, f.Story, "against log entry 2 (MODIFIED deployments/web), which only server-1 held on disk")
}

// Append is the exercise's Append as the trace holds it, to the field (the
// suite reads it by its fields); it prints as nothing like the exercise's,
// so that no story can lean on how it prints.
type Append struct {
	Prev    int64
	Entries []ex08suite.Entry
	Commit  int64
}

func (a Append) String() string { return fmt.Sprintf("a message with %d entries", len(a.Entries)) }

// An Append that came to nothing and was never sent again leaves its
// follower behind for good: the story names the entry, the Append and why.
// Sent again and answered, it is no cause.
func TestAnAppendNeverSentAgainIsTold(t *testing.T) {
	verdict := func(resent bool) *suite.Failure {
		w := judged(t, 3)
		entries := []ex08suite.Entry{webAt(1, 1), webAt(2, 5)}
		disksHold(w, entries, []int{2, 1, 2}, func(p *sim.Proc, id sim.NodeID, _ *sim.File) {
			switch id {
			case leader:
				p.Sleep(10 * ms)
				p.Call("server-2", Append{Prev: 1, Entries: entries[1:], Commit: 1}, 200*ms) // cut off: no answer
				if resent {
					p.Sleep(600 * ms)
					p.Call("server-2", Append{Prev: 1, Entries: entries[1:], Commit: 2}, 200*ms)
				}
			case "server-2":
				p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return "HOLD 1", nil })
			}
		})
		w.Inject(scene.Partition{Groups: [][]sim.NodeID{{"server-2"}}, From: 0, For: 500 * ms})
		require.NoError(t, w.W.Run(2*time.Second))
		w.Audited, w.AuditedAt = true, 2*time.Second
		w.Histories = map[string][]check.Change{string(leader): {{Version: 1, Key: "deployments/web", Value: 1}, {Version: 2, Key: "deployments/web", Value: 5}}}
		return neverResent(w)
	}
	f := verdict(false)
	require.NotNil(t, f)
	assert.Equal(t, "append-never-resent", f.Name)
	assert.Contains(t, f.Story, "the leader sent server-2 entry 2 (deployments/web=5) at 11ms, in an Append of entry 2, which came to nothing (no answer within its timeout), and never sent it again")
	assert.Nil(t, verdict(true), "sent again and answered: the follower's own doing, if anything")
}

// An Append is read by its fields: the entries it carries by their
// indexes, none for one that only passes on the commit; another message is
// no Append.
func TestAnAppendIsReadByItsFields(t *testing.T) {
	a, ok := readAppend(Append{Prev: 4, Entries: []ex08suite.Entry{webAt(5, 1), webAt(6, 2), webAt(7, 3)}, Commit: 4})
	require.True(t, ok)
	assert.Equal(t, appendMsg{prev: 4, commit: 4, from: 5, to: 7}, a)
	assert.Equal(t, "entries 5–7", a.entries())
	a, ok = readAppend(&Append{Prev: 7, Commit: 6})
	require.True(t, ok, "a pointer to an Append is an Append")
	assert.True(t, a.heartbeat(), "it carries no entries")
	assert.Equal(t, int64(6), a.commit)
	_, ok = readAppend("APPEND 5-7 (commit 4)")
	assert.False(t, ok, "what prints like an Append is not one")
	type Appended struct{ Match int64 }
	_, ok = readAppend(Appended{Match: 3})
	assert.False(t, ok)
}

// A leader that crashed holding an acknowledged write that a majority
// holds on disk, and came back sending its followers only what follows its
// own log, never commits that write again: the story names the write, the
// restart, who holds it and what the leader sent since. Committed again, or
// held by no majority (lost, which durable tells), it is no cause of this.
func TestARestartedLeaderThatNeverSendsWhatItsFollowersLackIsTold(t *testing.T) {
	verdict := func(held []int, committed int) *suite.Failure {
		w := judged(t, 3)
		entries := []ex08suite.Entry{webAt(1, 1), webAt(2, 5), webAt(3, 6)}
		disksHold(w, entries, held, func(p *sim.Proc, id sim.NodeID, _ *sim.File) {
			switch id {
			case leader: // back from its crash, it sends server-3 what follows its own log
				p.Sleep(1600 * ms)
				p.Call("server-3", Append{Prev: 2, Entries: entries[2:], Commit: 1}, 500*ms)
			default:
				p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return "HOLD", nil })
			}
		})
		w.acks = []ack{{client: "controller-a", what: "scale deployments/web to 5", key: "deployments/web", index: 2, sent: 700 * ms, at: 800 * ms}}
		w.Faults = []check.Fault{{Kind: sim.FaultCrash, Desc: "crash server-1", Nodes: []sim.NodeID{leader}, Start: 1000 * ms, End: 1500 * ms}}
		require.NoError(t, w.W.Run(3*time.Second))
		w.Audited, w.AuditedAt = true, 3*time.Second
		web := []check.Change{{Version: 1, Key: "deployments/web", Value: 1}, {Version: 2, Key: "deployments/web", Value: 5}}
		w.Histories = map[string][]check.Change{string(leader): web[:committed]}
		return notResentAfterRestart(w)
	}
	f := verdict([]int{2, 2, 1}, 1)
	require.NotNil(t, f)
	assert.Equal(t, "not-resent-after-restart", f.Name)
	assert.Equal(t, 3*time.Second, f.At, "told at the audit")
	assert.Contains(t, f.Story, "controller-a heard yes for scale deployments/web to 5 (log entry 2) at 800ms; the leader crashed and came back at 1500ms with it on disk, "+
		"and server-1 and server-2 hold it on disk still, yet the one history the servers serve at the audit holds entry 1 and not it")
	assert.Contains(t, f.Story, "Since it came back, the leader sent server-2 (holding entries 1–2) nothing; server-3 (holding entry 1) entries from 3 on")

	assert.Nil(t, verdict([]int{2, 2, 1}, 2), "committed again: in the history")
	assert.Nil(t, verdict([]int{2, 1, 1}, 1), "on the leader's disk alone: lost, which durable tells")
}

// A burst that took longer than its bound, whose leader never had two
// Appends on their way to one follower, is told as one Append in flight:
// the story counts the Appends and the biggest batch. A leader that did
// send without waiting, and was slow all the same, is not told so.
func TestALeaderWithOneAppendInFlightIsTold(t *testing.T) {
	verdict := func(pipelined bool) *suite.Failure {
		w := judged(t, 3)
		link := sim.Link{Min: 90 * ms, Max: 100 * ms}
		entries := []ex08suite.Entry{webAt(1, 1), webAt(2, 2), webAt(3, 3), webAt(4, 4)}
		for _, id := range w.Servers {
			w.W.AddNode(id, func(p *sim.Proc) {
				if id != leader {
					p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return "HOLD", nil })
					return
				}
				p.Sleep(1000 * ms)
				for _, f := range w.Servers[1:] {
					p.Go("append to "+string(f), func(p *sim.Proc) {
						// entry 1 alone, then 2–4 once its answer is back, or at once
						batches := [][2]int{{0, 1}, {1, 4}}
						for _, b := range batches {
							a := Append{Prev: int64(b[0]), Entries: entries[b[0]:b[1]]}
							if pipelined {
								p.Send(f, a) // no wait: the next goes out at once
								continue
							}
							p.Call(f, a, time.Second)
						}
					})
				}
			})
		}
		for i, a := range w.Servers {
			for _, b := range w.Servers[i+1:] {
				w.W.SetLinks(a, b, link)
			}
		}
		require.NoError(t, w.W.Run(3*time.Second))
		w.burst = burst{link: link, clients: 2, writes: 2, start: 1000 * ms}
		w.acks = []ack{{client: "controller-a", at: 1200 * ms}, {client: "controller-b", at: 2000 * ms}}
		return slow(w)
	}
	f := verdict(false)
	require.NotNil(t, f)
	assert.Equal(t, "one-append-in-flight", f.Name)
	assert.Equal(t, 2000*ms, f.At, "when the last yes arrived")
	assert.Contains(t, f.Story, "the leader never had more than one Append on its way to a follower: it sent "+
		"2 Appends to server-2, up to 3 entries in one and 2 Appends to server-3, up to 3 entries in one, each only once the answer to the one before had come back")
	assert.Contains(t, f.Details, "latency of each write from send to yes, 2 writes, servers 90–100ms apart (a round trip: 200ms)\n"+
		"    0–100  ms  ·\n  100–200  ms  ·\n  200–300  ms  ·\n", "under the story, what its slowness is made of")
	assert.Contains(t, f.Story, "2 controllers each writing 2 changes in a row from 1000ms got their last yes at 2000ms, 1000ms later, 5.0 round trips of 200ms, where the bound for the burst is 3 round trips and 80ms for syncs (680ms)")

	f = verdict(true)
	require.NotNil(t, f, "slow all the same")
	assert.Equal(t, "one-round-trip-per-write", f.Name, "two Appends were on their way at once: not one at a time")
}

// A follower that holds entries on its disk and never applies them, because
// the leader's one message saying they were committed was lost and the
// leader never said it again, is told by that silence: the story names the
// last message that said it, its fate, and what the follower was missing.
// Said again and heard, the follower's lag is no longer the leader's doing.
func TestALeaderThatStopsPassingOnTheCommitIsTold(t *testing.T) {
	verdict := func(again bool) *suite.Failure {
		w := judged(t, 3)
		entries := []ex08suite.Entry{webAt(1, 1), webAt(2, 5)}
		disksHold(w, entries, nil, func(p *sim.Proc, id sim.NodeID, _ *sim.File) {
			if id != leader {
				p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return nil, nil })
				return
			}
			p.Sleep(100 * ms)
			p.Send("server-3", Append{Prev: 2, Commit: 2}) // server-3 is cut off: lost
			if again {
				p.Sleep(600 * ms)
				p.Send("server-3", Append{Prev: 2, Commit: 2})
			}
		})
		w.Inject(scene.Partition{Groups: [][]sim.NodeID{{"server-3"}}, From: 0, For: 500 * ms})
		require.NoError(t, w.W.Run(2*time.Second))
		w.Audited, w.AuditedAt = true, 2*time.Second
		web := []check.Change{{Version: 1, Key: "deployments/web", Value: 1}, {Version: 2, Key: "deployments/web", Value: 5}}
		w.Histories = map[string][]check.Change{string(leader): web, "server-2": web, "server-3": web[:1]}
		return commitNotPassedOn(w)
	}
	f := verdict(false)
	require.NotNil(t, f)
	assert.Equal(t, "commit-not-passed-on", f.Name)
	assert.Equal(t, "the leader last told server-3 the commit at 101ms (commit 2, in an Append with no entries; dropped: server-3 was cut off), "+
		"and sent it nothing from then to the audit at 2000ms: server-3 holds entries 1–2 on its disk but has applied only entry 1, "+
		"so it serves 1 of the history's 2 changes: it never learned that entry 2 was committed", f.Story[:strings.Index(f.Story, ". ")])
	assert.Nil(t, verdict(true), "told again once the cut healed: whatever server-3 did then is its own doing")
}

// An Append that carries entries past ones the leader never sent that
// follower left them out: the story names the Append, the entries left out
// and when they went after all. Sent in order, or by a leader that came
// back and starts wherever it likes, nothing was left out.
func TestAnAppendThatLeavesEntriesOutIsTold(t *testing.T) {
	verdict := func(batches [][2]int, restart bool) *suite.Failure {
		w := judged(t, 3)
		var entries []ex08suite.Entry
		for i := range 7 {
			entries = append(entries, webAt(int64(i+1), i+1))
		}
		for _, id := range w.Servers {
			w.W.AddNode(id, func(p *sim.Proc) {
				if id != leader {
					p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return nil, nil })
					return
				}
				if p.Now() > 0 { // back from a crash: it starts at its end
					p.Send("server-2", Append{Prev: 4, Entries: entries[4:]})
					return
				}
				for _, b := range batches {
					p.Sleep(100 * ms)
					p.Send("server-2", Append{Prev: int64(b[0]), Entries: entries[b[0]:b[1]]})
				}
			})
		}
		if restart {
			w.Inject(scene.Crash{Node: leader, At: 150 * ms, For: 10 * ms})
		}
		require.NoError(t, w.W.Run(time.Second))
		return skipped(w)
	}
	f := verdict([][2]int{{0, 3}, {4, 7}, {3, 7}}, false)
	require.NotNil(t, f)
	assert.Equal(t, "entries-left-out", f.Name)
	assert.Equal(t, 200*ms, f.At)
	assert.Contains(t, f.Story, "the leader sent server-2 an Append of entries 5–7 at 200ms when the last entry it had sent server-2 was 3: "+
		"it left out entry 4, and sent server-2 entry 4 only at 300ms, 100ms later")
	assert.Nil(t, verdict([][2]int{{0, 3}, {3, 7}, {1, 7}}, false), "in order, then again from entry 2: nothing left out")
	assert.Nil(t, verdict([][2]int{{0, 3}, {3, 7}}, true), "entries 1–3, then, back from a crash, entries 5–7: a new start")
}

// gapWorld is a world of three servers whose follower server-2 holds entry
// 1 and is sent an Append of entry 3 alone: it panics as the given log
// does (panicking says with what), or, on a panicking leader, the leader
// does.
func gapWorld(t *testing.T, panicking sim.NodeID, panicking2 string) *world {
	w := judged(t, 3)
	entries := []ex08suite.Entry{webAt(1, 1), webAt(2, 2), webAt(3, 3)}
	disksHold(w, entries, []int{1, 1, 1}, func(p *sim.Proc, id sim.NodeID, _ *sim.File) {
		switch id {
		case leader:
			p.Sleep(10 * ms)
			if panicking == leader {
				panic(panicking2)
			}
			p.Call("server-2", Append{Prev: 2, Entries: entries[2:], Commit: 1}, time.Second)
		case "server-2":
			p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { panic(panicking2) })
		}
	})
	w.Err = w.W.Run(time.Second)
	require.Error(t, w.Err)
	return w
}

// A follower that takes entries past a gap is stopped by the given log's
// own guard; that panic is the breach the guard exists to catch, told by
// its cause: which follower took which Append, what it lacked, when. A
// panic of the leader's, or another panic, is the run error it is.
func TestAFollowerThatAppendsPastAGapIsTold(t *testing.T) {
	f := ran(gapWorld(t, "server-2", outOfOrder))
	require.NotNil(t, f)
	assert.Equal(t, "appended-past-a-gap", f.Name)
	assert.Regexp(t, `^server-2 took an Append of entry 3 that arrived at [0-9.]+ms \(sent at 1[01]ms\), while its log held entry 1: it lacked entry 2, `+
		`and went ahead, so the log it was given refused entry 3 at [0-9.]+ms \(log\.go panicked: log: entry out of order\)\. `+
		`The leader had not sent server-2 entry 2 before\. `, f.Story)

	f = ran(gapWorld(t, leader, outOfOrder))
	require.NotNil(t, f)
	assert.NotEqual(t, "appended-past-a-gap", f.Name, "the leader's own log: not a follower's gap")
	f = ran(gapWorld(t, "server-2", "index out of range"))
	require.NotNil(t, f)
	assert.NotEqual(t, "appended-past-a-gap", f.Name, "another panic: a run error")
}

// stallWorld is a burst of one write whose entry 1 the leader appended to
// its log: synced and sent to both followers with a call timeout of
// timeout over links of 380–400ms; with timeout 0, neither synced nor
// sent; with a negative timeout, synced and not sent.
func stallWorld(t *testing.T, timeout time.Duration) *world {
	w := judged(t, 3)
	w.burst = burst{link: peerLink, clients: 1, writes: 1, start: 1000 * ms}
	for _, id := range w.Servers {
		w.W.AddNode(id, func(p *sim.Proc) {
			if id != leader {
				p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return "HOLD 1", nil })
				return
			}
			p.Sleep(1000 * ms)
			f := p.Disk().Open(ex08suite.LogFile)
			f.Append(ex08suite.Frame(webAt(1, 1)))
			if timeout == 0 {
				p.Sleep(4 * time.Second) // the write waits on, for nothing
				return
			}
			f.Sync(p)
			if timeout < 0 {
				p.Sleep(4 * time.Second)
				return
			}
			for _, to := range w.Servers[1:] {
				p.Go("append to "+string(to), func(p *sim.Proc) {
					p.Call(to, Append{Prev: 0, Entries: []ex08suite.Entry{webAt(1, 1)}}, timeout)
				})
			}
		})
	}
	for i, a := range w.Servers {
		for _, b := range w.Servers[i+1:] {
			w.W.SetLinks(a, b, peerLink)
		}
	}
	require.NoError(t, w.W.Run(5*time.Second))
	w.missing = []string{"controller-a's create deployments/web=1 at 4000ms"}
	return w
}

// A burst whose writes went unanswered with every server up is told by
// what the leader did with the first entry no one heard yes for: never
// synced nor sent, or sent in Appends each given up before a round trip
// could bring the answer. Appends that waited long enough are no cause.
func TestAStalledBurstIsToldByWhatTheLeaderDid(t *testing.T) {
	f := stalled(stallWorld(t, 0))
	require.NotNil(t, f)
	assert.Equal(t, "entry-left-in-the-log", f.Name)
	assert.Contains(t, f.Story, "the leader appended entry 1 (scale deployments/web to 1) to its log and, to the end of the run at 5000ms, "+
		"neither synced it to its own disk nor sent it to a follower: only 0 of 1 writes were acknowledged")

	f = stalled(stallWorld(t, -1))
	require.NotNil(t, f)
	assert.Equal(t, "entry-never-sent", f.Name)
	assert.Contains(t, f.Story, "the leader appended entry 1 (scale deployments/web to 1) to its log and synced it to its own disk, and to the end of the run at 5000ms never sent it to a follower")

	f = stalled(stallWorld(t, 100*ms))
	require.NotNil(t, f)
	assert.Equal(t, "append-given-up-too-soon", f.Name)
	assert.Regexp(t, `^the leader sent entry 1 \(scale deployments/web to 1\) to server-2 in an Append of entry 1 at 10[0-9.]+ms `+
		`and gave up waiting for the answer at 11[0-9.]+ms, 100ms later, while a round trip between servers takes up to 800ms; `+
		`server-2 sent its answer at [0-9.]+ms, 3[89][0-9.]+ms after the Append left, to a leader that had stopped waiting for it\. `+
		`Of the 2 Appends that carried entry 1, to server-2 and server-3, none was answered in time: 2 were given up so`, f.Story)

	assert.Nil(t, stalled(stallWorld(t, 2*time.Second)), "answered in time: not the leader's stall")
}

// Appended is the exercise's answer to an Append as the trace holds it, to
// the field.
type Appended struct{ Match int64 }

// A follower that answers an Append with entries its disk has written and
// not yet synced is told by what it did: which follower, which entry, when
// it said so, what its disk held synced then, and when the sync came. One
// that answers only what it has synced is no cause.
func TestAFollowerThatAcknowledgesBeforeItsSyncIsTold(t *testing.T) {
	verdict := func(early bool) *suite.Failure {
		w := judged(t, 3)
		entries := []ex08suite.Entry{webAt(1, 1), webAt(2, 5)}
		disksHold(w, entries, []int{1, 1, 1}, func(p *sim.Proc, id sim.NodeID, f *sim.File) {
			switch id {
			case leader:
				p.Sleep(10 * ms)
				p.Call("server-2", Append{Prev: 1, Entries: entries[1:], Commit: 1}, 200*ms)
			case "server-2":
				p.Serve(func(p *sim.Proc, _ sim.NodeID, _ any) (any, error) {
					f.Append(ex08suite.Frame(entries[1]))
					if early {
						p.Go("sync", func(p *sim.Proc) { p.Sleep(30 * ms); f.Sync(p) })
						return Appended{Match: 2}, nil
					}
					f.Sync(p)
					return Appended{Match: 2}, nil
				})
			}
		})
		require.NoError(t, w.W.Run(time.Second))
		return ackedBeforeSync(w)
	}
	assert.Nil(t, verdict(false), "synced, then answered: what it holds for sure")
	f := verdict(true)
	require.NotNil(t, f)
	assert.Equal(t, "acknowledged-before-sync", f.Name)
	assert.Contains(t, f.Story, "server-2 answered an Append at ")
	assert.Contains(t, f.Story, "that it held the log up to entry 2 (MODIFIED deployments/web) (Match 2), while its disk held entry 1 synced; its disk synced it only at ")
	assert.Contains(t, f.Story, "31ms later", "its sync began 30ms after the answer and took 1ms")
}

// A follower that appends again an entry its log holds stops the world
// with the given log's own panic; it is told as that cause, with the
// Append that brought the entry again and what the log held.
func TestAFollowerThatAppendsAnEntryTwiceIsTold(t *testing.T) {
	w := judged(t, 3)
	entries := []ex08suite.Entry{webAt(1, 1), webAt(2, 5)}
	disksHold(w, entries, []int{1, 1, 1}, func(p *sim.Proc, id sim.NodeID, _ *sim.File) {
		switch id {
		case leader:
			p.Sleep(10 * ms)
			p.Call("server-2", Append{Prev: 0, Entries: entries, Commit: 0}, 200*ms)
		case "server-2":
			p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { panic(outOfOrder) })
		}
	})
	w.Err = w.W.Run(time.Second)
	require.Error(t, w.Err)
	f := ran(w)
	require.NotNil(t, f)
	assert.Equal(t, "appended-twice", f.Name)
	assert.Contains(t, f.Story, "server-2 took an Append of entries 1–2 that arrived at ")
	assert.Contains(t, f.Story, "while its log held entry 1 (1 of them synced): it appended again entry 1, which its log already held")
}
