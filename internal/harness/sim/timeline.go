package sim

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// TimelineOptions shape a swimlane timeline. The zero value shows every
// event of every node, at most 60 rows.
type TimelineOptions struct {
	Columns []NodeID         // the lanes, left to right; default: every node, in order added
	Width   int              // characters per lane; default 26 (see Fit and Wide)
	MaxRows int              // rows before eliding; default 60
	Focus   time.Duration    // with more rows than MaxRows, center on this virtual time
	Filter  func(Event) bool // keep only the events it accepts; default: all but disk appends

	// Fit, if positive, is the whole width in characters the timeline
	// should fill (a terminal's width): the lanes share it and Width is
	// ignored. Zero takes it from the environment (TerminalWidth).
	Fit int
	// Wide makes each lane as wide as its own longest cell, whatever Fit
	// and Width say. The environment asks for it with ONEHISTORY_TIMELINE=wide.
	Wide bool
}

// TerminalWidth is the width a timeline fits when its options give none:
// COLUMNS from the environment, when it is a number of at least 40, else 0
// (no fitting: each lane is Width wide). The grader sets COLUMNS for the
// suites it runs to the width its report leaves a timeline: the terminal's,
// less the indent the report puts before each line. The book's captures
// set a fixed width, so that what they quote is the same on every machine.
func TerminalWidth() int {
	n, err := strconv.Atoi(os.Getenv("COLUMNS"))
	if err != nil || n < 40 {
		return 0
	}
	return n
}

// WideTimelines reports whether the environment asks for wide timelines
// (ONEHISTORY_TIMELINE=wide): each lane as wide as its own longest cell.
func WideTimelines() bool { return os.Getenv("ONEHISTORY_TIMELINE") == "wide" }

// minLane is the narrowest lane a fitted timeline uses; a terminal too narrow
// for its lanes gets a timeline wider than itself rather than unreadable.
const minLane = 14

// laneWidths decides the characters of each lane: with Wide, each lane as
// wide as its own longest cell; else all alike, shared out of Fit or Width.
func laneWidths(opt TimelineOptions, rows []Event) []int {
	widths := make([]int, len(opt.Columns))
	if opt.Wide || WideTimelines() {
		lane := map[NodeID]int{}
		for i, id := range opt.Columns {
			lane[id] = i
			widths[i] = max(8, utf8.RuneCountInString(string(id)))
		}
		for _, e := range rows {
			if i, ok := lane[e.Node]; ok {
				widths[i] = max(widths[i], utf8.RuneCountInString(e.Summary()))
			}
		}
		return widths
	}
	w := 26
	fit := opt.Fit
	if fit <= 0 {
		fit = TerminalWidth()
	}
	switch {
	case fit > 0 && len(widths) > 0:
		// "virtual ms │" is 12 characters; each lane adds " cell│".
		w = max(minLane, (fit-12)/len(widths)-2)
	case opt.Width > 0:
		w = opt.Width
	}
	for i := range widths {
		widths[i] = w
	}
	return widths
}

// Timeline renders the world's trace as a swimlane timeline: one lane per
// node, virtual milliseconds down the side, world-wide faults across all
// lanes. Long runs are elided around the Focus time. A cell longer than its
// lane goes on over the next lines, broken between words where it can be:
// nothing an event says is ever cut.
func (w *World) Timeline(opt TimelineOptions) string {
	if opt.Columns == nil {
		opt.Columns = w.Nodes()
	}
	return Timeline(w.trace.Events(), opt)
}

// Timeline renders events as a swimlane timeline (see World.Timeline).
//
// A timeline fitted to a width (Fit, or the terminal's) never draws a lane
// narrower than 14 characters. When its lanes cannot all be that wide, it
// leaves out the lanes with no event in the rows it shows and names them on
// a line of their own ("idle in this window: auditor, controller-b"); when
// the lanes that remain still cannot, it tells the same rows as a list, one
// event a line: its instant, its node, and what happened (see List). Either
// way no line is wider than the width and nothing an event says is cut.
func Timeline(events []Event, opt TimelineOptions) string {
	if opt.MaxRows <= 0 {
		opt.MaxRows = 60
	}
	if opt.Filter == nil {
		opt.Filter = func(e Event) bool { return !(e.Kind == EvDisk && e.Disk.Op == DiskAppend) }
	}
	lane := map[NodeID]int{}
	for i, id := range opt.Columns {
		lane[id] = i
	}
	var rows []Event
	for _, e := range events {
		if _, ok := lane[e.Node]; (ok || e.Node == "") && opt.Filter(e) {
			rows = append(rows, e)
		}
	}
	from, to := 0, len(rows)
	if len(rows) > opt.MaxRows {
		center := 0
		for center < len(rows) && rows[center].At < opt.Focus {
			center++
		}
		from = center - opt.MaxRows/2
		if from < 0 {
			from = 0
		}
		to = from + opt.MaxRows
		if to > len(rows) {
			to = len(rows)
			from = to - opt.MaxRows
		}
	}
	window := rows[from:to]

	var idle []NodeID
	if fit := fitWidth(opt); fit > 0 && !lanesFit(len(opt.Columns), fit) {
		all := opt.Columns
		opt.Columns, idle = busyLanes(all, window)
		if !lanesFit(len(opt.Columns), fit) || len(opt.Columns) == 0 {
			return list(window, all, from, len(rows)-to, fit)
		}
		opt.Fit = fit
		for i, id := range opt.Columns {
			lane[id] = i
		}
	}
	widths := laneWidths(opt, window)
	whole := 12 // the width of every line: "virtual ms │", then " cell│" a lane
	for _, w := range widths {
		whole += w + 2
	}

	var b strings.Builder
	b.WriteString(pad("virtual ms", 11) + "│")
	for i, id := range opt.Columns {
		b.WriteString(" " + pad(string(id), widths[i]) + "│")
	}
	b.WriteByte('\n')
	rule := strings.Repeat("─", 11) + "┼"
	for _, w := range widths {
		rule += strings.Repeat("─", w+1) + "┼"
	}
	b.WriteString(rule + "\n")
	if len(idle) > 0 {
		aside(&b, "idle in this window: "+joinIDs(idle), whole-13)
	}
	if from > 0 {
		aside(&b, fmt.Sprintf("⋮ %d earlier events not shown", from), whole-13)
	}
	for _, e := range window {
		b.WriteString(axis(e.At) + "│")
		if e.Node == "" {
			// A world-wide fault spans the lanes, broken to their width.
			parts := Wrap(e.Summary(), whole-12-utf8.RuneCountInString(" ══  ══"))
			for n, part := range parts {
				if n > 0 {
					b.WriteString("\n" + pad("", 11) + "│   ")
				} else {
					b.WriteString(" ══ ")
				}
				b.WriteString(part)
			}
			b.WriteString(" ══\n")
			continue
		}
		for n, part := range Wrap(e.Summary(), widths[lane[e.Node]]) {
			if n > 0 {
				b.WriteString(pad("", 11) + "│")
			}
			for i := range opt.Columns {
				cell := ""
				if i == lane[e.Node] {
					cell = part
				}
				b.WriteString(" " + pad(cell, widths[i]) + "│")
			}
			b.WriteByte('\n')
		}
	}
	if to < len(rows) {
		aside(&b, fmt.Sprintf("⋮ %d later events not shown", len(rows)-to), whole-13)
	}
	return b.String()
}

// fitWidth is the width a timeline is fitted to: Fit, else the terminal's
// (TerminalWidth); 0 when its lanes are wide (Wide) or nothing says a width.
func fitWidth(opt TimelineOptions) int {
	if opt.Wide || WideTimelines() {
		return 0
	}
	if opt.Fit > 0 {
		return opt.Fit
	}
	return TerminalWidth()
}

// lanesFit reports whether n lanes, each at least minLane wide, fit in
// width characters: "virtual ms │" is 12, and each lane adds " cell│".
func lanesFit(n, width int) bool { return 12+n*(minLane+2) <= width }

// busyLanes splits lanes into those with an event among rows, in their
// order, and the idle rest.
func busyLanes(lanes []NodeID, rows []Event) (busy, idle []NodeID) {
	seen := map[NodeID]bool{}
	for _, e := range rows {
		seen[e.Node] = true
	}
	for _, id := range lanes {
		if seen[id] {
			busy = append(busy, id)
		} else {
			idle = append(idle, id)
		}
	}
	return busy, idle
}

// aside writes a line of the timeline's own (what it left out), under the
// axis, broken to width characters.
func aside(b *strings.Builder, s string, width int) {
	for _, part := range Wrap(s, max(20, width)) {
		b.WriteString(pad("", 11) + "│ " + part + "\n")
	}
}

func joinIDs(ids []NodeID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, ", ")
}

// list tells rows as a list, for a width too narrow for their lanes: one
// event a line, its instant on the axis, then its node, then what happened,
// broken to the width (a world-wide fault between ══ marks, as in the
// lanes). skipped and later are the events before and after rows that the
// timeline leaves out.
func list(rows []Event, lanes []NodeID, skipped, later, width int) string {
	name := 4 // "node"
	for _, id := range lanes {
		name = max(name, utf8.RuneCountInString(string(id)))
	}
	text := max(20, width-13-name-1)
	var b strings.Builder
	b.WriteString(pad("virtual ms", 11) + "│ " + pad("node", name) + " event\n")
	b.WriteString(strings.Repeat("─", 11) + "┼" + strings.Repeat("─", min(width-12, 1+name+1+text)) + "\n")
	aside(&b, fmt.Sprintf("%d lanes do not fit %d columns: one event a line", len(lanes), width), width-13)
	if skipped > 0 {
		aside(&b, fmt.Sprintf("⋮ %d earlier events not shown", skipped), width-13)
	}
	for _, e := range rows {
		at := axis(e.At) + "│ "
		if e.Node == "" {
			for n, part := range Wrap("══ "+e.Summary()+" ══", name+1+text) {
				if n > 0 {
					at = pad("", 11) + "│ "
				}
				b.WriteString(at + part + "\n")
			}
			continue
		}
		who := pad(string(e.Node), name)
		for n, part := range Wrap(e.Summary(), text) {
			if n > 0 {
				at, who = pad("", 11)+"│ ", pad("", name)
			}
			b.WriteString(at + who + " " + part + "\n")
		}
	}
	if later > 0 {
		aside(&b, fmt.Sprintf("⋮ %d later events not shown", later), width-13)
	}
	return b.String()
}

// AxisTime is a virtual instant as a timeline's axis names it, in
// milliseconds to the tenth: "2020.8", "0.0". The picture of a failure
// names its instants with it too, so that the two name the same ones.
func AxisTime(t time.Duration) string {
	return fmt.Sprintf("%.1f", float64(t)/float64(time.Millisecond))
}

// axis is an instant as the axis column prints it, right-aligned.
func axis(t time.Duration) string { return pad(fmt.Sprintf("%10s", AxisTime(t)), 11) }

// Wrap breaks s into lines of at most n characters, between words where it
// can: at the last space in a line's later two thirds, else after a '/', ','
// or '=' or before a '{' there, else at n. Continuation lines start with a
// space, so a reader can tell them apart. A string of at most n characters,
// or an n under 4, is one line, s itself.
func Wrap(s string, n int) []string {
	r := []rune(s)
	if len(r) <= n || n < 4 {
		return []string{s}
	}
	var lines []string
	for first := true; len(r) > 0; first = false {
		width := n
		if !first {
			width = n - 1
		}
		if len(r) <= width {
			lines = append(lines, indent(first)+string(r))
			break
		}
		cut := breakAt(r, width)
		lines = append(lines, indent(first)+strings.TrimRight(string(r[:cut]), " "))
		r = []rune(strings.TrimLeft(string(r[cut:]), " "))
	}
	return lines
}

// breakAt is where to end a line of at most width runes of r: at the last
// space in its later two thirds, else after the last '/', ',' or '=' or
// before the last '{' there, else at width.
func breakAt(r []rune, width int) int {
	for i := width; i > width/3; i-- {
		if r[i] == ' ' {
			return i
		}
	}
	for i := width; i > width/3; i-- {
		if r[i] == '{' || strings.ContainsRune("/,=", r[i-1]) {
			return i
		}
	}
	return width
}

func indent(first bool) string {
	if first {
		return ""
	}
	return " "
}

// pad cuts or fills s to exactly n characters.
func pad(s string, n int) string {
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		return string(r[:n-1]) + "…"
	}
	return s + strings.Repeat(" ", n-utf8.RuneCountInString(s))
}
