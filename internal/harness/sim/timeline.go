package sim

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// TimelineOptions shape a swimlane timeline. The zero value shows every
// event of every node, at most 60 rows.
type TimelineOptions struct {
	Columns []NodeID         // the lanes, left to right; default: every node, in order added
	Width   int              // characters per lane; default 26
	MaxRows int              // rows before eliding; default 60
	Focus   time.Duration    // with more rows than MaxRows, center on this virtual time
	Filter  func(Event) bool // keep only the events it accepts; default: all but disk appends
}

// Timeline renders the world's trace as a swimlane timeline: one lane per
// node, virtual milliseconds down the side, world-wide faults across all
// lanes. Long runs are elided around the Focus time.
func (w *World) Timeline(opt TimelineOptions) string {
	if opt.Columns == nil {
		opt.Columns = w.Nodes()
	}
	return Timeline(w.trace.Events(), opt)
}

// Timeline renders events as a swimlane timeline (see World.Timeline).
func Timeline(events []Event, opt TimelineOptions) string {
	if opt.Width <= 0 {
		opt.Width = 26
	}
	if opt.MaxRows <= 0 {
		opt.MaxRows = 60
	}
	if opt.Filter == nil {
		opt.Filter = func(e Event) bool { return !(e.Kind == EvDisk && strings.HasPrefix(e.Text, "append")) }
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

	var b strings.Builder
	b.WriteString(pad("virtual ms", 11) + "│")
	for _, id := range opt.Columns {
		b.WriteString(" " + pad(string(id), opt.Width) + "│")
	}
	b.WriteByte('\n')
	rule := strings.Repeat("─", 11) + "┼" + strings.Repeat(strings.Repeat("─", opt.Width+1)+"┼", len(opt.Columns))
	b.WriteString(rule + "\n")
	if from > 0 {
		fmt.Fprintf(&b, "%s│ ⋮ %d earlier events not shown\n", pad("", 11), from)
	}
	for _, e := range rows[from:to] {
		b.WriteString(pad(fmt.Sprintf("%10.1f", float64(e.At)/float64(time.Millisecond)), 11) + "│")
		if e.Node == "" {
			b.WriteString(" ══ " + e.Summary() + " ══\n")
			continue
		}
		for i := range opt.Columns {
			cell := ""
			if i == lane[e.Node] {
				cell = e.Summary()
			}
			b.WriteString(" " + pad(cell, opt.Width) + "│")
		}
		b.WriteByte('\n')
	}
	if to < len(rows) {
		fmt.Fprintf(&b, "%s│ ⋮ %d later events not shown\n", pad("", 11), len(rows)-to)
	}
	return b.String()
}

// pad cuts or fills s to exactly n characters.
func pad(s string, n int) string {
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		return string(r[:n-1]) + "…"
	}
	return s + strings.Repeat(" ", n-utf8.RuneCountInString(s))
}
