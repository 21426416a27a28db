package sim_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/sim"
)

// fiveServers is ex08's cast: two controllers, five servers and the
// auditor, eight lanes; in the window the auditor says nothing.
func fiveServers() ([]sim.NodeID, []sim.Event) {
	lanes := []sim.NodeID{"controller-a", "controller-b", "server-1", "server-2", "server-3", "server-4", "server-5", "auditor"}
	events := []sim.Event{
		{At: 0, Kind: sim.EvFault, Text: "clock of server-5 skewed by +400ms from 0ms, for the whole of the run and then some"},
		{At: 7 * ms, Kind: sim.EvSend, Node: "server-1", Peer: "server-3", Msg: "Copy{Event:ADDED deployments/web{replicas=3 rv=1} Stamp:7.064968ms}"},
		{At: 15 * ms, Kind: sim.EvNote, Node: "controller-a", Text: "CREATE deployments/web replicas=3 @server-1 → rv=1"},
		{At: 1004 * ms, Kind: sim.EvNote, Node: "server-5", Text: "web=5 stamped 1404.9"},
		{At: 1219 * ms, Kind: sim.EvNote, Node: "controller-b", Text: "UPDATE deployments/web replicas=2 @server-1 → rv=3"},
	}
	for i, id := range lanes[2:6] {
		events = append(events, sim.Event{At: time.Duration(1250+i) * ms, Kind: sim.EvNote, Node: id, Text: "5@1404.9 beats 2@1209.5"})
	}
	return lanes, events
}

// fitsAndKeepsEverything checks that no line of tl is wider than width and
// that every word every event says is there.
func fitsAndKeepsEverything(t *testing.T, tl string, width int, events []sim.Event) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimRight(tl, "\n"), "\n") {
		assert.LessOrEqual(t, utf8.RuneCountInString(line), width, "a line wider than the terminal:\n%s", line)
	}
	assert.NotContains(t, tl, "…", "something was cut")
	// Read the cells off the axis, line after line, without the spaces and
	// rules a cell was broken and padded with: each event's words are
	// there, in order, on consecutive lines.
	var text strings.Builder
	for _, line := range strings.Split(tl, "\n") {
		if r := []rune(line); len(r) > 12 {
			text.WriteString(strings.NewReplacer(" ", "", "│", "").Replace(string(r[12:])))
		}
	}
	for _, e := range events {
		assert.Contains(t, text.String(), strings.ReplaceAll(e.Summary(), " ", ""))
	}
}

// At a terminal 80 columns wide (78 once the report's indent is taken off),
// eight lanes of at least 14 characters cannot fit, nor can the seven that
// have something to say: the timeline tells its events as a list, one a
// line, each with its instant and node, and no line is wider than the
// terminal.
func TestEightLanesAtEightyColumnsBecomeAList(t *testing.T) {
	t.Setenv("ONEHISTORY_TIMELINE", "")
	lanes, events := fiveServers()
	tl := sim.Timeline(events, sim.TimelineOptions{Columns: lanes, Fit: 78})
	fitsAndKeepsEverything(t, tl, 78, events)
	assert.Contains(t, tl, "8 lanes do not fit 78 columns: one event a line")
	assert.Contains(t, tl, "    1219.0 │ controller-b UPDATE deployments/web replicas=2 @server-1 → rv=3\n")
	assert.Contains(t, tl, "       0.0 │ ══ clock of server-5 skewed by +400ms")
	// Each continuation of an event stays under its own text, not its node.
	assert.Contains(t, tl, "       7.0 │ server-1     → server-3 Copy{Event:ADDED\n"+
		"           │               deployments/web{replicas=3 rv=1} Stamp:7.064968ms}\n")
	// At 160 columns the same eight lanes fit, as lanes.
	wide := sim.Timeline(events, sim.TimelineOptions{Columns: lanes, Fit: 158})
	fitsAndKeepsEverything(t, wide, 158, events)
	header, _, _ := strings.Cut(wide, "\n")
	assert.Equal(t, 9, strings.Count(header, "│"), header)
}

// Five lanes do not fit 78 columns at 14 characters each; when one of them
// is idle in the rows shown, the timeline leaves it out and says so, and the
// four that remain are drawn as lanes.
func TestAnIdleLaneMakesRoomAndIsNamed(t *testing.T) {
	t.Setenv("ONEHISTORY_TIMELINE", "")
	lanes := []sim.NodeID{"controller", "server-1", "server-2", "server-3", "auditor"}
	events := []sim.Event{
		{At: 3 * ms, Kind: sim.EvSend, Node: "server-1", Peer: "server-2", Msg: "Replicate web=3 at rv 1"},
		{At: 6 * ms, Kind: sim.EvNote, Node: "controller", Text: "CREATE deployments/web replicas=3 @server-1 → rv=1"},
		{At: 9 * ms, Kind: sim.EvRecv, Node: "server-2", Peer: "server-1", Msg: "Replicate web=3 at rv 1"},
		{At: 12 * ms, Kind: sim.EvNote, Node: "server-3", Text: "caught up to rv 1"},
	}
	tl := sim.Timeline(events, sim.TimelineOptions{Columns: lanes, Fit: 78})
	fitsAndKeepsEverything(t, tl, 78, events)
	header, _, _ := strings.Cut(tl, "\n")
	assert.NotContains(t, header, "auditor")
	assert.Equal(t, 5, strings.Count(header, "│"), header)
	assert.Contains(t, tl, "           │ idle in this window: auditor\n")
	// With room for every lane, none is left out.
	all := sim.Timeline(events, sim.TimelineOptions{Columns: lanes, Fit: 120})
	assert.NotContains(t, all, "idle in this window")
	assert.Contains(t, all, "auditor")
}

// Hiding lanes and lists are for fitted timelines only: wide ones keep every
// lane as wide as its longest cell, and so does a timeline told no width.
func TestWideAndUnfittedTimelinesKeepEveryLane(t *testing.T) {
	t.Setenv("ONEHISTORY_TIMELINE", "")
	t.Setenv("COLUMNS", "")
	lanes, events := fiveServers()
	for name, opt := range map[string]sim.TimelineOptions{
		"wide":     {Columns: lanes, Wide: true, Fit: 78},
		"unfitted": {Columns: lanes},
	} {
		tl := sim.Timeline(events, opt)
		header, _, _ := strings.Cut(tl, "\n")
		assert.Equal(t, 9, strings.Count(header, "│"), "%s: %s", name, header)
		assert.NotContains(t, tl, "idle in this window", name)
	}
}

// Wrap breaks between words, marks continuations with a space, and leaves
// a short string whole.
func TestWrap(t *testing.T) {
	assert.Equal(t, []string{"web=5 stamped"}, sim.Wrap("web=5 stamped", 20))
	got := sim.Wrap("CREATE deployments/web replicas=3 @server-1 → rv=1", 16)
	require.Greater(t, len(got), 1)
	assert.Equal(t, "CREATE", strings.Fields(got[0])[0])
	for i, line := range got {
		assert.LessOrEqual(t, utf8.RuneCountInString(line), 16, line)
		if i > 0 {
			assert.True(t, strings.HasPrefix(line, " "), line)
		}
	}
	assert.Equal(t, "2020.8", sim.AxisTime(2020*ms+800*time.Microsecond))
	assert.Equal(t, "0.0", sim.AxisTime(0))
}

// Every kind of fault has a shade, and the kinds a reader tells apart by
// their effect share one: a slow disk is slow, as a slow link is.
func TestEachFaultKindHasItsShade(t *testing.T) {
	for kind, shade := range map[sim.FaultKind]string{
		sim.FaultCrash: "crash", sim.FaultPartition: "cut", sim.FaultCut: "cut",
		sim.FaultSlow: "slow", sim.FaultSlowDisk: "slow", sim.FaultSkew: "skew", sim.FaultOther: "other",
		sim.FaultClockRate: "skew", sim.FaultPause: "pause",
	} {
		assert.Equal(t, shade, kind.Shade(), kind.String())
	}
}
