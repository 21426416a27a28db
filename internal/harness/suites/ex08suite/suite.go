// Package ex08suite is the hidden suite of chapter ex08, "More copies is
// not more truth". It runs the learner's API server on every server of
// three- and five-server clusters whose servers[0] is the leader, sends
// every kind of request to every server, and judges what the clients were
// told against what the servers' disks and histories hold. Its worlds:
//
//   - story: the book's scenario. Five servers, server-5's clock 400ms
//     ahead; web is scaled to 5 through server-5, then to 2 through
//     server-1, and read back through two other servers.
//   - chaos: randomized worlds of three or five servers with crashes of any
//     server (the leader included), partitions, links slower than any
//     timeout, skewed clocks and torn log tails; the four randomized checks
//     judge the same worlds, each built once.
//   - minority: five servers, the leader cut off with one follower for
//     longer than a write waits, a write that reaches them both, and a
//     reader on their side.
//   - catch-up: a follower away (crashed or cut off) while a burst of
//     writes, more than one Append's worth, is committed, and Latest reads
//     parked on it as it comes back.
//   - restart: three servers, the leader cut off alone, a write it syncs
//     and no follower receives, then a crash and a restart of the leader
//     with that entry in its log, and a reader on its side.
//   - slow-disk: three servers whose disks take several times as long to
//     sync as any message takes, under writes and reads through every
//     server: a copy counted before its sync is counted while it may
//     still vanish. The last follower's disk is slower still, so the next
//     write's Append and a heartbeat carrying the same entries reach it
//     while it syncs.
//   - restart-behind: three servers, the last follower cut off during a
//     burst of more than one Append's worth of writes, then a crash and a
//     restart of the leader, the cut moved to the follower that holds the
//     whole log, and Latest reads through the leader and the follower left
//     behind as the leader commits what it recovered, round by round.
//
// While a world runs, the suite reads every server's disk the moment a
// client hears yes or gets any read's answer (a Latest or an Any read, a get
// or a list): a majority of the disks must hold that change, synced, at the
// position its resourceVersion names (the early judge). The servers'
// histories are read the way any client would, with a watch from
// resourceVersion 0 sent to each server; their logs are read straight off
// their disks (Disks), in the format the exercise's record.go gives, which
// chapter 10 uses again. The checks, their worlds and their judges, in
// order, are declared once, in chapter; every failure lists its world's
// faults after its details.
package ex08suite

import (
	"fmt"
	"slices"
	"testing"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/suite"
)

// Run runs the chapter's checks against serve, the exercise's Serve.
func Run(t *testing.T, serve scene.Boot) { chapter(serve).Run(t) }

// Default seeds: the story's jitter a few ways, and enough randomized
// worlds that every kind of fault meets every kind of request, few enough
// that the chapter stays well under a second or two.
const (
	storySeeds         = 10
	chaosSeeds         = 60
	minoritySeeds      = 3
	catchUpSeeds       = 6
	restartSeeds       = 2
	slowDiskSeeds      = 1
	restartBehindSeeds = 1
)

// chapter is the chapter declared, its worlds booting serve on every
// server. A randomized world counts against the vacuous-run guard when at
// least 30 requests got an answer and a fault overlapped one, and nearly
// every world must count.
func chapter(serve scene.Boot) scene.Chapter[*world] {
	built := scene.Against[*world](serve)
	chaosPlay := []scene.Play{{World: "chaos", Seeds: scene.Random(chaosSeeds), Guard: &scene.Guard{MinCompleted: 30, MinCovered: 0.9}}}
	return scene.Chapter[*world]{
		ID: "ex08",
		Worlds: map[string]scene.Build[*world]{"story": built(story), "chaos": built(chaos), "minority": built(minority), "catch-up": built(catchUp),
			"restart": built(restart), "slow-disk": built(slowDisk), "restart-behind": built(restartBehind)},
		Ran: told(ran)[0],
		Checks: []scene.Check[*world]{{
			// The later write stays, everywhere, and every answer fits one
			// order. The notes of its first world are a figure, and every
			// failure of the story prints its own world's notes.
			Name:    "story",
			Plays:   []scene.Play{{World: "story", Seeds: scene.Story(storySeeds)}},
			Judges:  noted(told(overwritten(storySkewSays()), appliedTwice, early, unanswered, durable, oneHistory, converged, linearizable, heldBack, committedLate)),
			Figures: []scene.Figure[*world]{{Name: "notes", Text: (*world).notes}},
		}, {
			// No entry leaves the leader before its own disk holds it
			// (sentUnsynced, read off the trace); no answer before a
			// majority holds the change; a minority shows no reader what
			// only it holds, and the cut heals into the one history.
			Name: "agreement-first",
			Plays: slices.Concat([]scene.Play{{World: "restart", Seeds: scene.Scenes(restartSeeds)}, {World: "slow-disk", Seeds: scene.Scenes(slowDiskSeeds)}},
				chaosPlay, []scene.Play{{World: "minority", Seeds: scene.Scenes(minoritySeeds)}}),
			Judges: told(sentUnsynced, early, leftBehind, scripted(linearizable), scripted(durable), scripted(oneHistory), scripted(converged)),
		}, {
			// The histories are prefixes of one, each server's disk gives
			// back what it applied, no acknowledged write is lost or
			// overwritten by an older one, and the servers converge.
			Name:   "one-history",
			Plays:  chaosPlay,
			Judges: told(logsApart, appliedTwice, overwritten(""), lostOnRestart, oneHistory, durable, leftBehind, converged),
		}, {
			// One order explains every answer, and every acknowledged
			// conditional delete found its object at the version it named.
			Name:   "linearizable",
			Plays:  chaosPlay,
			Judges: told(appliedTwice, staleDelete, linearizable),
		}, {
			// A request to a server that, with the leader and a majority,
			// had been up and connected for a second gets an answer.
			Name:   "available",
			Plays:  chaosPlay,
			Judges: told(stalled),
		}, {
			// A follower far behind answers Latest reads only with what
			// the one history has committed by then, and catches up; a
			// restarted leader answers none before all it recovered is
			// committed again, however many rounds that takes.
			Name:   "catch-up",
			Plays:  []scene.Play{{World: "catch-up", Seeds: scene.Story(catchUpSeeds)}, {World: "restart-behind", Seeds: scene.Scenes(restartBehindSeeds)}},
			Judges: told(burst, early, readBeforeRecovered, linearizable, durable, oneHistory, leftBehind, converged, parkedReads),
		}},
	}
}

// The judges the chapter shares with every chapter, and its own simplest.
var (
	linearizable = scene.OnStage[*world](scene.Linearizable)
	durable      = scene.OnStage[*world](scene.Durable)
	oneHistory   = scene.OnStage[*world](scene.OneHistory)
	converged    = scene.OnStage[*world](scene.Converged)
)

// appliedTwice is a client's write the one history holds twice, as when a
// follower sends the leader a write again after its first try timed out and
// the leader commits both: told before the older write it seems to put back,
// except in the story, where a copy with a later stamp put back on every
// server (the stub's last-writer-wins) is the skewed clock's doing.
func appliedTwice(w *world) *suite.Failure {
	return scene.Violated(scene.AppliedTwice(w.History, w.Longest()))
}

func staleDelete(w *world) *suite.Failure {
	return scene.Violated(check.StaleDelete(w.History, w.Longest()))
}

// early is the first answer a client got before a majority of the disks
// held its change: a yes (acknowledged) or a read (readCommitted). A yes
// whose majority counted copies written and not yet synced is told by that
// cause first (acknowledgedBeforeSync).
func early(w *world) *suite.Failure {
	if w.unsynced != nil {
		return w.acknowledgedBeforeSync()
	}
	return w.early
}

// scripted narrows judge to the scripted scenes: agreement-first asks a
// randomized world only whether an answer came early, since the other
// randomized checks judge the rest of it.
func scripted(judge scene.Judge[*world]) scene.Judge[*world] {
	return func(w *world) *suite.Failure {
		if w.randomized {
			return nil
		}
		return judge(w)
	}
}

// noted adds the world's run, as the list of notes the page quotes
// (notes), to the details of every failure judges find: the learner reads
// it above the timeline.
func noted(judges []scene.Judge[*world]) []scene.Judge[*world] {
	return withDetails(judges, func(w *world) string {
		return "the run, as a list of notes (requests and what they got, and what the servers wrote):\n" + w.notes()
	})
}

// told lists the world's faults after the details of every failure judges
// find.
func told(judges ...scene.Judge[*world]) []scene.Judge[*world] {
	return withDetails(judges, func(w *world) string {
		if len(w.Declared()) == 0 {
			return ""
		}
		return fmt.Sprintf("%d servers (leader %s); faults:\n%s", len(w.Servers), w.Servers[0], w.Describe())
	})
}

// withDetails adds details(w) to every judge's failures.
func withDetails(judges []scene.Judge[*world], details func(w *world) string) []scene.Judge[*world] {
	out := make([]scene.Judge[*world], len(judges))
	for i, judge := range judges {
		out[i] = scene.WithDetails(judge, details)
	}
	return out
}
