package ex11suite

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The answers to a vote the suite reads: any struct with an integer Term
// and a boolean whose name says it grants, by value or by pointer.
// Anything else is no vote.
func TestReadVoteReadsATermAndAGrantByTheirFields(t *testing.T) {
	type VoteReply struct {
		Term    int64
		Granted bool
	}
	type RequestVoteReply struct {
		VoteGranted bool
		Term        int
		From        sim.NodeID
	}
	type Append struct{ Term int64 }
	type Odd struct {
		Term    string
		Granted bool
	}
	v, ok := readVote(VoteReply{Term: 3, Granted: true})
	assert.True(t, ok)
	assert.Equal(t, vote{term: 3, granted: true}, v)
	v, ok = readVote(&RequestVoteReply{Term: 4})
	assert.True(t, ok)
	assert.Equal(t, vote{term: 4}, v)
	for _, msg := range []any{Append{Term: 2}, Odd{Granted: true}, "granted", nil, (*VoteReply)(nil)} {
		_, ok := readVote(msg)
		assert.False(t, ok, "%#v", msg)
	}
}

// ballotMsg is a vote's answer in the scripted worlds below.
type ballotMsg struct {
	Term    int64
	Granted bool
}

// scripted is a world of three servers that say and send what script
// tells them, and nothing else, judged by the ballots watcher; links take
// 1ms, except server-2 → server-1, which takes 30ms.
func scripted(t *testing.T, script func(p *sim.Proc, self sim.NodeID)) *suite.Failure {
	w := newWorld(1, func(p *sim.Proc, self sim.NodeID, _ []sim.NodeID) {
		p.SetStatus(check.ServerState{Term: 1, Role: check.Follower})
		p.Go("script", func(p *sim.Proc) { script(p, self) })
		p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return nil, nil })
	}, 3)
	defer w.Close()
	w.W.SetDefaultLink(sim.Link{Min: time.Millisecond, Max: time.Millisecond})
	w.W.SetLink("server-2", "server-1", sim.Link{Min: 30 * time.Millisecond, Max: 30 * time.Millisecond})
	require.NoError(t, w.W.Run(time.Second))
	return voting(w)
}

func say(p *sim.Proc, term int64, role check.Role) {
	p.SetStatus(check.ServerState{Term: term, Role: role})
}

// A server that grants its vote in term 2 to server-1, and then in term 2
// to server-3, voted twice in a term.
func TestAVoteGrantedTwiceInATermIsTold(t *testing.T) {
	f := scripted(t, func(p *sim.Proc, self sim.NodeID) {
		switch self {
		case "server-1", "server-3":
			say(p, 2, check.Candidate)
		case "server-2":
			p.Sleep(10 * time.Millisecond)
			say(p, 2, check.Follower)
			p.Send("server-1", ballotMsg{Term: 2, Granted: true})
			p.Sleep(10 * time.Millisecond)
			p.Send("server-3", ballotMsg{Term: 2, Granted: true})
		}
	})
	require.NotNil(t, f)
	assert.Equal(t, "voted-twice-in-a-term", f.Name)
	assert.Equal(t, "at 10ms server-2 granted its vote in term 2 to server-1; at 20ms it granted its vote in term 2 again, to server-3: a server votes at most once per term", f.Story)
}

// Pre-votes are not votes: a server still in term 1 may say "I would
// vote for you in term 2" to every candidate, and grant its one real vote
// after; nor is granting the same candidate twice a second vote.
func TestPreVotesAndRepeatedGrantsAreNotVotingTwice(t *testing.T) {
	f := scripted(t, func(p *sim.Proc, self sim.NodeID) {
		switch self {
		case "server-1", "server-3":
			say(p, 2, check.Candidate)
		case "server-2":
			p.Sleep(10 * time.Millisecond)
			p.Send("server-1", ballotMsg{Term: 2, Granted: true})
			p.Send("server-3", ballotMsg{Term: 2, Granted: true})
			p.Sleep(10 * time.Millisecond)
			say(p, 2, check.Follower)
			p.Send("server-1", ballotMsg{Term: 2, Granted: true})
			p.Send("server-1", ballotMsg{Term: 2, Granted: true})
			p.Send("server-3", ballotMsg{Term: 2})
		}
	})
	assert.Nil(t, f)
}

// askMsg is a request for a vote, or a pre-vote, in the scripted worlds.
type askMsg struct {
	Term      int64
	Candidate sim.NodeID
}

// A pre-vote's answer may carry a field named Granted too: it is told from
// a vote's answer by the request it answers. server-2 votes for server-1
// in term 2; server-3, a candidate in term 2, asks it about term 3 (a
// request beyond the term server-3 says it is in: a pre-vote), and
// server-2, still in term 2, answers "granted" with its own term, 2. That
// is no second vote in term 2; a real request of term 2 from server-3,
// granted, is.
func TestAPreVoteAnsweredWithGrantedIsNoVote(t *testing.T) {
	run := func(asked int64) *suite.Failure {
		return scripted(t, func(p *sim.Proc, self sim.NodeID) {
			switch self {
			case "server-1":
				say(p, 2, check.Candidate)
			case "server-3":
				say(p, 2, check.Candidate)
				p.Sleep(15 * time.Millisecond)
				p.Send("server-2", askMsg{Term: asked, Candidate: self})
			case "server-2":
				p.Sleep(10 * time.Millisecond)
				say(p, 2, check.Follower)
				p.Send("server-1", ballotMsg{Term: 2, Granted: true})
				p.Sleep(10 * time.Millisecond)
				p.Send("server-3", ballotMsg{Term: 2, Granted: true})
			}
		})
	}
	assert.Nil(t, run(3), "the answer to a pre-vote of term 3")
	f := run(2)
	require.NotNil(t, f, "the answer to a request for a vote in term 2")
	assert.Equal(t, "voted-twice-in-a-term", f.Name)
}

// A pre-vote is named so by its type or by a true boolean field.
func TestAPreVoteIsNamedByItsTypeOrAField(t *testing.T) {
	type PreVoteReply struct {
		Term    int64
		Granted bool
	}
	type RequestVote struct {
		Term int64
		Pre  bool
	}
	type VoteResponse struct {
		Term    int64
		Granted bool
	}
	assert.True(t, namesPre(PreVoteReply{}))
	assert.True(t, namesPre(&RequestVote{Pre: true}))
	assert.False(t, namesPre(RequestVote{}))
	assert.False(t, namesPre(VoteResponse{Granted: true}))
}

// A candidate that leads term 3 with the vote server-2 granted it in term
// 2 has no majority of term 3's votes; one that leads term 2 with it has.
func TestALeaderWithoutAMajorityOfItsTermsVotesIsTold(t *testing.T) {
	election := func(term int64) *suite.Failure {
		return scripted(t, func(p *sim.Proc, self sim.NodeID) {
			switch self {
			case "server-1":
				say(p, 2, check.Candidate)
				p.Sleep(20 * time.Millisecond)
				say(p, term, check.Candidate)
				p.Sleep(40 * time.Millisecond)
				say(p, term, check.Leader)
			case "server-2":
				p.Sleep(10 * time.Millisecond)
				say(p, 2, check.Follower)
				p.Send("server-1", ballotMsg{Term: 2, Granted: true})
			}
		})
	}
	f := election(3)
	require.NotNil(t, f)
	assert.Equal(t, "leader-without-majority", f.Name)
	assert.Equal(t, "at 60ms server-1 became leader of term 3 holding 1 vote granted in term 3 (its own), fewer than the 2 a majority of 3 servers needs; "+
		"the vote it received from server-2 was granted in term 2, at 10ms: a vote counts only in the term it was granted in, and a leader without a majority of one term's votes can share that term with another leader", f.Story)
	assert.Nil(t, election(2))
}

// An election whose votes the suite cannot read (their answer has no
// Granted) is not a pass: the suite could not decide, and says what the
// answer to a vote needs. An election it can read is judged as usual.
func TestAnElectionWithNoReadableVoteIsNotAPass(t *testing.T) {
	type yes struct {
		Term int64
		Yes  bool
	}
	election := func(answer any) *suite.Failure {
		return scripted(t, func(p *sim.Proc, self sim.NodeID) {
			switch self {
			case "server-1":
				say(p, 2, check.Candidate)
				p.Sleep(40 * time.Millisecond)
				say(p, 2, check.Leader)
			case "server-2":
				p.Sleep(10 * time.Millisecond)
				say(p, 2, check.Follower)
				p.Send("server-1", answer)
			}
		})
	}
	f := election(yes{Term: 2, Yes: true})
	require.NotNil(t, f)
	assert.Equal(t, "votes-unread", f.Name)
	assert.Contains(t, f.Story, "at 40ms server-1 became leader of term 2, which it had stood in, but no message between the servers was the answer to a vote")
	assert.Nil(t, election(ballotMsg{Term: 2, Granted: true}))
}

// The split-vote scene crashes its voter between an answer to a candidate
// and the disk write after it: a server that writes before it answers is
// never crashed there.
func TestTheSplitVoteSceneCrashesAVoterOnlyBetweenItsAnswerAndItsWrite(t *testing.T) {
	for _, answerFirst := range []bool{true, false} {
		w := newWorld(1, func(p *sim.Proc, self sim.NodeID, _ []sim.NodeID) {
			f := p.Disk().Open("state")
			switch self {
			case "server-1":
				say(p, 2, check.Candidate)
			case "server-2":
				p.Sleep(10 * time.Millisecond)
				if answerFirst {
					p.Send("server-1", ballotMsg{Term: 2, Granted: true})
				}
				f.Append([]byte("vote"))
				if !answerFirst {
					p.Send("server-1", ballotMsg{Term: 2, Granted: true})
				}
				f.Sync(p)
			}
			p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return nil, nil })
		}, 3)
		w.crashVoter(0)
		require.NoError(t, w.W.Run(time.Second))
		if answerFirst {
			assert.Equal(t, "server-2 crashed right after it answered a candidate and wrote to its disk, at 10ms, and came back at once", w.crashedAt)
			assert.Equal(t, []sim.Loss{{At: 10 * time.Millisecond, File: "state", Unsynced: 4}}, w.W.DiskLosses("server-2"), "the crash lost the write it had not synced")
		} else {
			assert.Empty(t, w.crashedAt)
			assert.Empty(t, w.W.DiskLosses("server-2"))
		}
		w.Close()
	}
}

// Append is the given code's message, as the suite reads it.
type Append struct {
	Term    int64
	Leader  sim.NodeID
	Entries []string
}

// A server that says it follows but sends an Append of term 2 acts as
// leader of term 2, which server-1 leads: two leaders of one term, found
// from what server-2 sent, not from what it said.
func TestAServerThatSendsAnAppendLeadsItsTerm(t *testing.T) {
	term, ok := readAppendTerm(&Append{Term: 4})
	assert.True(t, ok)
	assert.Equal(t, int64(4), term)
	_, ok = readAppendTerm(ballotMsg{Term: 4})
	assert.False(t, ok, "only an Append")

	w := newWorld(1, func(p *sim.Proc, self sim.NodeID, _ []sim.NodeID) {
		switch self {
		case "server-1":
			say(p, 2, check.Leader)
		case "server-2":
			say(p, 2, check.Follower)
			p.Go("heartbeat", func(p *sim.Proc) {
				p.Sleep(10 * time.Millisecond)
				p.Send("server-3", Append{Term: 2, Leader: self})
			})
		default:
			say(p, 2, check.Follower)
		}
		p.Serve(func(*sim.Proc, sim.NodeID, any) (any, error) { return nil, nil })
	}, 3)
	defer w.Close()
	require.NoError(t, w.W.Run(time.Second))
	v := w.mon.Violation()
	require.NotNil(t, v)
	assert.Equal(t, "two-leaders-one-term", v.Name)
	assert.Equal(t, "at 10ms server-2 sent an Append as leader of term 2, but server-1 has led term 2 since 0ms: two leaders of one term can each put a different change at the same index", v.Story)
}

// A vote granted to a candidate whose log ends in an earlier term than
// the voter's, or in the same term but shorter, is told by both logs'
// ends; a vote to a candidate at least as up to date is not.
func TestAVoteForALogBehindIsTold(t *testing.T) {
	logOf := func(terms ...int64) []check.LogEntry {
		var l []check.LogEntry
		for _, t := range terms {
			l = append(l, check.LogEntry{Term: t, What: "no-op"})
		}
		return l
	}
	election := func(candidate, voter []check.LogEntry) *suite.Failure {
		return scripted(t, func(p *sim.Proc, self sim.NodeID) {
			switch self {
			case "server-1":
				p.SetStatus(check.ServerState{Term: 5, Role: check.Candidate, Log: candidate})
			case "server-2":
				p.Sleep(10 * time.Millisecond)
				p.SetStatus(check.ServerState{Term: 5, Role: check.Follower, Log: voter})
				p.Send("server-1", ballotMsg{Term: 5, Granted: true})
			}
		})
	}
	f := election(logOf(1, 2, 2, 2), logOf(1, 2, 3, 3, 3))
	require.NotNil(t, f)
	assert.Equal(t, "voted-for-a-log-behind", f.Name)
	assert.Equal(t, "at 10ms server-2 granted its vote in term 5 to server-1, whose log ends with an entry of term 2 at index 4, while its own ends with an entry of term 3 at index 5: "+
		"a server votes only for a candidate whose log is at least as up to date as its own (a later last term, or the same last term and at least as long), "+
		"in the real vote as in any pre-vote, or a leader can be elected without entries a majority has committed", f.Story)
	assert.Equal(t, "voted-for-a-log-behind", election(logOf(1, 3), logOf(1, 3, 3)).Name)
	assert.Nil(t, election(logOf(1, 3), logOf(1, 2, 2, 2)), "a later last term is more up to date, however short")
	assert.Nil(t, election(logOf(1, 3, 3), logOf(1, 3, 3)), "as up to date")
}
