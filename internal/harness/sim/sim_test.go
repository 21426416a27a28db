package sim_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/sim"
)

const ms = time.Millisecond

// Put and Get are the messages of a tiny key-value server used by these tests.
type Put struct {
	Key   string
	Value int
}

type Get struct{ Key string }

// kvServer serves Put and Get from memory.
func kvServer(p *sim.Proc) {
	data := map[string]int{}
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		switch r := req.(type) {
		case Put:
			data[r.Key] = r.Value
			return "ok", nil
		case Get:
			return data[r.Key], nil
		}
		return nil, fmt.Errorf("unknown request %T", req)
	})
}

func TestCallTakesTheLinkDelayBothWays(t *testing.T) {
	w := sim.New(1, sim.Latency(400*ms, 400*ms))
	defer w.Close()
	w.AddNode("server-1", kvServer)
	var got any
	var at time.Duration
	w.AddNode("client", func(p *sim.Proc) {
		_, err := p.Call("server-1", Put{"deployments/web", 5}, time.Second)
		require.NoError(t, err)
		got, _ = p.Call("server-1", Get{"deployments/web"}, time.Second)
		at = p.Now()
	})
	require.NoError(t, w.Run(time.Minute))
	// Two round trips over a 400ms link: the read returns at 1600ms, having
	// seen the write.
	assert.Equal(t, 5, got)
	assert.Equal(t, 1600*ms, at)
}

func TestACallToACrashedNodeIsRefusedAndAPartitionTimesOut(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", kvServer)
	w.AddNode("server-2", kvServer)
	var errDown, errCut error
	w.AddNode("client", func(p *sim.Proc) {
		p.Sleep(10 * ms)
		_, errDown = p.Call("server-1", Get{"x"}, time.Second)
		_, errCut = p.Call("server-2", Get{"x"}, time.Second)
	})
	w.At(5*ms, func() {
		w.Crash("server-1")
		w.Partition([]sim.NodeID{"client", "server-1"}, []sim.NodeID{"server-2"})
	})
	require.NoError(t, w.Run(time.Minute))
	assert.ErrorIs(t, errDown, sim.ErrNodeDown)
	assert.ErrorIs(t, errCut, sim.ErrTimeout)
	faults := w.Faults()
	require.Len(t, faults, 2)
	assert.Equal(t, "crash server-1", faults[0].Desc)
	assert.Equal(t, sim.FaultCrash, faults[0].Kind)
	assert.Equal(t, sim.NodeID("server-1"), faults[0].Nodes[0])
	assert.Equal(t, "partition client,server-1 | server-2", faults[1].Desc)
	assert.Equal(t, sim.FaultPartition, faults[1].Kind)
}

func TestACrashEndsTheNodesProcessesAndRestartBootsItAgain(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	boots, ticks := 0, 0
	w.AddNode("server-1", func(p *sim.Proc) {
		boots++
		p.Go("ticker", func(p *sim.Proc) {
			for {
				p.Sleep(10 * ms)
				ticks++
			}
		})
	})
	w.At(55*ms, func() { w.Crash("server-1") })
	w.At(200*ms, func() { w.Restart("server-1") })
	require.NoError(t, w.Run(255*ms))
	// 5 ticks before the crash, none while down, 5 after the restart.
	assert.Equal(t, 2, boots)
	assert.Equal(t, 10, ticks)
}

func TestTheDiskKeepsWhatWasSyncedAndMayTearTheRest(t *testing.T) {
	kept := map[int]int{}
	for seed := int64(1); seed <= 200; seed++ {
		w := sim.New(seed)
		w.AddNode("server-1", func(p *sim.Proc) {
			f := p.Disk().Open("wal")
			f.Append([]byte("synced|"))
			f.Sync(p)
			f.Append([]byte("unsynced|"))
		})
		w.At(10*ms, func() { w.Crash("server-1") })
		require.NoError(t, w.Run(time.Second))
		data := string(w.Disk("server-1").Open("wal").ReadAll())
		// The world says what the crash did, as a value.
		unsynced := len("unsynced|")
		assert.Equal(t, []sim.Loss{{At: 10 * ms, File: "wal", Unsynced: unsynced, Kept: len(data) - len("synced|")}},
			w.DiskLosses("server-1"), "seed %d", seed)
		require.GreaterOrEqual(t, len(data), len("synced|"), "seed %d lost synced data: %q", seed, data)
		assert.Equal(t, "synced|", data[:7])
		kept[len(data)-7]++
		w.Close()
	}
	// Across seeds the crash often keeps none of the unsynced bytes, and
	// otherwise a prefix of them: a torn piece, or now and then all of them
	// (a disk may well have written what nobody asked it to sync).
	assert.Greater(t, kept[0], 50)
	assert.Greater(t, len(kept), 3)
	assert.Positive(t, kept[len("unsynced|")])
}

func TestProcessesWaitingOnEachOtherEndTheRunWithADeadlockNamingThem(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	var a, b sim.Mutex
	a.Name, b.Name = "a", "b"
	w.AddNode("server-1", func(p *sim.Proc) {
		p.Go("left", func(p *sim.Proc) { a.Lock(p); p.Sleep(ms); b.Lock(p) })
		p.Go("right", func(p *sim.Proc) { b.Lock(p); p.Sleep(ms); a.Lock(p) })
	})
	err := w.Run(time.Minute)
	var dl *sim.DeadlockError
	require.ErrorAs(t, err, &dl)
	assert.Len(t, dl.Blocked, 2)
	assert.Contains(t, err.Error(), "server-1/left waits in Mutex.Lock(b) held by server-1/right")
	assert.Contains(t, err.Error(), "server-1/right waits in Mutex.Lock(a) held by server-1/left")
}

func TestWaitingForWorkIsNotADeadlock(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	var q sim.Queue[int]
	got := 0
	w.AddNode("controller", func(p *sim.Proc) {
		p.Go("worker", func(p *sim.Proc) {
			for {
				got += q.Get(p)
			}
		})
		q.Put(2)
		q.Put(3)
	})
	require.NoError(t, w.Run(time.Minute))
	assert.Equal(t, 5, got)
}

func TestAPanicInAProcessEndsTheRunAndNamesIt(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) { p.Sleep(3 * ms); panic("boom") })
	err := w.Run(time.Minute)
	var pe *sim.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "server-1/main", pe.Proc)
	assert.Equal(t, 3*ms, pe.At)
}

func TestAProcessBlockedOutsideTheWorldIsCaughtByTheWatchdog(t *testing.T) {
	w := sim.New(1, sim.Watchdog(50*ms))
	block := make(chan struct{})
	defer close(block)
	w.AddNode("server-2", func(p *sim.Proc) { p.Sleep(time.Hour) })
	w.AddNode("server-1", func(p *sim.Proc) { p.Sleep(ms); <-block })
	err := w.Run(time.Minute)
	var se *sim.StuckError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "server-1/main", se.Proc)
	// Closing a stuck world must not wake server-2 beside the stuck process.
	w.Close()
}

func TestMisuseIsReportedClearly(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", kvServer)
	assert.PanicsWithError(t, `sim: misuse: Restart("server-1"): the node is running; crash it first`, func() { w.Restart("server-1") })
	assert.PanicsWithError(t, `sim: misuse: AddNode("server-1"): a node with that name already exists`, func() { w.AddNode("server-1", nil) })
	assert.PanicsWithError(t, `sim: misuse: Crash: unknown node "server-9" (nodes: [server-1])`, func() { w.Crash("server-9") })
	w.AddNode("client", func(p *sim.Proc) { p.Sleep(-ms) })
	err := w.Run(time.Minute)
	var me *sim.MisuseError
	require.ErrorAs(t, err, &me)
	assert.Contains(t, err.Error(), "Sleep(-1ms): durations and times cannot be negative")
}

func TestAProcUsedFromABareGoroutineIsCaught(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	start, done := make(chan struct{}), make(chan any)
	w.AddNode("server-1", func(p *sim.Proc) {
		go func() { // the mistake this test is about: a bare go statement
			<-start
			defer func() { done <- recover() }()
			p.Sleep(ms)
		}()
		p.Sleep(10 * ms)
	})
	var r any
	w.At(5*ms, func() { close(start); r = <-done })
	require.NoError(t, w.Run(time.Minute))
	require.NotNil(t, r)
	assert.Contains(t, fmt.Sprint(r), "start concurrent work with p.Go, not a go statement")
}

// busyWorld is a faulty cluster with plenty going on: three servers gossiping,
// clients writing and reading, lossy, duplicating links, a partition and a crash.
func busyWorld(seed int64) *sim.World {
	w := sim.New(seed, sim.Latency(ms, 40*ms))
	servers := []sim.NodeID{"server-1", "server-2", "server-3"}
	for _, s := range servers {
		w.AddNode(s, kvServer)
	}
	for _, a := range servers {
		for _, b := range servers {
			if a != b {
				w.SetLink(a, b, sim.Link{Min: ms, Max: 400 * ms, Drop: 0.05, Duplicate: 0.05})
			}
		}
	}
	for c := 1; c <= 4; c++ {
		w.AddNode(sim.NodeID(fmt.Sprintf("client-%d", c)), func(p *sim.Proc) {
			for i := 0; i < 20; i++ {
				s := servers[p.Rand().Intn(len(servers))]
				if _, err := p.Call(s, Put{"web", i}, 200*ms); err != nil {
					p.Logf("put failed: %v", err)
				}
				v, err := p.Call(s, Get{"web"}, 200*ms)
				p.Logf("get web = %v (%v)", v, err)
			}
		})
	}
	w.At(300*ms, func() { w.Partition([]sim.NodeID{"server-1"}, []sim.NodeID{"server-2", "server-3"}) })
	w.At(500*ms, func() { w.Crash("server-2") })
	w.At(900*ms, func() { w.Heal(); w.Restart("server-2") })
	return w
}

func TestTheSameSeedGivesTheSameTraceByteForByte(t *testing.T) {
	run := func(seed int64) string {
		w := busyWorld(seed)
		defer w.Close()
		require.NoError(t, w.Run(10*time.Second))
		return w.Trace().String()
	}
	first, again, other := run(7), run(7), run(8)
	require.Greater(t, len(first), 1000)
	assert.Equal(t, first, again, "seed 7 twice gave two different traces")
	assert.NotEqual(t, first, other, "seeds 7 and 8 gave the same trace")
}

// A judge that walks the trace with All sees the events Events lists, in
// their order, across the trace's chunks (a busy world records thousands),
// and may stop early.
func TestAllWalksTheTraceInOrderWithoutACopy(t *testing.T) {
	w := busyWorld(7)
	defer w.Close()
	require.NoError(t, w.Run(10*time.Second))
	want := w.Trace().Events()
	require.Greater(t, len(want), 256, "the trace fits in its first chunk: the walk across chunks is not exercised")
	var got []sim.Event
	for e := range w.Trace().All() {
		got = append(got, e)
	}
	assert.Equal(t, want, got)
	n := 0
	for range w.Trace().All() {
		if n++; n == 3 {
			break
		}
	}
	assert.Equal(t, 3, n)
}

func TestTheTimelineShowsOneLanePerNode(t *testing.T) {
	t.Setenv("COLUMNS", "")
	t.Setenv("ONEHISTORY_TIMELINE", "")
	w := sim.New(1, sim.Latency(5*ms, 5*ms))
	defer w.Close()
	w.AddNode("server-1", kvServer)
	w.AddNode("client", func(p *sim.Proc) {
		_, _ = p.Call("server-1", Put{"web", 5}, time.Second)
		p.Logf("scaled web to 5")
	})
	w.At(20*ms, func() { w.Crash("server-1") })
	require.NoError(t, w.Run(time.Second))
	got := w.Timeline(sim.TimelineOptions{Width: 30})
	want := "" +
		"virtual ms │ server-1                      │ client                        │\n" +
		"───────────┼───────────────────────────────┼───────────────────────────────┼\n" +
		"       0.0 │                               │ → server-1 Put{Key:web        │\n" +
		"           │                               │  Value:5}                     │\n" +
		"       5.0 │ ← client Put{Key:web Value:5} │                               │\n" +
		"       5.0 │ ⇢ client ok                   │                               │\n" +
		"      10.0 │                               │ ⇠ server-1 ok                 │\n" +
		"      10.0 │                               │ scaled web to 5               │\n" +
		"      20.0 │ ✖ CRASH                       │                               │\n"
	assert.Equal(t, want, got)
}

// A timeline fits the width it is given (a terminal's, from COLUMNS), and
// wide lanes hold every cell on one line; either way nothing is cut.
func TestTheTimelineFitsItsWidthAndCutsNothing(t *testing.T) {
	t.Setenv("ONEHISTORY_TIMELINE", "")
	w := sim.New(1, sim.Latency(5*ms, 5*ms))
	defer w.Close()
	w.AddNode("server-1", kvServer)
	w.AddNode("client", func(p *sim.Proc) {
		_, _ = p.Call("server-1", Put{"web", 5}, time.Second)
		p.Logf("DELETE pods/web-5 @server-1 → rv=7, the words a page asks a reader to find")
	})
	require.NoError(t, w.Run(time.Second))
	words := "DELETE pods/web-5 @server-1 → rv=7, the words a page asks a reader to find"
	t.Setenv("COLUMNS", "60")
	fitted := w.Timeline(sim.TimelineOptions{Width: 40})
	for _, line := range strings.Split(strings.TrimSpace(fitted), "\n") {
		assert.LessOrEqual(t, utf8.RuneCountInString(line), 60, line)
	}
	assert.NotContains(t, fitted, "…")
	for _, word := range strings.Fields(words) {
		assert.Contains(t, fitted, word)
	}
	t.Setenv("COLUMNS", "")
	wide := w.Timeline(sim.TimelineOptions{Width: 10, Wide: true})
	assert.Contains(t, wide, words, "a wide lane holds the whole cell on one line")
	// Each lane is as wide as its own longest cell: server-1's as its
	// "← client Put{Key:web Value:5}", not as the client's long line.
	header, _, _ := strings.Cut(wide, "\n")
	assert.Equal(t, "virtual ms │ "+fmt.Sprintf("%-29s", "server-1")+"│ "+fmt.Sprintf("%-*s", utf8.RuneCountInString(words), "client")+"│", header)
	assert.Equal(t, fitted, w.Timeline(sim.TimelineOptions{Fit: 60}), "Fit says what COLUMNS says")
}

func TestErrorsAreDistinct(t *testing.T) {
	assert.False(t, errors.Is(sim.ErrTimeout, sim.ErrNodeDown))
}

func TestCloseEndsEveryGoroutineTheWorldStartedButThoseTheNextWorldReuses(t *testing.T) {
	runWorlds := func() {
		for seed := int64(1); seed <= 20; seed++ {
			w := busyWorld(seed)
			require.NoError(t, w.Run(10*time.Second))
			w.Close()
		}
	}
	// Give exiting goroutines a moment to be counted out.
	settle := func(above int) {
		for i := 0; i < 100000 && runtime.NumGoroutine() > above; i++ {
			runtime.Gosched()
		}
	}
	before := runtime.NumGoroutine()
	runWorlds()
	settle(before)
	kept := runtime.NumGoroutine()
	// Hundreds of seeds in one suite must not leave thousands of parked
	// goroutines behind: a closed world hands a bounded few (256 at most)
	// on to the next, and the next takes those before it starts any.
	assert.LessOrEqual(t, kept, before+256+1)
	runWorlds()
	settle(kept)
	assert.LessOrEqual(t, runtime.NumGoroutine(), kept+1, "twenty more worlds left more goroutines behind: they did not reuse those kept")
}

func TestSyncedTellsWhatACrashWouldKeep(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	var before, appended, after int
	w.AddNode("server-1", func(p *sim.Proc) {
		f := p.Disk().Open("log")
		f.Append([]byte("one|"))
		before = f.Synced()
		f.Sync(p)
		f.Append([]byte("two|"))
		appended, after = f.Size(), f.Synced()
	})
	require.NoError(t, w.Run(time.Second))
	assert.Equal(t, 0, before, "nothing is durable before the first sync")
	assert.Equal(t, 8, appended)
	assert.Equal(t, 4, after, "only the synced record is durable")
}

// A world-wide fault spans the lanes and, when it says more than they are
// wide, goes on under itself: the row stays inside the width, and every
// word of it is there.
func TestAFaultRowKeepsToTheTimelinesWidth(t *testing.T) {
	fault := "slow link server-1 ↔ server-2 (380–400ms) from 0ms to 8000ms, and more words still"
	events := []sim.Event{{Kind: sim.EvFault, Text: fault}, {At: ms, Kind: sim.EvNote, Node: "a", Text: "hello"}}
	tl := sim.Timeline(events, sim.TimelineOptions{Columns: []sim.NodeID{"a", "b"}, Fit: 60})
	for _, line := range strings.Split(strings.TrimSpace(tl), "\n") {
		assert.LessOrEqual(t, utf8.RuneCountInString(line), 60, line)
	}
	for _, word := range strings.Fields(fault) {
		assert.Contains(t, tl, word)
	}
	// ex06's slow link, one character too long to break well at 80
	// columns: the row still ends inside them.
	slow := "slow link server-1 ↔ server-2 (380–400ms) from 0ms to 8000ms"
	lanes := []sim.NodeID{"controller", "server-1", "server-2", "dashboard"}
	tl = sim.Timeline([]sim.Event{{Kind: sim.EvFault, Text: slow}, {At: ms, Kind: sim.EvNote, Node: "dashboard", Text: "hello"}}, sim.TimelineOptions{Columns: lanes, Fit: 78})
	for _, line := range strings.Split(strings.TrimSpace(tl), "\n") {
		assert.LessOrEqual(t, utf8.RuneCountInString(line), 78, line)
	}
	assert.Contains(t, tl, "(380–400ms)")
}

// A crash unwinds each of the node's processes, wherever it waits, and runs
// its deferred calls: the harness's own bookkeeping in a process may rely on
// them, as a Go program relies on them when a goroutine ends.
func TestACrashRunsTheDeferredCallsOfTheNodesProcesses(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	var unwound []string
	w.AddNode("server-1", func(p *sim.Proc) {
		p.Go("worker", func(p *sim.Proc) {
			defer func() { unwound = append(unwound, "worker at "+sim.FormatTime(p.Now())) }()
			p.Sleep(time.Hour)
		})
		defer func() { unwound = append(unwound, "main") }()
		p.Sleep(time.Hour)
	})
	w.At(5*ms, func() { w.Crash("server-1") })
	require.NoError(t, w.Run(time.Minute))
	assert.ElementsMatch(t, []string{"main", "worker at 5ms"}, unwound)
}

// A process that recovers from its node's crash and goes on using the world
// (a server loop that recovers every panic, say) is dropped the next time it
// calls the world: it neither runs on as a ghost of the crashed node nor
// keeps the world waiting.
func TestAProcessThatRecoversFromItsCrashIsDropped(t *testing.T) {
	w := sim.New(1, sim.Watchdog(time.Second))
	defer w.Close()
	var after []time.Duration
	w.AddNode("server-1", func(p *sim.Proc) {
		for {
			func() {
				defer func() { recover() }() // the pattern this test is about
				p.Sleep(ms)
				after = append(after, p.Now())
			}()
		}
	})
	w.At(3500*time.Microsecond, func() { w.Crash("server-1") })
	require.NoError(t, w.Run(20*ms))
	assert.Equal(t, []time.Duration{ms, 2 * ms, 3 * ms}, after)
	assert.False(t, w.Up("server-1"))
}

// A process that crashes its own node ends at that call.
func TestAProcessThatCrashesItsOwnNodeEndsThere(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	reached := false
	w.AddNode("server-1", func(p *sim.Proc) {
		p.Sleep(ms)
		w.Crash("server-1")
		reached = true
	})
	require.NoError(t, w.Run(time.Minute))
	assert.False(t, reached)
	assert.False(t, w.Up("server-1"))
}

// Harness code that ends a process's goroutine (runtime.Goexit, as
// t.FailNow does) ends the run with an error naming the process, instead of
// taking the caller's goroutine with it.
func TestAGoexitInAProcessEndsTheRunAndNamesIt(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) { p.Sleep(2 * ms); runtime.Goexit() })
	err := w.Run(time.Minute)
	var pe *sim.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "server-1/main", pe.Proc)
	assert.Equal(t, 2*ms, pe.At)
}

// A process that recovers from its node's crash cannot make what it wrote
// durable after the fact: the disk of a crashed node takes nothing more,
// and the attempt is named.
func TestAProcessThatRecoversFromItsCrashCannotReachItsDisk(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) {
		f := p.Disk().Open("wal")
		f.Append([]byte("unsynced"))
		defer func() {
			recover()                   // the crash
			f.Append([]byte("rescued")) // and the way out it looks for
		}()
		p.Sleep(time.Hour)
	})
	w.At(5*ms, func() { w.Crash("server-1") })
	err := w.Run(time.Minute)
	var me *sim.MisuseError
	require.ErrorAs(t, err, &me)
	assert.Contains(t, err.Error(), "Append: node server-1 is down")
	data, _ := w.FileBytes("server-1", "wal")
	assert.NotContains(t, string(data), "rescued")
}
