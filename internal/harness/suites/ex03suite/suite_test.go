package ex03suite

import (
	"errors"
	"slices"
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
	"onehistory/internal/harness/suites/ex03suite/drill"
)

// tally judges every world check name plays, as the runner does, and
// returns the failure the check's tally reports.
func tally(t *testing.T, impl func(c *drill.Cluster) error, name string) *suite.Failure {
	t.Setenv("RUNS", "3")
	ch := chapter(impl)
	i := slices.IndexFunc(ch.Checks, func(k scene.Check[*world]) bool { return k.Name == name })
	require.GreaterOrEqual(t, i, 0, name)
	plays := make([][]*suite.Failure, len(ch.Checks[i].Plays))
	for p, play := range ch.Checks[i].Plays {
		for _, seed := range play.Seeds.List() {
			plays[p] = append(plays[p], ch.Verdict(name, play.World, seed))
		}
	}
	return ch.Checks[i].Tally(plays)
}

// wolf runs the world and always reports a finding.
func wolf(c *drill.Cluster) error {
	c.Run(time.Second) //nolint:errcheck // nothing runs
	return errors.New("the cluster is broken\nreally")
}

// A drill that cries wolf catches every broken cluster and is told so, and
// then told the finding it reported against a correct one.
func TestADrillThatAlwaysFailsIsAFalseAlarm(t *testing.T) {
	f := tally(t, wolf, "catches-async-replication")
	require.NotNil(t, f)
	assert.Equal(t, nameFalseAlarm, f.Name)
	assert.Equal(t, `your drill caught the cluster "asynchronous replication" on 3 of 3 seeds, but it also reported a finding against the cluster "one store behind both servers", which keeps the contract (seed 1): the cluster is broken`, f.Story)
	assert.Contains(t, f.Details, "your drill's finding, in full:\n  the cluster is broken\n  really")

	f = tally(t, wolf, "passes-correct-clusters")
	require.NotNil(t, f)
	assert.True(t, strings.HasPrefix(f.Story, `your drill reported a finding against the cluster "one store behind both servers"`), f.Story)
}

// A drill that never runs the world declares every cluster healthy: each
// broken one is told with how many seeds it slipped through, and the
// correct ones are passed for nothing.
func TestADrillThatNeverRunsTheWorldMissesEveryCluster(t *testing.T) {
	idle := func(c *drill.Cluster) error { return nil }
	f := tally(t, idle, "catches-lost-write")
	require.NotNil(t, f)
	assert.Equal(t, nameSilence, f.Name)
	assert.True(t, strings.HasSuffix(f.Story, "; your drill declared it healthy on 3 of 3 seeds (it must catch it on 90%)"), f.Story)
	assert.Contains(t, f.Details, "it never ran the world (c.Run)")
	assert.Equal(t, int64(1), f.Seed, "the first seed it slipped through")

	f = tally(t, idle, "passes-correct-clusters")
	require.NotNil(t, f)
	assert.True(t, strings.HasPrefix(f.Story, "your drill passed every correct cluster, but it passes the broken ones too: a drill that never fails proves nothing. "+
		`The cluster "asynchronous replication"`), f.Story)
}

// A drill that panics is told before anything it concluded.
func TestADrillThatPanicsIsToldFirst(t *testing.T) {
	f := tally(t, func(c *drill.Cluster) error { panic("oops") }, "catches-divergence")
	require.NotNil(t, f)
	assert.Equal(t, suite.PanicName, f.Name)
	assert.Equal(t, `your drill panicked on the cluster "two separate memories"`, f.Story)
}

// writesThroughServer1 is a drill whose writer writes through server-1
// only, reads each write back from both servers, and judges the history.
func writesThroughServer1(servers int) func(c *drill.Cluster) error {
	return func(c *drill.Cluster) error {
		h := check.NewHistory()
		all := c.Servers()
		c.Client("writer", func(p *sim.Proc) {
			api := kube.NewClient(p, all...).Record(h).WithTimeout(200 * time.Millisecond)
			for n := 1; n <= 10; n++ {
				obj := kube.Object{Kind: "deployments", Name: "web", Replicas: n}
				if _, err := api.Pin(all[(n-1)%servers]).Create(obj); err != nil {
					api.Pin(all[(n-1)%servers]).Update(obj) //nolint:errcheck // recorded in h
				}
				p.Sleep(20 * time.Millisecond)
				for _, s := range all {
					api.Pin(s).Get(obj.Key(), kube.ReadOptions{}) //nolint:errcheck // recorded in h
				}
				p.Sleep(50 * time.Millisecond)
			}
		})
		if err := c.Run(time.Second); err != nil {
			return err
		}
		if l := check.Linearizable(h, 0); !l.OK() {
			return errors.New(l.Violation.Story)
		}
		return nil
	}
}

// A drill that never writes through server-2 misses the cluster whose
// server-2 acknowledges early, and is told that it never did; one that
// writes through both servers catches it.
func TestADrillThatWritesThroughServer1OnlyIsToldSo(t *testing.T) {
	w := play(writesThroughServer1(1), earlyAck, 1)
	f := missed(w)
	require.NotNil(t, f)
	assert.Equal(t, nameSilence, f.Name)
	assert.True(t, strings.HasPrefix(f.Story, `the cluster "server-2 acknowledges early" keeps one store on server-1`), f.Story)
	assert.True(t, strings.HasSuffix(f.Story, "; your drill never sent a write to server-2, and declared it healthy"), f.Story)

	for seed := int64(1); seed <= 3; seed++ {
		w := play(writesThroughServer1(2), earlyAck, seed)
		assert.Error(t, w.finding, "seed %d: writes through server-2 read back show the early acknowledgement", seed)
		assert.Nil(t, missed(w))
	}
}

// cutsServer1Off is a drill that cuts server-1 off (or crashes it, if
// crash) from 100 to 200ms while a writer writes through server-2, then
// reads each server on its own at 900ms, once the split brain's server-2
// answers reads again, and, if compare, returns a finding when they
// disagree.
func cutsServer1Off(crash, compare bool) func(c *drill.Cluster) error {
	return func(c *drill.Cluster) error {
		all := c.Servers()
		if crash {
			c.At(100*time.Millisecond, func() { c.Crash(all[0]) })
			c.At(200*time.Millisecond, func() { c.Restart(all[0]) })
		} else {
			c.At(100*time.Millisecond, func() { c.Partition(all[:1]) })
			c.At(200*time.Millisecond, c.Heal)
		}
		c.Client("writer", func(p *sim.Proc) {
			api := kube.NewClient(p, all[1]).WithTimeout(200 * time.Millisecond)
			api.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 1}) //nolint:errcheck // what the servers hold is compared
			p.Sleep(120 * time.Millisecond)
			api.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: 2}) //nolint:errcheck // the same
		})
		held := map[sim.NodeID]kube.Object{}
		c.Client("auditor", func(p *sim.Proc) {
			p.Sleep(900 * time.Millisecond)
			api := kube.NewClient(p, all...).WithTimeout(200 * time.Millisecond)
			for _, s := range all {
				held[s], _ = api.Pin(s).Get("deployments/web", kube.ReadOptions{})
			}
		})
		if err := c.Run(1500 * time.Millisecond); err != nil {
			return err
		}
		if compare && held[all[0]] != held[all[1]] {
			return errors.New("the servers disagree")
		}
		return nil
	}
}

// A drill that cuts server-1 off while it writes through server-2 sees the
// split brain's servers disagree once the faults are over; one that does
// not compare them is told what it read and did not compare, and one that
// only crashes servers is told it never cut one off.
func TestADrillThatDoesNotCompareTheServersMissesTheSplitBrain(t *testing.T) {
	w := play(cutsServer1Off(false, true), splitBrain, 1)
	assert.Error(t, w.finding, "the split brain's servers disagree once the partition is over")
	assert.Nil(t, missed(w))

	w = play(cutsServer1Off(false, false), splitBrain, 1)
	f := missed(w)
	require.NotNil(t, f)
	assert.Equal(t, nameSilence, f.Name)
	assert.True(t, strings.HasPrefix(f.Story, `the cluster "split brain after a partition" copies each write to server-2`), f.Story)
	assert.Regexp(t, `; your drill read deployments/web from server-1 as deployments/web\{replicas=1 rv=\d+\} and from server-2 as deployments/web\{replicas=2 rv=\d+\} once every fault was over, but never compared the two, and declared it healthy$`, f.Story)

	w = play(cutsServer1Off(true, true), splitBrain, 1)
	assert.NoError(t, w.finding, "a crash is told apart: the servers agree")
	f = missed(w)
	require.NotNil(t, f)
	assert.True(t, strings.HasSuffix(f.Story, "; your drill never cut a server off with a partition (a crash is another fault: a crashed server refuses at once, a cut-off one is silent), and declared it healthy"), f.Story)
}

// The split brain keeps the contract as far as a drill that never cuts
// server-1 off can tell: a correct cluster's drill finds nothing in it.
func TestTheSplitBrainLooksHealthyToADrillThatOnlyCrashes(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		assert.NoError(t, play(cutsServer1Off(true, true), splitBrain, seed).finding, "seed %d", seed)
		assert.NoError(t, play(cutsServer1Off(false, true), syncReplication, seed).finding, "seed %d: the synchronous cluster keeps the contract", seed)
	}
}

// writesThenReadsBack is a drill that creates deployments/web through
// server-1, updates it 100ms later, and reads it back from server from:
// a finding when the read misses the update (or the object).
func writesThenReadsBack(from int) func(c *drill.Cluster) error {
	return func(c *drill.Cluster) error {
		all := c.Servers()
		var got kube.Object
		var err error
		c.Client("writer", func(p *sim.Proc) {
			api := kube.NewClient(p, all...).WithTimeout(200 * time.Millisecond)
			api.Pin(all[0]).Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 1}) //nolint:errcheck // read back below
			p.Sleep(100 * time.Millisecond)
			if _, err := api.Pin(all[0]).Update(kube.Object{Kind: "deployments", Name: "web", Replicas: 2}); err != nil {
				return
			}
			got, err = api.Pin(all[from]).Get("deployments/web", kube.ReadOptions{})
		})
		if err := c.Run(time.Second); err != nil {
			return err
		}
		if errors.Is(err, kube.ErrNotFound) || err == nil && got.Replicas != 2 {
			return errors.New("the read missed the update")
		}
		return nil
	}
}

// The lagging copy shows its lag only to a read from the server that did
// not take the write: a drill that reads back from the same server is told
// it never read from the other one, one that does catches it, and one that
// reads from the other and judges nothing is told the read it got.
func TestALaggingCopyShowsOnlyToAReadFromTheOtherServer(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		w := play(writesThenReadsBack(1), laggingCopy, seed)
		assert.Error(t, w.finding, "seed %d: server-2 lacks the update for %s", seed, copyLag)
		assert.Nil(t, missed(w))
	}
	w := play(writesThenReadsBack(0), laggingCopy, 1)
	require.NoError(t, w.finding, "server-1 reads its own writes")
	f := missed(w)
	require.NotNil(t, f)
	assert.True(t, strings.HasSuffix(f.Story, "; your drill never read one of the 2 writes server-1 acknowledged back from server-2 "+
		"within 150ms of its acknowledgement, and declared it healthy"), f.Story)

	unchecked := func(c *drill.Cluster) error { writesThenReadsBack(1)(c); return nil } //nolint:errcheck // it reads and never judges
	f = missed(play(unchecked, laggingCopy, 1))
	require.NotNil(t, f)
	assert.Regexp(t, `; your drill read deployments/web from server-2 at [\d.]+ms and got deployments/web\{replicas=1 rv=\d+\}, [\d.]+ms after server-1 had acknowledged `+
		`deployments/web\{replicas=2 rv=\d+\} to writer: two answers no single history explains, which it never held against one, and declared it healthy$`, f.Story)
}

// A drill that writes and only crashes servers is told so when it misses
// the cluster that loses writes, and a drill that never crashes server-1 is
// told that; one that cut a server off and crashed server-1 is told
// neither.
func TestTheLostWriteClusterSaysWhichFaultTheDrillNeverInjected(t *testing.T) {
	faults := func(inject func(c *drill.Cluster)) func(c *drill.Cluster) error {
		return func(c *drill.Cluster) error {
			inject(c)
			c.Client("writer", func(p *sim.Proc) {
				p.Sleep(50 * time.Millisecond)                                                                       // once the servers serve
				kube.NewClient(p, c.Servers()[0]).Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 1}) //nolint:errcheck // one write, acknowledged
			})
			return c.Run(time.Second)
		}
	}
	all := []sim.NodeID{server1, server2}
	crashes := faults(func(c *drill.Cluster) {
		c.At(100*time.Millisecond, func() { c.Crash(all[0]) })
		c.At(200*time.Millisecond, func() { c.Restart(all[0]) })
	})
	f := missed(play(crashes, lostWrite, 1))
	require.NotNil(t, f)
	assert.Contains(t, f.Story, "; your drill only ever crashed servers and never cut one off with a partition: a crashed server-2 boots and copies everything server-1 holds, ")

	cuts := faults(func(c *drill.Cluster) {
		c.At(100*time.Millisecond, func() { c.Partition(all[1:]) })
		c.At(200*time.Millisecond, c.Heal)
	})
	f = missed(play(cuts, lostWrite, 1))
	require.NotNil(t, f)
	assert.Contains(t, f.Story, "; your drill never crashed server-1, the server that holds the truth, and declared it healthy")

	both := faults(func(c *drill.Cluster) {
		c.At(100*time.Millisecond, func() { c.Partition(all[1:]) })
		c.At(200*time.Millisecond, c.Heal)
		c.At(300*time.Millisecond, func() { c.Crash(all[0]) })
		c.At(400*time.Millisecond, func() { c.Restart(all[0]) })
	})
	f = missed(play(both, lostWrite, 1))
	require.NotNil(t, f)
	assert.True(t, strings.HasSuffix(f.Story, "; your drill declared it healthy"), f.Story)
}

// A drill that looks at the split brain's servers too soon after the
// partition, when server-2 still refuses reads, and never again, is told
// that it asked too soon.
func TestADrillThatAuditsTooSoonIsToldItAskedTooSoon(t *testing.T) {
	soon := func(c *drill.Cluster) error {
		all := c.Servers()
		c.At(100*time.Millisecond, func() { c.Partition(all[:1]) })
		c.At(200*time.Millisecond, c.Heal)
		c.Client("writer", func(p *sim.Proc) {
			api := kube.NewClient(p, all[1]).WithTimeout(200 * time.Millisecond)
			api.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 1}) //nolint:errcheck // what the servers hold is compared
			p.Sleep(120 * time.Millisecond)
			api.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: 2}) //nolint:errcheck // the same
		})
		held := map[sim.NodeID]kube.Object{}
		c.Client("auditor", func(p *sim.Proc) {
			p.Sleep(400 * time.Millisecond)
			api := kube.NewClient(p, all...).WithTimeout(200 * time.Millisecond)
			for _, s := range all {
				if o, err := api.Pin(s).Get("deployments/web", kube.ReadOptions{}); err == nil {
					held[s] = o
				}
			}
		})
		if err := c.Run(time.Second); err != nil {
			return err
		}
		if a, ok := held[all[0]]; ok && held[all[1]].Kind != "" && a != held[all[1]] {
			return errors.New("the servers disagree")
		}
		return nil
	}
	f := missed(play(soon, splitBrain, 1))
	require.NotNil(t, f)
	assert.Regexp(t, `; your drill asked server-2 for deployments/web \(which it wrote through server-2 while server-1 was cut off\) only \d+(\.\d)?ms after the last fault was over, was not answered, and never asked again once the faults were well over, and declared it healthy$`, f.Story)
}

// A drill whose linearizability search runs out of its budget is told so,
// with the budget and what its clients sent, as a failure of its own: not a
// catch on a broken cluster, not a false alarm. The suite runs it no
// further, and says why in the worlds it skipped.
func TestADrillWhoseSearchRunsOutOfBudgetIsToldSo(t *testing.T) {
	runs := 0
	slow := func(c *drill.Cluster) error {
		runs++
		all := c.Servers()
		c.Client("writer", func(p *sim.Proc) {
			kube.NewClient(p, all[0]).Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 1}) //nolint:errcheck // counted
		})
		if err := c.Run(time.Second); err != nil {
			return err
		}
		return errors.New("undecided: the linearizability checker could not decide within 5s whether 900 operations on 1 keys form one history")
	}
	f := tally(t, slow, "catches-async-replication")
	require.NotNil(t, f)
	assert.Equal(t, nameUndecided, f.Name)
	assert.Regexp(t, `^your drill's linearizability search ran out of its budget on the cluster "asynchronous replication": `+
		`check.Linearizable gives the search 5s of real time a call \(check.DefaultTimeBound\), and the history of the 1 requests your drill's clients sent in [\d.]+ms of virtual time`, f.Story)
	assert.Contains(t, f.Story, "An undecided search is no finding and no pass")
	assert.Equal(t, 1, runs, "the suite runs the drill no further")

	ch := chapter(slow)
	require.NotNil(t, ch.Verdict("passes-correct-clusters", oneStore.name, 1))
	f = ch.Verdict("passes-correct-clusters", syncReplication.name, 2)
	require.NotNil(t, f)
	assert.Equal(t, nameUndecided, f.Name)
	assert.Equal(t, 2, runs, "once per chapter")
	assert.Equal(t, `the suite ran your drill no further: its linearizability search ran out of its budget on the cluster "one store behind both servers" (seed 1) and would again in every world`, f.Story)

	w := play(writesThenReadsBack(1), laggingCopy, 1)
	assert.Nil(t, undecided(w), "a finding is not an undecided search")
	did, _ := describe(w)
	assert.Contains(t, did, "writes sent: 2 (0 while a fault was on), to server-1 2 (2 ok), to server-2 0\n")
}

// A drill none of whose writes was acknowledged is told that first, on
// any broken cluster, with what each server answered in its details.
func TestADrillThatHadNoWriteAcknowledgedIsToldSo(t *testing.T) {
	updatesOnly := func(c *drill.Cluster) error {
		all := c.Servers()
		c.Client("writer", func(p *sim.Proc) {
			kube.NewClient(p, all[0]).Update(kube.Object{Kind: "deployments", Name: "web", Replicas: 2}) //nolint:errcheck // NotFound: never created
		})
		return c.Run(time.Second)
	}
	f := missed(play(updatesOnly, asyncReplication, 1))
	require.NotNil(t, f)
	assert.True(t, strings.HasSuffix(f.Story, "; your drill never had one of its 1 writes acknowledged (what each server answered is below), "+
		"so it changed nothing a cluster could lose or disagree on, and declared it healthy"), f.Story)
	assert.Contains(t, f.Details, "writes sent: 1 (0 while a fault was on), to server-1 1 (1 NotFound), to server-2 0\n")

	f = missed(play(writesThenReadsBack(0), laggingCopy, 1))
	require.NotNil(t, f)
	assert.NotContains(t, f.Story, "never had one of its")
}

// auditing is a drill that writes each key once, crashes server-2 for a
// while, and then has an auditor read each key twice, meaning to read each
// server once: pinned to each server in turn, or through the balancer.
func auditing(pinned bool) func(c *drill.Cluster) error {
	return func(c *drill.Cluster) error {
		all := c.Servers()
		keys := []string{"deployments/a", "deployments/b", "deployments/c"}
		c.Client("writer", func(p *sim.Proc) {
			api := kube.NewClient(p, all[0]).WithTimeout(200 * time.Millisecond)
			for i, k := range keys {
				api.Create(kube.Object{Kind: "deployments", Name: k[len("deployments/"):], Replicas: i + 1}) //nolint:errcheck // compared below
			}
		})
		c.At(100*time.Millisecond, func() { c.Crash(all[1]) })
		c.At(200*time.Millisecond, func() { c.Restart(all[1]) })
		c.Client("auditor", func(p *sim.Proc) {
			p.Sleep(500 * time.Millisecond)
			api := kube.NewClient(p, all...).WithTimeout(200 * time.Millisecond)
			for _, k := range keys {
				for _, s := range all {
					look := api
					if pinned {
						look = api.Pin(s)
					}
					look.Get(k, kube.ReadOptions{}) //nolint:errcheck // what it read is not judged here
				}
			}
		})
		return c.Run(time.Second)
	}
}

// An auditor that reads each key twice through the balancer compares a
// server with itself whenever both reads land on one server, which the
// balancer does for some key in most worlds: in the first world it does,
// the drill is told that its comparison was left to chance, with the key,
// the server both reads went to and the cluster. Pinned, it never is.
func TestAComparisonThroughTheBalancerIsLeftToChance(t *testing.T) {
	var f *suite.Failure
	for seed := int64(1); seed <= 10 && f == nil; seed++ {
		f = leftToChance(play(auditing(false), syncReplication, seed))
	}
	require.NotNil(t, f, "in 10 worlds the balancer never sent both reads of a key to one server")
	assert.Equal(t, nameChance, f.Name)
	assert.Regexp(t, `^your drill's auditor read deployments/[abc] 2 times once every fault was over \(from 500ms on\), `+
		`and every one of those reads went to (server-1, none to server-2|server-2, none to server-1), though it read server-[12] at that time: `+
		`it asked through the load balancer, .* and on the cluster "synchronous replication" \(seed \d+\) it compared server-[12]'s with itself`, f.Story)
	for seed := int64(1); seed <= 10; seed++ {
		assert.Nil(t, leftToChance(play(auditing(true), syncReplication, seed)), "seed %d", seed)
	}
}

// degradedDrill is a drill that writes through server-1 every 10ms for
// 600ms while server-2 is down from 100ms (and back at 250ms, unless
// never), and server-1 is down from 300ms to 500ms; reader-2 reads server-2
// every 10ms from 300ms on, if it reads at all. crashed says whether
// server-2 goes down at all.
func degradedDrill(crashed, restarted, reads bool) func(c *drill.Cluster) error {
	return func(c *drill.Cluster) error {
		all := c.Servers()
		c.Client("writer", func(p *sim.Proc) {
			api := kube.NewClient(p, all[0]).WithTimeout(100 * time.Millisecond)
			api.Create(kube.Object{Kind: "deployments", Name: "web"}) //nolint:errcheck // not judged here
			for n := 1; p.Now() < 600*time.Millisecond; n++ {
				api.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: n}) //nolint:errcheck // not judged here
				p.Sleep(10 * time.Millisecond)
			}
		})
		if crashed {
			c.At(100*time.Millisecond, func() { c.Crash(all[1]) })
		}
		if crashed && restarted {
			c.At(250*time.Millisecond, func() { c.Restart(all[1]) })
		}
		c.At(300*time.Millisecond, func() { c.Crash(all[0]) })
		c.At(500*time.Millisecond, func() { c.Restart(all[0]) })
		if reads {
			c.Client("reader-2", func(p *sim.Proc) {
				p.Sleep(300 * time.Millisecond)
				api := kube.NewClient(p, all[1]).WithTimeout(100 * time.Millisecond)
				for p.Now() < 600*time.Millisecond {
					api.Get("deployments/web", kube.ReadOptions{}) //nolint:errcheck // not judged here
					p.Sleep(10 * time.Millisecond)
				}
			})
		}
		return c.Run(time.Second)
	}
}

// A drill that misses degraded mode is told the first step it never took:
// a write while server-2 was away, a restart of the server-2 it crashed, a
// read of server-2 while server-1 was away afterwards.
func TestADrillThatMissesDegradedModeIsToldWhatItNeverDid(t *testing.T) {
	lack := func(crashed, restarted, reads bool) string {
		return lacksDegradedFault(play(degradedDrill(crashed, restarted, reads), degradedMode, 1))
	}
	assert.Equal(t, "never wrote while server-2 was down or cut off, the only time this cluster stops copying writes to server-2", lack(false, false, true))
	assert.Equal(t, "crashed server-2 at 100ms and never restarted it, so server-2 never came back to answer for server-1", lack(true, false, true))
	assert.Equal(t, "wrote while server-2 was away, but never read server-2 on its own while server-1 was down or cut off afterwards", lack(true, true, false))
	assert.Equal(t, "", lack(true, true, true))
}
