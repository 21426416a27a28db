// Package picture draws one failure of a hidden suite as one page a learner
// opens in a browser: the failure's own story, clause, seed and replay
// command at the top, and under them the run as the terminal's timeline
// tells it, drawn: the servers and clients as named lanes down an axis of
// virtual milliseconds, the messages as arrows, the faults as shaded spans
// of their kind, the operations that break the contract outlined, and the
// failure's instant marked. The page opens scrolled to the failure.
//
// A Page is made from the same data as the terminal's timeline (the
// suite.Failure, and the world's trace as the scene's timeline filters it),
// so that the picture and the terminal name the same instants, formatted
// the same way ("2020.8", sim.AxisTime) and broken between words the same
// way (sim.Wrap). The page is self-contained: no network, no
// script or font from elsewhere. Its own small script scrolls to the
// failure and records, for the workbook's browser test, any script error
// and where the failure was drawn (Page.Write documents the attributes).
package picture

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// Page is one failure, and the run it happened in, as the picture draws it.
type Page struct {
	Failure suite.Failure // chapter, check, name, clause, story, instant, seed, replay, details
	Lanes   []sim.NodeID  // the lanes, left to right, as the terminal's timeline has them
	Servers []sim.NodeID  // the lanes that are servers; the rest are clients or the suite's own nodes
	// Events are the events the terminal's timeline keeps, in order; the
	// page draws at most MaxRows of them, around the failure.
	Events []sim.Event
	// Torn are the disk events of crashes that lost unsynced bytes
	// (sim.DiskCrash), drawn as torn disks whether the timeline keeps
	// them or not.
	Torn    []sim.Event
	Faults  []sim.Fault       // every fault the world injected
	Ops     []check.Operation // the operations the failure names, the decisive one first
	MaxRows int               // events drawn at most; default 400
	// Porcupine, when set, is porcupine's page of the failing key's
	// history (check.Linearization.DrawHTML), linked from the page and
	// opened inside it.
	Porcupine []byte
}

// The geometry of the drawing, in pixels.
const (
	gutter   = 74 // the axis of virtual milliseconds, on the left
	lineH    = 14 // one line of an event's text
	rowPad   = 4  // between two events
	charW    = 6.6
	breakGap = 22 // a long quiet stretch, marked on the axis
	quiet    = 100 * time.Millisecond
	headH    = 26 // the lanes' names
	// margin is kept clear at the right of each lane for the labels of
	// the faults shaded over it, written down the lane's edge.
	margin = 22
	tagH   = 18 // the failure's label
	// band is the room kept above the failure's row for its label, so that
	// the label covers no event's text and no quiet stretch's mark.
	band = tagH + 6
	// drawW is the widest the lanes are drawn in a first screen 1280
	// pixels wide: the failure's label is wrapped to it.
	drawW = 1180 - gutter
)

// row is one event as drawn: where, and its lines of text.
type row struct {
	e     sim.Event
	y, h  float64
	lines []string
	above float64 // room kept above the row for the failure's label
}

// layout is the drawing's geometry: lanes and rows.
type layout struct {
	laneW  float64
	tag    []string // the failure's label, a line each
	lane   map[sim.NodeID]int
	rows   []row
	height float64
	from   int // events before the first row drawn
	later  int // events after the last
}

func (p *Page) layout() layout {
	maxRows := p.MaxRows
	if maxRows <= 0 {
		maxRows = 400
	}
	l := layout{lane: map[sim.NodeID]int{}}
	for i, id := range p.Lanes {
		l.lane[id] = i
	}
	n := max(1, len(p.Lanes))
	l.laneW = min(260, max(170, float64(drawW)/float64(n)))
	// The lanes are at least as wide together as the failure's label, up
	// to a first screen's width; a label wider than that is wrapped.
	l.tag = p.tag()
	if need := tagWidth(l.tag) + 8; l.laneW*float64(n) < need {
		l.laneW = max(l.laneW, min(need, drawW)/float64(n))
	}
	chars := int((l.laneW - 14 - margin) / charW)
	wide := int((l.laneW*float64(n) - 4 - margin) / charW)

	events := p.Events
	from, to := 0, len(events)
	if len(events) > maxRows {
		center, _ := slices.BinarySearchFunc(events, p.Failure.At, func(e sim.Event, at time.Duration) int { return cmp.Compare(e.At, at) })
		from = max(0, center-maxRows/2)
		to = min(len(events), from+maxRows)
		from = max(0, to-maxRows)
	}
	// The faults that began before the rows drawn are drawn all the same,
	// first, as the terminal's timeline keeps them.
	var drawn []sim.Event
	for _, e := range events[:from] {
		if e.Kind == sim.EvFault {
			drawn = append(drawn, e)
		}
	}
	l.from, l.later = from-len(drawn), len(events)-to
	drawn = append(drawn, events[from:to]...)
	y := 8.0
	if l.from > 0 {
		y += lineH // room for the line that says what was left out
	}
	tagged := false
	for i, e := range drawn {
		if i > 0 {
			if dt := e.At - drawn[i-1].At; dt >= quiet {
				y += breakGap
			} else if dt > 0 {
				y += rowPad
			}
		}
		above := 0.0
		if !tagged && tenth(e.At) >= tenth(p.Failure.At) {
			tagged = true
			above = l.tagHeight() + band - tagH
			y += above
		}
		var lines []string
		if e.Node == "" {
			lines = sim.Wrap("══ "+e.Summary()+" ══", wide)
		} else {
			lines = sim.Wrap(e.Summary(), chars)
		}
		h := float64(len(lines))*lineH + rowPad
		l.rows = append(l.rows, row{e: e, y: y, h: h, lines: lines, above: above})
		y += h
	}
	if !tagged {
		y += l.tagHeight() + band - tagH
	}
	l.height = y + 16
	return l
}

// tag is the failure's label, its name, instant and clause: one line, or
// two (the clause on the second) when one is wider than the lanes can be.
func (p *Page) tag() []string {
	f := p.Failure
	label := f.Name + " at " + sim.FormatTime(f.At)
	if f.Clause == 0 {
		return []string{label}
	}
	if one := label + " · breaks " + f.Clause.String(); tagWidth([]string{one})+8 <= drawW {
		return []string{one}
	}
	return []string{label, "breaks " + f.Clause.String()}
}

// tagWidth is the width of the failure's label, lines drawn in its bold
// 11.5px monospace with the tag's padding.
func tagWidth(lines []string) float64 {
	w := 0.0
	for _, line := range lines {
		w = max(w, float64(utf8.RuneCountInString(line))*tagCharW+16)
	}
	return w
}

// tagCharW is the width of one character of the failure's label.
const tagCharW = 7.0

// tagHeight is the height of the failure's label.
func (l *layout) tagHeight() float64 { return tagH + float64(len(l.tag)-1)*lineH }

// tenth is an instant to the tenth of a millisecond, as the axis names it
// and as a failure's instant is rounded.
func tenth(t time.Duration) time.Duration { return t.Round(100 * time.Microsecond) }

// top is where instant t begins: the top of the first row at or after it.
func (l *layout) top(t time.Duration) float64 {
	for _, r := range l.rows {
		if tenth(r.e.At) >= tenth(t) {
			return r.y
		}
	}
	return l.height - 12
}

// bottom is where instant t ends: the bottom of the last row at or before it.
func (l *layout) bottom(t time.Duration) float64 {
	y := 4.0
	for _, r := range l.rows {
		if tenth(r.e.At) > tenth(t) {
			break
		}
		y = r.y + r.h
	}
	return y
}

// span is the vertical extent of [from, to], at least a few pixels tall.
func (l *layout) span(from, to time.Duration) (float64, float64) {
	y1, y2 := l.top(from), l.bottom(to)
	if y2 < y1+8 {
		y2 = y1 + 8
	}
	return y1, y2
}

func (l *layout) x(id sim.NodeID) (float64, bool) {
	i, ok := l.lane[id]
	return gutter + float64(i)*l.laneW, ok
}

// Write writes the page to w. Once loaded, the page's script scrolls the
// drawing to the failure and sets on <body>: data-ready="1";
// data-errors, the number of script errors (their messages in
// <pre id="errors">); data-viewport, "width,height"; and data-failure-box,
// data-story-box, data-clause-box and data-faults-box, each
// "left,top,right,bottom" of that element on the screen as it opened;
// data-cut, the labels the browser could not draw whole (a lane's name
// wider than its lane, the failure's label wider than its tag or the
// drawing), and data-overlaps, the labels drawn over another label or an
// event's text, each "what: its text", separated by " | ".
func (p *Page) Write(w io.Writer) error {
	var b strings.Builder
	p.write(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (p *Page) write(b *strings.Builder) {
	f := p.Failure
	l := p.layout()
	e := html.EscapeString
	width := gutter + l.laneW*float64(max(1, len(p.Lanes))) + 12

	fmt.Fprintf(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>%s</title>\n", e(fmt.Sprintf("%s · %s · %s at %s (seed %d)", f.Chapter, f.Check, f.Name, sim.FormatTime(f.At), f.Seed)))
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width\">\n<script>window.__errors=[];window.onerror=function(m,s,l,c){window.__errors.push(String(m)+(l?' (line '+l+')':''));};</script>\n")
	b.WriteString(style)
	fmt.Fprintf(b, "</head>\n<body data-chapter=\"%s\" data-check=\"%s\" data-seed=\"%d\" data-failure=\"%s\" data-at=\"%s\">\n", e(f.Chapter), e(f.Check), f.Seed, e(f.Name), sim.AxisTime(f.At))

	// The header: the failure as the story tells it.
	b.WriteString("<header>\n")
	fmt.Fprintf(b, "<div class=\"meta\">%s · check <b>%s</b> · seed %d · replay: <code>%s</code></div>\n", e(f.Chapter), e(f.Check), f.Seed, e(f.Replay))
	fmt.Fprintf(b, "<h1 id=\"title\"><span class=\"name\">%s</span> at %s</h1>\n", e(f.Name), e(sim.FormatTime(f.At)))
	fmt.Fprintf(b, "<p id=\"story\">%s</p>\n", e(suite.UpperFirst(f.Story)))
	if f.Clause != 0 {
		fmt.Fprintf(b, "<p id=\"clause\"><b>Contract %s:</b> %s</p>\n", e(f.Clause.String()), e(f.Clause.Meaning()))
	} else {
		b.WriteString("<p id=\"clause\"><b>Contract:</b> this failure names no clause of the contract</p>\n")
	}
	p.writeFaultList(b)
	p.writeLegend(b)
	var links []string
	if f.Details != "" {
		links = append(links, "<details><summary>the operations and servers involved</summary><pre>"+e(strings.TrimRight(f.Details, "\n"))+"</pre></details>")
	}
	if p.Porcupine != nil {
		links = append(links, "<a id=\"porcupine-link\" href=\"#porcupine\">porcupine's view of the failing key ↓</a>")
	}
	if len(links) > 0 {
		b.WriteString("<div class=\"more\">" + strings.Join(links, " ") + "</div>\n")
	}
	b.WriteString("</header>\n")

	// The drawing.
	fmt.Fprintf(b, "<main id=\"diagram\">\n<div class=\"lanes\" style=\"width:%.0fpx\">", width)
	fmt.Fprintf(b, "<span class=\"axis-name\" style=\"width:%dpx\">virtual ms</span>", gutter-6)
	for _, id := range p.Lanes {
		kind := "client"
		if slices.Contains(p.Servers, id) {
			kind = "server"
		}
		fmt.Fprintf(b, "<span class=\"lane-name %s\" data-lane=\"%s\" style=\"width:%.0fpx\">%s</span>", kind, e(string(id)), l.laneW-8, e(string(id)))
	}
	b.WriteString("</div>\n")
	fmt.Fprintf(b, "<svg id=\"drawing\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\">\n", width, l.height)
	b.WriteString(defs)
	p.writeLanes(b, &l)
	p.writeFaults(b, &l)
	p.writeOps(b, &l)
	p.writeArrows(b, &l) // under the events' text, which is drawn with a halo
	p.writeRows(b, &l)
	p.writeFailure(b, &l, width)
	b.WriteString("</svg>\n<div class=\"tail\"></div>\n</main>\n") // room to scroll a late failure up to where it is read

	if p.Porcupine != nil {
		fmt.Fprintf(b, "<section id=\"porcupine\"><h2>porcupine's view of the failing key, up to the failure</h2>"+
			"<p>The linearizability checker's own drawing: one row per client, the longest orders it found. Opened here, inside this page.</p>"+
			"<iframe id=\"porcupine-frame\" title=\"porcupine\" data-page=\"%s\"></iframe></section>\n", base64.StdEncoding.EncodeToString(p.Porcupine))
	}
	b.WriteString("<pre id=\"errors\"></pre>\n")
	b.WriteString(script)
	b.WriteString("</body></html>\n")
}

// writeFaultList lists the faults in the header, those nearest the failure
// first, each in its kind's colour.
func (p *Page) writeFaultList(b *strings.Builder) {
	faults := slices.Clone(p.Faults)
	at := p.Failure.At
	dist := func(f sim.Fault) time.Duration {
		switch {
		case at < f.Start:
			return f.Start - at
		case at > f.Last():
			return at - f.Last()
		}
		return 0
	}
	slices.SortStableFunc(faults, func(a, c sim.Fault) int { return cmp.Compare(dist(a), dist(c)) })
	b.WriteString("<div id=\"faults\"><b>Faults:</b> ")
	if len(faults) == 0 && len(p.Torn) == 0 {
		b.WriteString("none: the network, the clocks and the disks all behaved")
	}
	const shown = 6
	for i, f := range faults {
		if i == shown {
			fmt.Fprintf(b, "<span class=\"more-faults\">and %d more, drawn below</span>", len(faults)-shown)
			break
		}
		fmt.Fprintf(b, "<span class=\"chip %s\">%s</span> ", f.Kind.Shade(), html.EscapeString(f.String()))
	}
	for i, t := range p.Torn {
		if i == shown {
			break
		}
		fmt.Fprintf(b, "<span class=\"chip torn\">torn disk on %s at %s: %s</span> ", html.EscapeString(string(t.Node)), sim.FormatTime(t.At), html.EscapeString(t.Text))
	}
	b.WriteString("</div>\n")
}

func (p *Page) writeLegend(b *strings.Builder) {
	b.WriteString(`<div id="legend"><b>Legend:</b>
<span><i class="sw lane-client"></i>client lane</span>
<span><i class="sw lane-server"></i>server lane</span>
<span><svg width="28" height="10"><line x1="1" y1="5" x2="26" y2="5" class="msg" marker-end="url(#arrow)"/></svg>message</span>
<span><svg width="28" height="10"><line x1="1" y1="5" x2="26" y2="5" class="msg reply" marker-end="url(#arrow-reply)"/></svg>reply</span>
<span><i class="sw drop">✗</i>message lost</span>
<span><i class="sw crash"></i>crash</span>
<span><i class="sw cut"></i>cut link or partition</span>
<span><i class="sw slow"></i>slow link or disk</span>
<span><i class="sw skew"></i>clock skew or rate</span>
<span><i class="sw pause"></i>node paused</span>
<span><i class="sw torn"></i>torn disk</span>
<span><i class="sw op"></i>operation that breaks the contract</span>
<span><i class="sw failure"></i>the failure's instant</span>
</div>
`)
}

// writeLanes draws each lane's band and life line, and the axis.
func (p *Page) writeLanes(b *strings.Builder, l *layout) {
	for i, id := range p.Lanes {
		x := gutter + float64(i)*l.laneW
		kind := "client"
		if slices.Contains(p.Servers, id) {
			kind = "server"
		}
		fmt.Fprintf(b, "<rect class=\"lane lane-%s\" data-lane=\"%s\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.0f\"/>", kind, html.EscapeString(string(id)), x, l.laneW, l.height)
		fmt.Fprintf(b, "<line class=\"life\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.0f\"/>\n", x+8, x+8, l.height)
	}
	if l.from > 0 {
		fmt.Fprintf(b, "<text class=\"elided\" x=\"%d\" y=\"12\">⋮ %d earlier events not drawn (the terminal's timeline shows fewer still)</text>\n", gutter+4, l.from)
	}
	if l.later > 0 {
		fmt.Fprintf(b, "<text class=\"elided\" x=\"%d\" y=\"%.0f\">⋮ %d later events not drawn</text>\n", gutter+4, l.height-4, l.later)
	}
}

// writeFaults shades each fault's span over the lanes of the nodes it
// touched (every lane, for a fault that names none of them), and marks each
// torn disk.
func (p *Page) writeFaults(b *strings.Builder, l *layout) {
	if len(l.rows) == 0 {
		return
	}
	first, last := l.rows[0].e.At, l.rows[len(l.rows)-1].e.At
	for i, f := range p.Faults {
		until := p.lasting(i, last)
		if until < first || f.Start > last {
			continue
		}
		y1, y2 := l.span(f.Start, until)
		var xs []float64
		for _, id := range f.Nodes {
			if x, ok := l.x(id); ok {
				xs = append(xs, x)
			}
		}
		if len(xs) == 0 {
			for _, id := range p.Lanes {
				x, _ := l.x(id)
				xs = append(xs, x)
			}
		}
		class := f.Kind.Shade()
		fmt.Fprintf(b, "<g class=\"fault %s\" data-kind=\"%s\" data-from=\"%s\" data-to=\"%s\"><title>%s</title>", class, html.EscapeString(f.Kind.String()), sim.AxisTime(f.Start), sim.AxisTime(f.Last()), html.EscapeString(f.String()))
		for _, x := range xs {
			fmt.Fprintf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", x+1, y1, l.laneW-2, y2-y1)
		}
		// The label starts under the rows of the fault's first instant,
		// where a fault with no node of its own writes across the lanes.
		ly := min(max(y1, l.bottom(f.Start)+2), y2)
		fmt.Fprintf(b, "%s</g>\n", edgeLabel(xs[0]+l.laneW, ly, f.Kind.String()))
	}
	for _, t := range p.Torn {
		x, ok := l.x(t.Node)
		if !ok || t.At < first || t.At > last {
			continue
		}
		y := l.top(t.At)
		fmt.Fprintf(b, "<g class=\"fault torn\" data-kind=\"torn disk\" data-from=\"%s\" data-to=\"%s\"><title>torn disk on %s at %s: %s</title>"+
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\"/>%s</g>\n",
			sim.AxisTime(t.At), sim.AxisTime(t.At), html.EscapeString(string(t.Node)), sim.FormatTime(t.At), html.EscapeString(t.Text), x+1, y-6, l.laneW-2, edgeLabel(x+l.laneW, y-6, "torn disk"))
	}
}

// lasting is when fault i stops being drawn: its last moment, or, for a
// clock set off at a moment (a skew, a rate), the moment the next fault of
// its kind on the same nodes sets it again, or the drawing's last: the
// clock stays off from then on.
func (p *Page) lasting(i int, last time.Duration) time.Duration {
	f := p.Faults[i]
	if f.Last() != f.Start || f.Kind.Shade() != "skew" {
		return f.Last()
	}
	for _, g := range p.Faults[i+1:] {
		if g.Kind == f.Kind && g.Start > f.Start && slices.Equal(g.Nodes, f.Nodes) {
			return g.Start
		}
	}
	return max(last, f.Start)
}

// edgeLabel is a fault's label, written down the right edge of a lane
// (right) from y, in the margin the events' text leaves clear.
func edgeLabel(right, y float64, label string) string {
	x := right - margin/2 + 4
	return fmt.Sprintf("<text class=\"fault-label\" x=\"%.1f\" y=\"%.1f\" transform=\"rotate(90 %.1f %.1f)\">%s</text>", x, y+3, x, y+3, html.EscapeString(label))
}

// writeOps outlines the operations the failure names, each over its client's
// lane from its call to its answer.
func (p *Page) writeOps(b *strings.Builder, l *layout) {
	if len(l.rows) == 0 {
		return
	}
	for i, op := range p.Ops {
		x, ok := l.x(sim.NodeID(op.Client))
		if !ok {
			continue
		}
		end := op.Return
		if op.Result.Outcome == check.Pending || end < op.Call {
			end = l.rows[len(l.rows)-1].e.At
		}
		y1, y2 := l.span(op.Call, end)
		class := "op"
		if i == 0 {
			class = "op decisive"
		}
		fmt.Fprintf(b, "<g class=\"%s\" data-op=\"%d\" data-from=\"%s\" data-to=\"%s\"><title>%s</title>"+
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"3\"/>"+
			"<text class=\"op-label\" x=\"%.1f\" y=\"%.1f\">#%d</text></g>\n",
			class, op.ID, sim.AxisTime(op.Call), sim.AxisTime(end), html.EscapeString(op.String()), x+2, y1-2, l.laneW-4, y2-y1+4, x+l.laneW-6, y1+9, op.ID)
	}
}

// writeRows writes each event's instant on the axis and its text in its lane.
func (p *Page) writeRows(b *strings.Builder, l *layout) {
	var prev time.Duration = -1
	for i, r := range l.rows {
		if i > 0 && r.e.At-l.rows[i-1].e.At >= quiet {
			y := r.y - r.above
			fmt.Fprintf(b, "<text class=\"quiet\" x=\"%d\" y=\"%.1f\">⋯ %s later</text>", 4, y-7, sim.FormatTime(r.e.At-l.rows[i-1].e.At))
			fmt.Fprintf(b, "<line class=\"quiet-rule\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", gutter, y-breakGap/2, gutter+l.laneW*float64(len(p.Lanes)), y-breakGap/2)
		}
		if r.e.At != prev {
			fmt.Fprintf(b, "<text class=\"ms\" data-ms=\"%s\" x=\"%d\" y=\"%.1f\">%s</text>", sim.AxisTime(r.e.At), gutter-6, r.y+11, sim.AxisTime(r.e.At))
			prev = r.e.At
		}
		x := float64(gutter) + 4
		if r.e.Node != "" {
			lx, ok := l.x(r.e.Node)
			if !ok {
				continue
			}
			x = lx + 14
		}
		class := "ev ev-" + r.e.Kind.String()
		if tenth(r.e.At) == tenth(p.Failure.At) {
			class += " at-failure"
		}
		fmt.Fprintf(b, "<text class=\"%s\" data-at=\"%s\" x=\"%.1f\" y=\"%.1f\">", class, sim.AxisTime(r.e.At), x, r.y+11)
		for j, line := range r.lines {
			if j == 0 {
				b.WriteString("<tspan>" + html.EscapeString(line) + "</tspan>")
				continue
			}
			fmt.Fprintf(b, "<tspan x=\"%.1f\" dy=\"%d\">%s</tspan>", x, lineH, html.EscapeString(line))
		}
		b.WriteString("</text>\n")
	}
}

// writeArrows draws each message whose sending and arrival the drawing
// holds as an arrow between the lanes, and each lost one as a short arrow
// that ends in a cross.
func (p *Page) writeArrows(b *strings.Builder, l *layout) {
	type key struct {
		from, to sim.NodeID
		reply    bool
		msg      string
	}
	pending := map[key][]row{}
	mid := func(r row) float64 { return r.y + 7 }
	for _, r := range l.rows {
		e := r.e
		switch e.Kind {
		case sim.EvSend, sim.EvReply:
			k := key{e.Node, e.Peer, e.Kind == sim.EvReply, e.Message()}
			pending[k] = append(pending[k], r)
		case sim.EvRecv, sim.EvRecvReply:
			k := key{e.Peer, e.Node, e.Kind == sim.EvRecvReply, e.Message()}
			q := pending[k]
			if len(q) == 0 {
				continue
			}
			s := q[0]
			pending[k] = q[1:]
			x1, ok1 := l.x(s.e.Node)
			x2, ok2 := l.x(e.Node)
			if !ok1 || !ok2 {
				continue
			}
			class, marker := "msg", "arrow"
			if k.reply {
				class, marker = "msg reply", "arrow-reply"
			}
			fmt.Fprintf(b, "<line class=\"%s\" data-from=\"%s\" data-to=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" marker-end=\"url(#%s)\"><title>%s</title></line>\n",
				class, sim.AxisTime(s.e.At), sim.AxisTime(e.At), x1+8, mid(s), x2+8, mid(r), marker, html.EscapeString(k.msg))
		case sim.EvDrop:
			x1, ok1 := l.x(e.Node)
			x2, ok2 := l.x(e.Peer)
			if !ok1 || !ok2 {
				continue
			}
			// The line stops short of the peer's life line, where the
			// cross is clear of the text of the event, written in the
			// sender's lane.
			xm := x2 + 8 - 12
			if x2 < x1 {
				xm = x2 + 8 + 12
			}
			fmt.Fprintf(b, "<g class=\"msg lost\" data-at=\"%s\"><title>%s</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text class=\"cross\" x=\"%.1f\" y=\"%.1f\">✗</text></g>\n",
				sim.AxisTime(e.At), html.EscapeString(e.Summary()), x1+8, mid(r), xm, mid(r), xm-4, mid(r)+4)
		}
	}
}

// writeFailure marks the failure's instant across every lane, labelled with
// its name and clause in the room the layout kept above it, and names the
// instant on the axis when no event's row does.
func (p *Page) writeFailure(b *strings.Builder, l *layout, width float64) {
	f := p.Failure
	y := l.top(f.At)
	x := float64(gutter)
	if len(p.Ops) > 0 {
		if ox, ok := l.x(sim.NodeID(p.Ops[0].Client)); ok {
			x = ox
		}
	}
	tw, th := tagWidth(l.tag), l.tagHeight()
	lx := max(float64(gutter), min(x, width-tw-4))
	ty := y - th - 3
	fmt.Fprintf(b, "<g id=\"failure\" data-x=\"%.0f\" data-y=\"%.0f\"><title>%s</title>"+
		"<line class=\"failure-line\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"+
		"<rect class=\"failure-tag\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" rx=\"3\"/>",
		lx, y, html.EscapeString(suite.UpperFirst(f.Story)), 0, y, width, y, lx, ty, tw, th)
	fmt.Fprintf(b, "<text class=\"failure-text\" x=\"%.1f\" y=\"%.1f\">", lx+8, ty+13)
	for i, line := range l.tag {
		if i == 0 {
			b.WriteString("<tspan>" + html.EscapeString(line) + "</tspan>")
			continue
		}
		fmt.Fprintf(b, "<tspan x=\"%.1f\" dy=\"%d\">%s</tspan>", lx+8, lineH, html.EscapeString(line))
	}
	b.WriteString("</text>")
	named := false
	for _, r := range l.rows {
		named = named || sim.AxisTime(r.e.At) == sim.AxisTime(f.At)
	}
	if !named {
		fmt.Fprintf(b, "<text class=\"ms failure-ms\" data-ms=\"%s\" x=\"%d\" y=\"%.1f\">%s</text>", sim.AxisTime(f.At), gutter-6, y-3, sim.AxisTime(f.At))
	}
	b.WriteString("</g>\n")
}

const style = `<style>
html,body{margin:0;height:100%}
body{display:flex;flex-direction:column;font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;background:#fff}
header{padding:8px 14px 6px;border-bottom:1px solid #ccc;background:#fafafa;flex:none;max-height:48vh;overflow:auto}
header .meta{color:#555}
header code{background:#eee;padding:0 4px;border-radius:3px}
h1{font-size:18px;margin:2px 0}
h1 .name{color:#b00020}
#story{margin:2px 0 4px;max-width:1200px}
#clause{margin:0 0 4px;color:#333}
#faults,#legend{margin:2px 0;display:flex;flex-wrap:wrap;gap:4px 10px;align-items:center}
.chip{padding:0 6px;border-radius:3px;border:1px solid #999}
#legend span{display:inline-flex;align-items:center;gap:4px;color:#444}
.sw{display:inline-block;width:16px;height:11px;border:1px solid #888;font-style:normal;font-size:10px;line-height:11px;text-align:center}
.more{margin-top:2px}
.more details{display:inline-block;vertical-align:top}
.more pre{font-size:11px;background:#fff;border:1px solid #ddd;padding:4px;max-height:30vh;overflow:auto}
#diagram{flex:1;overflow:auto;position:relative}
.lanes{position:sticky;top:0;z-index:1;display:flex;background:#fff;border-bottom:1px solid #bbb;height:26px;align-items:center}
.axis-name{display:inline-block;padding-left:6px;color:#666;font-size:11px;flex:none}
.lane-name{display:inline-block;padding-left:8px;font-weight:600;font-family:ui-monospace,Menlo,Consolas,monospace;flex:none;overflow:hidden;white-space:nowrap}
.lane-name.server{color:#0b4f8a}
.lane-name.client{color:#2e6b2e}
svg text{font-family:ui-monospace,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:11px}
.lane-client,.sw.lane-client{fill:#f6fbf4;background:#f6fbf4}
.lane-server,.sw.lane-server{fill:#f3f7fc;background:#f3f7fc}
.lane{stroke:#ddd}
.life{stroke:#bbb;stroke-dasharray:2 3}
.ms{text-anchor:end;fill:#555}
.quiet{fill:#888;font-size:10px}
.quiet-rule{stroke:#ccc;stroke-dasharray:6 4}
.ev{fill:#222;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
.ev-fault{fill:#7a4a00;font-weight:600}
.ev-crash{fill:#b00020;font-weight:700}
.ev-restart{fill:#1b6e1b;font-weight:700}
.ev-drop,.ev-timeout{fill:#8a2b00}
.ev.at-failure{fill:#b00020;font-weight:700}
.msg{stroke:#3a6ea5;stroke-width:1.3;opacity:.75}
.msg.reply{stroke:#6a8f3a;stroke-dasharray:4 2}
.msg.lost line{stroke:#c0392b;stroke-width:1.3}
.cross{fill:#c0392b;font-weight:700;font-size:13px}
.sw.drop{color:#c0392b;border-color:transparent}
.fault rect{opacity:.55}
.crash rect,.chip.crash,.sw.crash{fill:#f4b6c8;background:#f4b6c8}
.cut rect,.chip.cut,.sw.cut{fill:#ffcf99;background:#ffcf99}
.slow rect,.chip.slow,.sw.slow{fill:#b9e2f5;background:#b9e2f5}
.skew rect,.chip.skew,.sw.skew{fill:#d9c7f0;background:#d9c7f0}
.pause rect,.chip.pause,.sw.pause{fill:#c8e6c9;background:#c8e6c9}
.other rect,.chip.other{fill:#ddd;background:#ddd}
.torn rect,.chip.torn,.sw.torn{fill:url(#torn);background:repeating-linear-gradient(45deg,#8d3b1f 0 3px,#f1d3c4 3px 6px)}
.chip.torn{color:#fff}
.fault-label{fill:#5a3b00;font-size:10px;text-anchor:start;opacity:.9}
.op rect{fill:none;stroke:#e0a800;stroke-width:2}
.op.decisive rect{stroke:#b00020;stroke-width:2.5}
.sw.op{border:2px solid #b00020;background:#fff}
.op-label{fill:#b00020;font-weight:700;text-anchor:end;font-size:10px}
.failure-line{stroke:#b00020;stroke-width:2;stroke-dasharray:7 3}
.failure-tag{fill:#b00020}
.failure-text{fill:#fff;font-weight:700;font-size:11.5px}
.failure-ms{fill:#b00020;font-weight:700}
.sw.failure{border:0;border-top:2px dashed #b00020;height:0}
.elided{fill:#888;font-size:10px}
#porcupine{padding:8px 14px;border-top:1px solid #ccc}
#porcupine iframe{width:100%;height:80vh;border:1px solid #ccc}
.tail{height:50vh}
#errors:empty{display:none}
#errors{color:#b00020}
</style>
`

const defs = `<defs>
<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#3a6ea5"/></marker>
<marker id="arrow-reply" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#6a8f3a"/></marker>
<pattern id="torn" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" fill="#8d3b1f"/><rect x="3" width="3" height="6" fill="#f1d3c4"/></pattern>
</defs>
`

// script scrolls the drawing to the failure, opens porcupine's view on
// demand, and records what the browser test reads (see Page.Write).
const script = `<script>
(function(){
  function box(el){ if(!el) return ''; var r=el.getBoundingClientRect(); return [r.left,r.top,r.right,r.bottom].map(Math.round).join(','); }
  function openPorcupine(){
    var f=document.getElementById('porcupine-frame');
    if(!f || f.srcdoc) return;
    var bytes=Uint8Array.from(atob(f.getAttribute('data-page')),function(c){return c.charCodeAt(0);});
    f.srcdoc=new TextDecoder().decode(bytes);
  }
  function name(el){ return (el.getAttribute('class')||el.tagName)+': '+(el.textContent||'').trim().slice(0,60); }
  function cut(){
    var out=[];
    document.querySelectorAll('.lane-name').forEach(function(el){ if(el.scrollWidth>el.clientWidth+1) out.push(name(el)); });
    var svg=document.getElementById('drawing'), tag=document.querySelector('#failure .failure-tag'), text=document.querySelector('#failure .failure-text');
    if(svg && tag && text){
      var s=svg.getBoundingClientRect(), r=tag.getBoundingClientRect(), t=text.getBoundingClientRect();
      if(t.left<r.left-1 || t.right>r.right+1 || t.top<r.top-1 || t.bottom>r.bottom+1 || r.left<s.left-1 || r.right>s.right+1) out.push(name(text));
    }
    return out;
  }
  function overlaps(){
    var labels=[].slice.call(document.querySelectorAll('#failure .failure-tag, #failure .failure-ms, .fault-label, .quiet'));
    var texts=[].slice.call(document.querySelectorAll('#drawing text.ev, #drawing text.ms, .op-label'));
    var out=[];
    labels.forEach(function(a,i){
      var ra=a.getBoundingClientRect();
      texts.concat(labels.slice(i+1)).forEach(function(o){
        if(o===a || a.contains(o) || o.contains(a)) return;
        var ro=o.getBoundingClientRect();
        var w=Math.min(ra.right,ro.right)-Math.max(ra.left,ro.left), h=Math.min(ra.bottom,ro.bottom)-Math.max(ra.top,ro.top);
        if(w>2 && h>2) out.push(name(a.classList.contains('failure-tag')?document.querySelector('#failure .failure-text'):a)+' over '+name(o));
      });
    });
    return out;
  }
  function ready(){
    var d=document.getElementById('diagram'), f=document.getElementById('failure');
    if(d && f){
      d.scrollTop=Math.max(0,Number(f.getAttribute('data-y'))-d.clientHeight/3);
      d.scrollLeft=Math.max(0,Number(f.getAttribute('data-x'))-d.clientWidth/3);
    }
    var link=document.getElementById('porcupine-link');
    if(link) link.addEventListener('click',openPorcupine);
    if(location.hash==='#porcupine') openPorcupine();
    var b=document.body;
    b.setAttribute('data-viewport',innerWidth+','+innerHeight);
    b.setAttribute('data-failure-box',box(f));
    b.setAttribute('data-story-box',box(document.getElementById('story')));
    b.setAttribute('data-clause-box',box(document.getElementById('clause')));
    b.setAttribute('data-faults-box',box(document.getElementById('faults')));
    b.setAttribute('data-cut',cut().join(' | '));
    b.setAttribute('data-overlaps',overlaps().join(' | '));
    b.setAttribute('data-errors',String(window.__errors.length));
    document.getElementById('errors').textContent=window.__errors.join('\n');
    b.setAttribute('data-ready','1');
  }
  try { ready(); } catch(e) { window.__errors.push(String(e)); document.body.setAttribute('data-errors',String(window.__errors.length)); document.getElementById('errors').textContent=window.__errors.join('\n'); }
})();
</script>
`
