// Package ex10suite is the hidden suite of chapter 10, "Agreement costs
// latency". It runs the learner's servers (servers[0] the fixed leader)
// 380–400ms apart, sends every client write to the leader (and, in the
// faults check, some consistent reads to a follower), and at the instant
// each client hears yes reads every server's disk to see how many hold the
// write:
//
//   - story: four controllers write five changes each in a row; every write
//     is acknowledged, none before a majority holds it, and the burst ends
//     within six round trips. It draws the latency figure: the same burst on
//     one server (stored) beside three (agreed).
//   - throughput: bursts of three to five controllers and writes over links
//     of 100–400ms, each within one round trip per write in a row, plus one.
//   - faults: mixed reads and writes while the leader is cut off from one or
//     both followers (half of the cuts from both outlasting a write's
//     timeout), a follower crashes, a link outlasts an Append's timeout or
//     loses messages, or the leader crashes; in a quarter of the worlds a
//     follower also crashes once all is quiet. No early yes, one history,
//     nothing acknowledged lost, convergence, every answer fitting one
//     order, every acknowledged conditional delete finding its object at
//     the version it named, writes still answered while a majority is
//     there, and every request to the leader answered within the write
//     timeout. Then the minority scene: five servers, the leader cut off
//     with one follower for longer than a write waits, a write that
//     reaches them both, and a reader on their side whose every Any get
//     and list item, through that follower or the leader, must be a change
//     a majority of the servers' disks hold.
package ex10suite

import (
	"testing"

	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/suite"
)

// Server is the learner's server, as the thin test file hands it over (the
// exercise's Serve).
type Server = scene.Boot

// Default seeds per check: enough to meet every fault many ways, few enough
// that the suite stays well under a second.
const (
	storySeeds      = 5
	throughputSeeds = 60
	faultSeeds      = 100
)

// Run runs the chapter's checks against serve.
func Run(t *testing.T, serve Server) {
	suite.Run(t, "ex10", map[string]suite.CheckFunc{
		"story":      func(t *testing.T) { storyCheck(t, serve) },
		"throughput": func(t *testing.T) { throughputCheck(t, serve) },
		"faults":     func(t *testing.T) { faultsCheck(t, serve) },
	})
}
