package picture

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

type replicate struct{ Key string }

// A small run: server-1 copies a write to server-2 over a slow link, a copy
// is lost, server-2 crashes and its disk is torn, and the dashboard reads
// the old value from server-2.
func story() Page {
	events := []sim.Event{
		{At: 0, Kind: sim.EvFault, Text: "slow link server-1 ↔ server-2 (400ms) from 0ms to 6000ms"},
		{At: ms(3.6), Kind: sim.EvNote, Node: "server-1", Text: "yes: web=5 at rv 2"},
		{At: ms(3.6), Kind: sim.EvSend, Node: "server-1", Peer: "server-2", Msg: replicate{"web"}},
		{At: ms(5), Kind: sim.EvDrop, Node: "server-1", Peer: "server-2", Msg: replicate{"api"}, Text: "lost"},
		{At: ms(403.6), Kind: sim.EvRecv, Node: "server-2", Peer: "server-1", Msg: replicate{"web"}},
		{At: ms(2020.8), Kind: sim.EvNote, Node: "dashboard", Text: "GET deployments/web @server-2 → replicas=3 rv=1"},
		{At: ms(2500), Kind: sim.EvCrash, Node: "server-2"},
	}
	torn := sim.Event{At: ms(2500), Kind: sim.EvDisk, Node: "server-2", Text: "crash: wal lost 12B of 40B unsynced",
		Disk: &sim.DiskOp{Op: sim.DiskCrash, File: "wal", Size: 28, Durable: 28}}
	return Page{
		Failure: suite.Failure{Chapter: "ex04", Check: "story", Name: "stale-read", Clause: course.OneHistory, At: ms(2020.8), Seed: 1,
			Replay: "make ex04 SEED=1", Story: "server-2 answered dashboard's read from its own copy"},
		Lanes:   []sim.NodeID{"server-1", "server-2", "dashboard"},
		Servers: []sim.NodeID{"server-1", "server-2"},
		Events:  events,
		Torn:    []sim.Event{torn},
		Faults: []sim.Fault{
			{Kind: sim.FaultSlow, Desc: "slow link server-1 ↔ server-2 (400ms)", Nodes: []sim.NodeID{"server-1", "server-2"}, Start: 0, End: ms(6000)},
			{Kind: sim.FaultCrash, Desc: "crash server-2", Nodes: []sim.NodeID{"server-2"}, Start: ms(2500), End: ms(2600)},
		},
		Ops: []check.Operation{{ID: 2, Client: "dashboard", Server: "server-2", Input: check.Read("deployments/web"), Call: ms(2012.4), Return: ms(2020.8),
			Result: check.Found(3, 1)}},
	}
}

func draw(t *testing.T, p Page) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, p.Write(&b))
	return b.String()
}

// The picture draws what the story is about: named lanes, the message as an
// arrow and the lost one as a cross, each fault in its kind's colour, the
// torn disk, the operation that breaks the contract, and the failure's
// instant labelled with its name and clause.
func TestThePictureDrawsTheFailureAndItsRun(t *testing.T) {
	page := draw(t, story())
	for _, want := range []string{
		`data-lane="server-1"`, `data-lane="dashboard"`, `lane-name server`, `lane-name client`,
		`class="msg" data-from="3.6" data-to="403.6"`, `class="msg lost"`,
		`class="fault slow"`, `class="fault crash"`, `class="fault torn"`,
		`class="op decisive" data-op="2"`,
		`id="failure"`, "stale-read at 2020.8ms · breaks clause 1 (One history, not one machine)",
		`id="story">Server-2 answered dashboard&#39;s read from its own copy`,
		`id="legend"`, "make ex04 SEED=1",
	} {
		assert.Contains(t, page, want)
	}
}

// The picture and the terminal's timeline name the same instants, written
// the same way: every instant on the timeline's axis is on the picture's.
func TestThePictureNamesTheTerminalsInstants(t *testing.T) {
	p := story()
	page := draw(t, p)
	timeline := sim.Timeline(p.Events, sim.TimelineOptions{Columns: p.Lanes, Filter: func(sim.Event) bool { return true }})
	axis := regexp.MustCompile(`(?m)^\s*(\d+\.\d)\s*│`)
	instants := axis.FindAllStringSubmatch(timeline, -1)
	require.NotEmpty(t, instants)
	for _, m := range instants {
		assert.Contains(t, page, `data-ms="`+m[1]+`"`, "the terminal names %sms", m[1])
	}
}

// A long run is drawn around the failure: the failure's own event is on the
// page however many came before it, and the page says what it left out.
func TestALongRunIsDrawnAroundTheFailure(t *testing.T) {
	p := story()
	var events []sim.Event
	for i := range 1000 {
		events = append(events, sim.Event{At: ms(float64(i)), Kind: sim.EvNote, Node: "server-1", Text: "tick"})
	}
	p.Events = append(events, sim.Event{At: ms(2020.8), Kind: sim.EvNote, Node: "dashboard", Text: "the stale read"})
	p.MaxRows = 50
	page := draw(t, p)
	assert.Contains(t, page, "the stale read")
	assert.Contains(t, page, "earlier events not drawn")
	assert.NotContains(t, page, `data-ms="0.0"`)
}

// The page stands alone: nothing it shows comes from the network.
func TestThePageNeedsNoNetwork(t *testing.T) {
	page := draw(t, story())
	urls := regexp.MustCompile(`https?://[^"'\s)]+`).FindAllString(page, -1)
	for _, u := range urls {
		assert.Equal(t, "http://www.w3.org/2000/svg", u, "only the SVG namespace, which is a name, not a fetch")
	}
	assert.NotRegexp(t, `(?i)<(script|img|link|iframe)[^>]*\ssrc=`, page)
	assert.NotRegexp(t, `(?i)<link[^>]*href=`, page)
}

// A linearizability failure links porcupine's view, carried inside the page.
func TestPorcupinesViewIsCarriedInsideThePage(t *testing.T) {
	p := story()
	assert.NotContains(t, draw(t, p), `id="porcupine"`)
	p.Porcupine = []byte("<html>porcupine</html>")
	page := draw(t, p)
	assert.Contains(t, page, `href="#porcupine"`)
	assert.Contains(t, page, `data-page="PGh0bWw+cG9yY3VwaW5lPC9odG1sPg=="`)
}

// A failure's instant is rounded to a tenth of a millisecond, as the axis
// names instants: the mark stands at the row of the failure's event, not
// at the next one, when the event happened a little before the rounded
// instant.
func TestTheFailureIsMarkedAtItsOwnRow(t *testing.T) {
	p := story()
	p.Events[5].At = time.Duration(2020.76 * float64(time.Millisecond)) // the read's answer; the failure says 2020.8ms
	page := draw(t, p)
	mark := regexp.MustCompile(`id="failure" data-x="\d+" data-y="(\d+)"`).FindStringSubmatch(page)
	row := regexp.MustCompile(`class="ev ev-note at-failure" data-at="2020.8" x="[\d.]+" y="([\d.]+)"`).FindStringSubmatch(page)
	require.NotNil(t, mark)
	require.NotNil(t, row, "the failure's own event is drawn as the failure's")
	markY, _ := strconv.ParseFloat(mark[1], 64)
	rowY, _ := strconv.ParseFloat(row[1], 64)
	assert.InDelta(t, rowY-11, markY, 1, "the mark is at the top of the failure's row")
}

// The failure's label is drawn whole, in the drawing, and over no event:
// a run drawn in a single lane (the node controller alone) widens its lane
// to the label rather than cut it, and the layout keeps room above the
// failure's row for the label, so that it covers neither the row before it
// nor the mark of a quiet stretch.
func TestTheFailuresLabelIsWholeAndCoversNoEvent(t *testing.T) {
	p := story()
	p.Lanes, p.Servers, p.Ops = []sim.NodeID{"dashboard"}, nil, nil
	page := draw(t, p)
	svg := regexp.MustCompile(`<svg id="drawing" xmlns="http://www.w3.org/2000/svg" width="(\d+)"`).FindStringSubmatch(page)
	tag := regexp.MustCompile(`class="failure-tag" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"`).FindStringSubmatch(page)
	require.NotNil(t, svg)
	require.NotNil(t, tag)
	num := func(s string) float64 { v, err := strconv.ParseFloat(s, 64); require.NoError(t, err); return v }
	width, x, y, w, h := num(svg[1]), num(tag[1]), num(tag[2]), num(tag[3]), num(tag[4])
	assert.GreaterOrEqual(t, x, float64(gutter), "the label starts right of the axis")
	assert.LessOrEqual(t, x+w, width, "the label ends inside the drawing")
	label := "stale-read at 2020.8ms · breaks clause 1 (One history, not one machine)"
	assert.GreaterOrEqual(t, w, float64(utf8.RuneCountInString(label))*tagCharW, "the tag holds its text")

	l := p.layout()
	for _, r := range l.rows {
		assert.False(t, r.y < y+h && y < r.y+r.h, "the label covers the row of %s at %s", r.e.Summary(), sim.AxisTime(r.e.At))
	}
}

// A label wider than a first screen is wrapped, the clause on a line of its
// own, and the room above the failure's row grows with it.
func TestALongFailureLabelIsWrapped(t *testing.T) {
	p := story()
	p.Failure.Name = strings.Repeat("a-very-long-failure-name-", 6)
	page := draw(t, p)
	assert.Contains(t, page, `dy="14">breaks clause 1 (One history, not one machine)</tspan>`)
	l := p.layout()
	assert.Len(t, l.tag, 2)
	assert.LessOrEqual(t, tagWidth(l.tag[:1]), float64(drawW)+200, "only a name longer than a screen is wider than one")
}

// A fault is shaded on the lanes of the nodes it hit, and its label is
// written down the lane's edge, in the margin no event's text reaches.
func TestAFaultIsShadedOnItsOwnLanes(t *testing.T) {
	page := draw(t, story())
	crash := regexp.MustCompile(`<g class="fault crash"[^>]*><title>[^<]*</title>(.*?)</g>`).FindStringSubmatch(page)
	require.NotNil(t, crash)
	p := story()
	l := p.layout()
	x, _ := l.x("server-2")
	assert.Equal(t, 1, strings.Count(crash[1], "<rect"), "server-2's crash is shaded on one lane")
	assert.Contains(t, crash[1], `<rect x="`+strconv.FormatFloat(x+1, 'f', 1, 64)+`"`, "on server-2's")
	assert.Contains(t, crash[1], `transform="rotate(90`)
	for _, r := range l.rows {
		if r.e.Node == "" {
			continue // written across the lanes, above the labels (see writeFaults)
		}
		for _, line := range r.lines {
			assert.LessOrEqual(t, 14+float64(utf8.RuneCountInString(line))*charW, l.laneW-margin+charW, "an event's text stops short of the lane's margin: %q", line)
		}
	}
}

// A clock set off at a moment stays off: the skew is shaded on its node's
// lane from that moment until the clock is set again, or to the end of the
// drawing.
func TestASkewedClockIsShadedUntilItIsSetAgain(t *testing.T) {
	p := story()
	p.Faults = append(p.Faults,
		sim.Fault{Kind: sim.FaultSkew, Desc: "clock of server-1 skewed by +400ms", Nodes: []sim.NodeID{"server-1"}, Start: 0, End: 0},
		sim.Fault{Kind: sim.FaultSkew, Desc: "clock of server-1 skewed by +100ms", Nodes: []sim.NodeID{"server-1"}, Start: ms(403.6), End: ms(403.6)})
	page := draw(t, p)
	assert.Contains(t, page, `class="fault skew" data-kind="clock skew" data-from="0.0" data-to="0.0"`)
	spans := regexp.MustCompile(`<g class="fault skew"[^>]*><title>[^<]*</title><rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)"`).FindAllStringSubmatch(page, -1)
	require.Len(t, spans, 2)
	l := p.layout()
	y, _ := strconv.ParseFloat(spans[0][1], 64)
	h, _ := strconv.ParseFloat(spans[0][2], 64)
	assert.InDelta(t, l.top(ms(403.6)), y+h, 20, "the first skew lasts until the clock is set again")
	y, _ = strconv.ParseFloat(spans[1][1], 64)
	h, _ = strconv.ParseFloat(spans[1][2], 64)
	assert.InDelta(t, l.bottom(ms(2500)), y+h, 1, "the second to the end of the drawing")
}

// A fault that began long before the rows drawn around the failure is
// drawn all the same, as the terminal's timeline keeps it: the picture
// names the instant the terminal names.
func TestAnEarlyFaultIsDrawnAroundALateFailure(t *testing.T) {
	p := story()
	events := []sim.Event{{At: 0, Kind: sim.EvFault, Text: "clock of server-1 skewed by +400ms at 0ms"}}
	for i := range 1000 {
		events = append(events, sim.Event{At: ms(1 + float64(i)), Kind: sim.EvNote, Node: "server-1", Text: "tick"})
	}
	p.Events = append(events, sim.Event{At: ms(2020.8), Kind: sim.EvNote, Node: "dashboard", Text: "the stale read"})
	p.MaxRows = 50
	page := draw(t, p)
	assert.Contains(t, page, `data-ms="0.0"`)
	assert.Contains(t, page, "clock of server-1 skewed by +400ms")
	assert.Contains(t, page, "the stale read")
	assert.Contains(t, page, "951 earlier events not drawn")
}
