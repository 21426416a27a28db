// Package table lays out the tables a failure's details show (the changes
// a history lost, the servers' histories side by side, the requests of an
// outage) so that they fit the report they are printed in.
//
// A table is first drawn with each column as wide as its widest cell. When
// that is wider than the report, the widest columns that may wrap are made
// narrower, one character at a time, and their cells go on over several
// lines; a right-aligned column (a time, a count) never wraps. When even
// the narrowest columns do not fit, or the cells would wrap over more than
// two lines a row on average, each row is told as a paragraph of
// "header value" pairs instead. No cell is ever cut: every table keeps all
// it holds, whatever the width.
//
//	table.Table{Indent: "  ", Header: []string{"op", "client", "change"}, Rows: rows}.String()
package table

import (
	"strings"
	"unicode/utf8"

	"onehistory/internal/harness/sim"
)

// MinColumn is the narrowest a wrapping column is made: a column narrower
// than its header or this is not wrapped further, and a table that needs
// narrower columns than these is told row by row.
const MinColumn = 12

// Table is a table of text: a header and rows of cells, one per column.
type Table struct {
	Indent string     // written before every line: "  "
	Header []string   // the columns' names; an empty name is a column of marks
	Rows   [][]string // the cells; a row may have fewer cells than the header
	Right  []bool     // the columns aligned right (figures), by index; they never wrap
}

// String is the table fitted to the report's width (sim.TerminalWidth),
// or at its natural width when nothing says a width.
func (t Table) String() string { return t.Fit(sim.TerminalWidth()) }

// Fit is the table laid out in at most width columns, Indent included;
// width 0 or less is no limit. Each line ends with a newline, and no line
// ends with a space.
func (t Table) Fit(width int) string {
	n := len(t.Header)
	for _, r := range t.Rows {
		n = max(n, len(r))
	}
	widths := make([]int, n)
	for _, r := range t.rows() {
		for i, c := range r {
			widths[i] = max(widths[i], runes(c))
		}
	}
	if width > 0 && t.total(widths) > width {
		if !t.narrow(widths, width) {
			return t.paragraphs(width)
		}
		t.tighten(widths)
	}
	var b strings.Builder
	for _, r := range t.rows() {
		t.writeRow(&b, r, widths)
	}
	if rows := len(t.rows()); strings.Count(b.String(), "\n") > 2*rows {
		// Cells wrapped over more than two lines a row on average are
		// harder to read than the rows told one by one.
		return t.paragraphs(width)
	}
	return b.String()
}

// rows is the header, when there is one, then the rows.
func (t Table) rows() [][]string {
	if len(t.Header) == 0 {
		return t.Rows
	}
	return append([][]string{t.Header}, t.Rows...)
}

// total is the width of a line with columns this wide.
func (t Table) total(widths []int) int {
	sum := runes(t.Indent) + 2*(len(widths)-1)
	for _, w := range widths {
		sum += w
	}
	return sum
}

// right reports whether column i is aligned right.
func (t Table) right(i int) bool { return i < len(t.Right) && t.Right[i] }

// narrow makes the widest wrapping columns narrower until the table fits
// width, and reports whether it does: first no narrower than each
// column's longest word, so that cells wrap between words, then down to
// least, breaking words.
func (t Table) narrow(widths []int, width int) bool {
	words := make([]int, len(widths))
	for _, r := range t.rows() {
		for i, c := range r {
			for _, w := range strings.Fields(c) {
				words[i] = max(words[i], runes(w))
			}
		}
	}
	for _, floor := range []func(i int) int{
		func(i int) int { return max(t.least(i), words[i]) },
		t.least,
	} {
		for t.total(widths) > width {
			widest := -1
			for i, w := range widths {
				if !t.right(i) && w > floor(i) && (widest < 0 || w > widths[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				break
			}
			widths[widest]--
		}
	}
	return t.total(widths) <= width
}

// tighten makes each column as wide as the widest line its cells wrap to,
// so that a narrowed column keeps no margin its lines do not use.
func (t Table) tighten(widths []int) {
	used := make([]int, len(widths))
	for _, r := range t.rows() {
		for i, c := range r {
			lines := []string{c}
			if runes(c) > widths[i] {
				lines = wrap(c, widths[i])
			}
			for _, l := range lines {
				used[i] = max(used[i], runes(l))
			}
		}
	}
	copy(widths, used)
}

// least is the narrowest column i is made.
func (t Table) least(i int) int {
	if i < len(t.Header) {
		return max(MinColumn, runes(t.Header[i]))
	}
	return MinColumn
}

// writeRow writes one row, its cells wrapped to their columns' widths.
func (t Table) writeRow(b *strings.Builder, row []string, widths []int) {
	cells := make([][]string, len(row))
	height := 1
	for i, c := range row {
		cells[i] = []string{c}
		if runes(c) > widths[i] {
			cells[i] = wrap(c, widths[i])
		}
		height = max(height, len(cells[i]))
	}
	for l := range height {
		line := t.Indent
		for i := range row {
			cell := ""
			if l < len(cells[i]) {
				cell = cells[i][l]
			}
			pad := strings.Repeat(" ", widths[i]-runes(cell))
			if t.right(i) {
				cell = pad + cell
			} else if i < len(row)-1 {
				cell += pad
			}
			if i > 0 {
				line += "  "
			}
			line += cell
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

// paragraphs tells each row as its cells, each after its column's name,
// wrapped to width: the form of a table too wide for any columns.
func (t Table) paragraphs(width int) string {
	var b strings.Builder
	for _, r := range t.Rows {
		var parts []string
		for i, c := range r {
			if c = strings.TrimSpace(c); c == "" {
				continue
			}
			if i < len(t.Header) && strings.TrimSpace(t.Header[i]) != "" {
				c = strings.TrimSpace(t.Header[i]) + " " + c
			}
			parts = append(parts, c)
		}
		text := strings.Join(parts, ", ")
		lines := wrap(text, max(width-runes(t.Indent)-2, MinColumn))
		for j, l := range lines {
			lead := t.Indent
			if j > 0 {
				lead += "  "
			}
			b.WriteString(strings.TrimRight(lead+l, " ") + "\n")
		}
	}
	return b.String()
}

// wrap breaks s into lines of at most width characters, at spaces where it
// can and inside a word longer than a line where it must.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		for runes(word) > width {
			if line != "" {
				lines = append(lines, line)
				line = ""
			}
			head, tail := split(word, width)
			lines = append(lines, head)
			word = tail
		}
		switch {
		case line == "":
			line = word
		case runes(line)+1+runes(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// split cuts a word to at most n characters: after its last "/", "=",
// "," or "{" in the first n when that is past the middle of them, else
// after n characters.
func split(word string, n int) (string, string) {
	i, cut, at := 0, len(word), 0
	for k, r := range word {
		if i == n {
			cut = k
			break
		}
		i++
		if strings.ContainsRune("/=,{", r) && i > n/2 {
			at = k + utf8.RuneLen(r)
		}
	}
	if cut == len(word) {
		return word, ""
	}
	if at > 0 {
		cut = at
	}
	return word[:cut], word[cut:]
}

func runes(s string) int { return utf8.RuneCountInString(s) }
