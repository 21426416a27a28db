package check_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/sim"
)

// e is an entry of term t that holds what.
func e(t int64, what string) check.LogEntry { return check.LogEntry{Term: t, What: what} }

// state is a server's word about itself.
func state(term int64, role check.Role, commit int64, log ...check.LogEntry) *check.ServerState {
	return &check.ServerState{Term: term, Role: role, Log: log, Commit: commit}
}

const msec = time.Millisecond

// The history of a healthy election: server-1 leads term 1 and commits two
// entries; it crashes; server-2, whose log is as long, wins term 2, appends
// its no-op and commits it. Nothing breaks.
func TestConsensusAcceptsAHealthyElection(t *testing.T) {
	c := check.NewConsensus()
	a, b := e(1, "create web"), e(1, "scale web to 5")
	assert.Nil(t, c.Observe(10*msec, "server-1", state(1, check.Leader, 0, a)))
	assert.Nil(t, c.Observe(12*msec, "server-2", state(1, check.Follower, 0, a, b)))
	assert.Nil(t, c.Observe(13*msec, "server-1", state(1, check.Leader, 2, a, b)))
	assert.Nil(t, c.Observe(20*msec, "server-1", nil))
	assert.Nil(t, c.Observe(400*msec, "server-2", state(2, check.Leader, 0, a, b, e(2, "no-op"))))
	assert.Nil(t, c.Observe(410*msec, "server-3", state(2, check.Follower, 3, a, b, e(2, "no-op"))))
	assert.Nil(t, c.Observe(411*msec, "server-2", state(2, check.Leader, 3, a, b, e(2, "no-op"))))
	assert.Equal(t, 2, c.Terms())
	assert.Equal(t, 3, c.Committed())
	assert.Equal(t, []string{"term 1: server-1 from 10ms", "term 2: server-2 from 400ms"}, c.Leaders())
}

// The stub's scene: server-2 and server-3 both time out under a 400ms
// spike, both bump the epoch from 1 to 2 and both declare themselves
// leader. The second to do so is caught at that very observation, even
// though server-2 is cut off from it.
func TestConsensusCatchesTwoLeadersInOneTerm(t *testing.T) {
	c := check.NewConsensus()
	require.Nil(t, c.Observe(2290*msec, "server-2", state(2, check.Leader, 0)))
	v := c.Observe(2310*msec, "server-3", state(2, check.Leader, 0))
	require.NotNil(t, v)
	assert.Equal(t, "two-leaders-one-term", v.Name)
	assert.Equal(t, "at 2310ms server-3 became leader of term 2, but server-2 has led term 2 since 2290ms: "+
		"two leaders of one term can each put a different change at the same index", v.Story)
	assert.Contains(t, v.Details, "term 2: server-2 from 2290ms and server-3 from 2310ms", "the list of leaders names both leaders of term 2")
}

// A server that says it follows but sends an Append as leader of term 3
// leads term 3 all the same: server-1, deposed, saves term 3 before it
// steps down, and its heartbeat goes out meanwhile as leader of term 3,
// which server-2 leads.
func TestConsensusCountsALeaderByTheAppendsItSends(t *testing.T) {
	c := check.NewConsensus()
	require.Nil(t, c.Observe(800*msec, "server-2", state(3, check.Leader, 0)))
	require.Nil(t, c.Observe(805*msec, "server-1", state(2, check.Leader, 0)))
	require.Nil(t, c.Led(805*msec, "server-2", 3), "server-2 leads term 3: its own Append says nothing new")
	v := c.Led(812*msec, "server-1", 3)
	require.NotNil(t, v)
	assert.Equal(t, "two-leaders-one-term", v.Name)
	assert.Equal(t, "at 812ms server-1 sent an Append as leader of term 3, but server-2 has led term 3 since 800ms: "+
		"two leaders of one term can each put a different change at the same index", v.Story)
	assert.Equal(t, []string{"term 2: server-1 from 805ms", "term 3: server-2 from 800ms and server-1 from 812ms (by an Append it sent)"}, c.Leaders())

	// The other way round: the Append came first.
	c = check.NewConsensus()
	require.Nil(t, c.Led(812*msec, "server-1", 3))
	v = c.Observe(900*msec, "server-2", state(3, check.Leader, 0))
	require.NotNil(t, v)
	assert.Equal(t, "at 900ms server-2 became leader of term 3, but server-1 has led term 3 since 812ms (it sent an Append as leader of term 3): "+
		"two leaders of one term can each put a different change at the same index", v.Story)
}

// A crashed leader still counts: server-1 led term 3 and crashed; server-2
// then claims term 3 too.
func TestConsensusCountsACrashedLeader(t *testing.T) {
	c := check.NewConsensus()
	require.Nil(t, c.Observe(10*msec, "server-1", state(3, check.Leader, 0)))
	require.Nil(t, c.Observe(20*msec, "server-1", nil))
	v := c.Observe(30*msec, "server-2", state(3, check.Leader, 0))
	require.NotNil(t, v)
	assert.Equal(t, "two-leaders-one-term", v.Name)
}

// Two entries of one term at one index must be the same entry.
func TestConsensusCatchesTwoEntriesOfOneTermAtOneIndex(t *testing.T) {
	c := check.NewConsensus()
	require.Nil(t, c.Observe(10*msec, "server-2", state(2, check.Follower, 0, e(1, "a"), e(2, "scale web to 5"))))
	v := c.Observe(20*msec, "server-3", state(2, check.Follower, 0, e(1, "a"), e(2, "scale web to 7")))
	require.NotNil(t, v)
	assert.Equal(t, "divergent-history", v.Name)
	assert.Contains(t, v.Story, "at index 2 an entry of term 2, scale web to 7, but server-2 has held a different one there since 10ms, scale web to 5")
}

// Same entry, different entries before it: a follower appended without the
// consistency check.
func TestConsensusCatchesLogsThatMatchOnlyAtTheEnd(t *testing.T) {
	c := check.NewConsensus()
	require.Nil(t, c.Observe(10*msec, "server-1", state(3, check.Follower, 0, e(1, "a"), e(3, "c"))))
	v := c.Observe(20*msec, "server-2", state(3, check.Follower, 0, e(2, "b"), e(3, "c")))
	require.NotNil(t, v)
	assert.Equal(t, "divergent-history", v.Name)
	assert.Contains(t, v.Story, "the entries before it differ: term 2 on server-2, term 1 on server-1")
}

// A leader never rewrites its own log while it leads.
func TestConsensusCatchesALeaderThatRewritesItsLog(t *testing.T) {
	c := check.NewConsensus()
	require.Nil(t, c.Observe(10*msec, "server-1", state(1, check.Leader, 0, e(1, "a"), e(1, "b"))))
	v := c.Observe(20*msec, "server-1", state(1, check.Leader, 0, e(1, "a")))
	require.NotNil(t, v)
	assert.Equal(t, "leader-rewrote-its-log", v.Name)
}

// Figure 8: an entry of an earlier term, counted onto a majority by a later
// leader and called committed, is overwritten by a leader that never had it.
func TestConsensusCatchesACommittedEntryALaterLeaderLacks(t *testing.T) {
	c := check.NewConsensus()
	require.Nil(t, c.Observe(10*msec, "server-1", state(4, check.Leader, 2, e(1, "a"), e(2, "b"))))
	v := c.Observe(20*msec, "server-5", state(5, check.Leader, 0, e(1, "a"), e(3, "c")))
	require.NotNil(t, v)
	assert.Equal(t, "leader-lacks-committed-entry", v.Name)
	assert.Contains(t, v.Story, "at 20ms server-5 leads term 5 without entry 2, b (term 2), which server-1 had committed at 10ms")
}

// Two servers that call different entries committed at one index.
func TestConsensusCatchesTwoCommittedHistories(t *testing.T) {
	c := check.NewConsensus()
	require.Nil(t, c.Observe(10*msec, "server-1", state(1, check.Follower, 1, e(1, "a"))))
	v := c.Observe(20*msec, "server-2", state(1, check.Follower, 1, e(2, "b")))
	require.NotNil(t, v)
	assert.Equal(t, "committed-differently", v.Name)
}

// A follower may drop a conflicting suffix it never committed, but never a
// committed entry.
func TestConsensusAllowsTruncatingOnlyWhatWasNotCommitted(t *testing.T) {
	c := check.NewConsensus()
	require.Nil(t, c.Observe(10*msec, "server-1", state(1, check.Follower, 1, e(1, "a"), e(1, "b"))))
	require.Nil(t, c.Observe(20*msec, "server-1", state(2, check.Follower, 1, e(1, "a"), e(2, "c"))), "entry 2 was never committed")
	v := c.Observe(30*msec, "server-1", state(3, check.Follower, 2, e(3, "d")))
	require.NotNil(t, v)
	assert.Equal(t, "committed-entry-deleted", v.Name)
}

// A term kept only in memory comes back lower after a restart.
func TestConsensusCatchesATermThatWentBackAcrossARestart(t *testing.T) {
	c := check.NewConsensus()
	require.Nil(t, c.Observe(10*msec, "server-1", state(5, check.Follower, 0)))
	require.Nil(t, c.Observe(20*msec, "server-1", nil))
	v := c.Observe(30*msec, "server-1", state(3, check.Follower, 0))
	require.NotNil(t, v)
	assert.Equal(t, "term-went-back", v.Name)
}

// WatchConsensus reads what each server says after every step, in a
// running world: server-2 claims term 1 that server-1 leads, 5ms later, and
// the monitor names that step.
func TestWatchConsensusReadsEveryServerAfterEveryStep(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) { p.SetStatus(check.ServerState{Term: 1, Role: check.Leader}) })
	w.AddNode("server-2", func(p *sim.Proc) {
		p.Sleep(5 * msec)
		p.SetStatus(&check.ServerState{Term: 1, Role: check.Leader})
	})
	c := check.WatchConsensus(w, []sim.NodeID{"server-1", "server-2"})
	require.NoError(t, w.Run(time.Second))
	v := c.Violation()
	require.NotNil(t, v)
	assert.Equal(t, "two-leaders-one-term", v.Name)
	assert.Equal(t, 5*msec, v.At)
	assert.Positive(t, c.Steps())
}
