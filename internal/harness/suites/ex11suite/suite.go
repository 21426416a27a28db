// Package ex11suite is the hidden suite of chapter ex11, "The leader that
// did not come back". It runs the learner's server on every server of a
// cluster whose leader must be chosen by the servers themselves, and checks
// after every step of every world what each server says about itself
// (check.ServerState, told with p.SetStatus), and what it does: a server
// that sends an Append of term T acts as leader of T, whatever it says
// (check.Consensus.Led). One leader per term across
// all servers, crashed and cut-off ones included; log matching; a leader
// that only appends; every committed entry in every later leader's log; one
// committed history; terms that never go back (check.Consensus). It also
// reads, off the trace, every vote a server grants and every vote a
// candidate receives (ballots): no server grants its vote in one term to
// two candidates, and no server leads a term without the votes of a
// majority granted in that term. Its worlds:
//
//   - story: the book's scene. Three servers; a controller scales web
//     every 100ms; at 2s server-1, the leader, crashes; from 2s to 2.6s the
//     link server-2 ↔ server-3 takes 400ms each way; at 5s server-1
//     restarts. One leader per term, and writes resume without server-1.
//   - churn: randomized worlds of three servers: crashes (the leader half
//     the time) and restarts, majority/minority partitions (the leader in
//     the minority half the time), one-way cuts and slow links, under
//     clients writing and reading through every server; then a calm tail.
//   - figure-8: five servers whose leader is crashed again and again soon
//     after it takes a write, and brought back (the Raft paper's Figure 8).
//   - figure-8-scripted: the Raft paper's Figure 8, step by step: an
//     entry of an earlier term on a majority, counted by a later leader,
//     then a server whose log ends in a still later term elected by that
//     majority. It heals by 4s whatever the servers do, and a cluster that
//     kept it from its point by electing no leader fails as
//     no-leader-elected, told with what it waited for.
//   - behind: five servers; the leader, hearing one follower only, takes
//     80 reads it cannot commit, is cut off, and comes back behind two
//     later terms with a stale tail after more than a batch of entries
//     that match (a follower that takes the leader's commit beyond what it
//     knows matches commits its stale tail).
//   - crash-points: a server crashed at each of its first disk writes
//     (a vote saved, an entry appended, before and after the sync) and
//     restarted.
//   - deposed: the leader cut off with a dashboard that keeps reading
//     through it, while writes go on through the other two; its clock
//     runs slow (0.1×) while it is cut off, so that a leader that serves
//     Latest reads for as long as its own clock says it still leads (a
//     lease, a check-quorum) is still serving them after the other side
//     has elected a leader and committed, and is told so (clockRead).
//   - split-vote: three servers whose links all turn slow (20–600ms) as
//     the leader reboots, so that several stand in one term and votes
//     arrive late; the first server to answer a candidate and then write
//     to its disk in the same step crashes right there, losing what it
//     had not synced, and comes back at once.
//   - crashed-voter: five servers; the leader crashes, and the first
//     server to stand is cut off from all but one voter; the moment the
//     voter sends it a granting answer, the voter crashes, losing what it
//     had not synced, and comes back at once, while the first candidate is
//     cut off alone: another server stands in the same term and asks the
//     voter. Until the old leader is back, nothing the voter or the first
//     candidate sends reaches the other three, so that a server that asks
//     pre-votes first reaches that term without hearing of it. The votes are matched to the requests they answer off the
//     trace, whatever the shape of the code that sent them.
//   - slow-deposed: the leader cut off alone for 700ms, its disk slow to
//     sync (300ms) from then on for 2s: the other two elect a leader of a
//     later term, and the old one, deposed by the first message of that
//     term it hears, must stop acting as leader before it waits for its
//     disk to save the term.
//   - calm: no fault at all: one election, then no term changes.
//   - isolated: a follower cut off alone for 5s, then back: the leader
//     is not deposed (pre-vote, check-quorum).
//
// RUNS widens only the churn; the scripted scenes, figure-8 and the crash
// points are a fixed set.
package ex11suite

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// Run runs the chapter's checks against serve, the exercise's Serve.
func Run(t *testing.T, serve scene.Boot) { chapter(serve).Run(t) }

// Default seeds.
const (
	storySeeds    = 5
	churnSeeds    = 40
	figure8Seeds  = 16
	calmSeeds     = 2
	isolatedSeeds = 2
	deposedSeeds  = 4
	behindSeeds   = 2
	scriptedSeeds = 3
	splitSeeds    = 16
	slowSeeds     = 6
	crashedSeeds  = 8
)

func chapter(serve scene.Boot) scene.Chapter[*world] {
	built := scene.Against[*world](serve)
	guard := &scene.Guard{MinCompleted: 20, MinCovered: 0.8, Faults: churnFaults}
	churnPlay := scene.Play{World: "churn", Seeds: scene.Random(churnSeeds), Guard: guard}
	splitPlay := scene.Play{World: "split-vote", Seeds: scene.Scenes(splitSeeds)}
	return scene.Chapter[*world]{
		ID:  "ex11",
		Ran: ran,
		Worlds: map[string]scene.Build[*world]{"story": built(story), "churn": built(churn), "figure-8": built(figure8),
			"crash-points": built(crashPoints), "calm": built(calm), "isolated": built(isolated), "deposed": built(deposed), "behind": built(behind), "figure-8-scripted": built(figure8Scripted),
			"split-vote": built(splitVote), "slow-deposed": built(slowDeposed), "crashed-voter": built(crashedVoter)},
		Checks: []scene.Check[*world]{{
			Name:   "story",
			Plays:  []scene.Play{{World: "story", Seeds: scene.Story(storySeeds)}},
			Judges: told(voting, safety, leaderless, linearizable, durable, oneHistory, resumed),
		}, {
			Name:   "election-safety",
			Plays:  []scene.Play{splitPlay, {World: "slow-deposed", Seeds: scene.Scenes(slowSeeds)}, churnPlay},
			Judges: told(voting, safety),
		}, {
			Name:   "log-safety",
			Plays:  []scene.Play{{World: "figure-8", Seeds: scene.Scenes(figure8Seeds)}, {World: "figure-8-scripted", Seeds: scene.Scenes(scriptedSeeds)}, {World: "behind", Seeds: scene.Scenes(behindSeeds)}, churnPlay},
			Judges: told(voting, safety, scriptMissed, leaderless, durable, oneHistory),
		}, {
			Name:   "linearizable",
			Plays:  []scene.Play{{World: "deposed", Seeds: scene.Scenes(deposedSeeds)}, churnPlay},
			Judges: told(voting, safety, leaderless, clockRead, linearizable),
		}, {
			Name:   "persistence",
			Plays:  []scene.Play{{World: "crash-points", Seeds: scene.Scenes(crashPointWorlds)}, splitPlay, {World: "crashed-voter", Seeds: scene.Scenes(crashedSeeds)}},
			Judges: told(voting, safety, leaderless, durable, linearizable),
		}, {
			Name:   "liveness",
			Plays:  []scene.Play{{World: "calm", Seeds: scene.Scenes(calmSeeds)}, churnPlay},
			Judges: told(voting, safety, calmTerms, healed),
		}, {
			Name:   "no-disruption",
			Plays:  []scene.Play{{World: "isolated", Seeds: scene.Scenes(isolatedSeeds)}},
			Judges: told(voting, safety, undisrupted),
		}},
	}
}

// The judges every chapter shares.
var (
	linearizable = scene.OnStage[*world](scene.Linearizable)
	durable      = scene.OnStage[*world](scene.Durable)
	oneHistory   = scene.OnStage[*world](scene.OneHistory)
)

// ran is scene.Ran, except that a violation the monitor found before the
// world stopped running (a panic in the learner's code, say) is told
// first: it is what went wrong first, and a server's own assertion that
// fires later is only its echo.
func ran(w *world) *suite.Failure {
	f := scene.Ran(w.Scene)
	if v := w.mon.Violation(); f != nil && v != nil && v.At <= f.At {
		return safety(w)
	}
	if f != nil && f.Name == "bad-reply" && len(w.Unanswered) > 0 {
		u := w.Unanswered[0]
		if !w.W.Connected(scene.Auditor, u.Server) || !w.W.Connected(u.Server, scene.Auditor) {
			// The scene's own cut still stood: every scripted scene heals
			// by a deadline (scriptedBy), so this is a scene that did not;
			// what the servers did not do, if anything, is told first.
			if w.missed != "" {
				return scriptMissed(w)
			}
			f.Story += fmt.Sprintf("; the scene's cut between the suite and %s was still in force when the suite read it", u.Server)
			return f
		}
		return unanswered(w, u)
	}
	if f != nil {
		return f
	}
	return silent(w)
}

// unanswered is the failure of a server the auditor asked again and again,
// after the last fault had healed, without an answer: told with what the
// server said it was doing meanwhile, as it said it (p.SetStatus).
func unanswered(w *world, u scene.Unanswered) *suite.Failure {
	what := "its history (a watch from resourceVersion 0)"
	if u.What != "its history" {
		what = u.What + " as it holds it (a read with kube.Any)"
	}
	why := "no answer in " + suite.FormatTime(w.Timeout)
	if u.Err != nil && !errors.Is(u.Err, sim.ErrTimeout) {
		why = "the answer " + strconv.Quote(u.Err.Error())
	}
	story := fmt.Sprintf("the last fault healed at %s; from %s to %s the suite asked %s for %s %d times, and got %s every time",
		suite.FormatTime(w.lastFault), suite.FormatTime(u.First), suite.FormatTime(u.Last), u.Server, what, u.Asked, why)
	var during []roleChange
	rs := w.roles[u.Server]
	for i, r := range rs {
		if i+1 < len(rs) && rs[i+1].at <= u.First {
			continue // over before the audit began
		}
		if r.at > u.Last {
			break
		}
		during = append(during, r)
	}
	switch n := len(during); {
	case n > 1:
		stood, led := 0, 0
		for _, r := range during {
			switch r.role {
			case check.Candidate:
				stood++
			case check.Leader:
				led++
			}
		}
		story += fmt.Sprintf("; meanwhile %s went from term %d to term %d, standing for election %d %s and leading %d %s (last it said it was %s of term %d, from %s): "+
			"the cluster kept holding elections after every fault had healed, and a server that serves no read while an election is under way served none",
			u.Server, during[0].term, during[n-1].term, stood, plural(stood, "time"), led, plural(led, "term"), during[n-1].role, during[n-1].term, suite.FormatTime(during[n-1].at))
	case n == 1:
		story += fmt.Sprintf("; all that time %s said it was %s of term %d", u.Server, during[0].role, during[0].term)
	}
	story += ". A server that is up and connected answers a read of its own copy (kube.Any, a watch) from what it has applied, whatever its role; " +
		"the suite could not read this server, and could not decide is a failure"
	return &suite.Failure{Name: "unanswered-read", Clause: course.OneHistory, At: u.Last, Story: story}
}

// silent: a server that never told its term, role, log and commit
// (p.SetStatus, as the given code does at boot and at every change) leaves
// the monitor nothing to judge, and a check that cannot judge fails.
func silent(w *world) *suite.Failure {
	for _, id := range w.Servers {
		if !w.said[id] {
			return &suite.Failure{Name: "server-said-nothing", Clause: course.OneHistory, At: w.W.Now(),
				Story: fmt.Sprintf("%s never told its term, role, log and commit (p.SetStatus, which the given server.go calls at boot and "+
					"after every change): the checks of one leader per term and of the logs judge what each server says of itself, "+
					"and cannot judge a server that says nothing, so this world counts as failed", id)}
		}
	}
	return nil
}

// safety is the monitor's first violation, found after some step, with
// its cause when a scripted scene saw it (watchCommits).
func safety(w *world) *suite.Failure {
	f := scene.Violated(w.mon.Violation())
	if f == nil {
		return nil
	}
	switch {
	case w.earlyCommit != "" && (f.Name == "leader-lacks-committed-entry" || f.Name == "committed-differently"):
		// The monitor's own last clause blames the vote, which here followed
		// the rules: the commit did not.
		f.Story = strings.TrimSuffix(f.Story, "; a server whose log is behind must not win a vote") + ". " + w.earlyCommit
	case w.blindCommit != "" && f.Name == "committed-differently":
		f.Story += ". " + w.blindCommit
	}
	return f
}
