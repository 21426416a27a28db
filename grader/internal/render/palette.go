package render

import (
	"fmt"

	"github.com/fatih/color"

	"onehistory/grader/internal/result"
)

// Palette colors text for a terminal, or leaves it plain.
type Palette struct {
	on                                bool
	pass, fail, errc, slow, idle, dim *color.Color
	bold                              *color.Color
	width                             int // the terminal's columns, 0 when unknown
}

// Fitting is the palette for a terminal width columns wide: the report
// breaks its longer lines to fit it (0, unknown, breaks only a story's
// first line, at 100).
func (p Palette) Fitting(width int) Palette {
	p.width = width
	return p
}

// lineWidth is how wide a line the report writes may be: no limit when
// the terminal's width is unknown.
func (p Palette) lineWidth() int {
	if p.width <= 0 {
		return 1 << 20
	}
	return max(40, p.width)
}

// NewPalette returns a palette that colors when on is true. Decide on with
// ColorWanted.
func NewPalette(on bool) Palette {
	mk := func(attrs ...color.Attribute) *color.Color {
		c := color.New(attrs...)
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	return Palette{
		on:   on,
		pass: mk(color.FgGreen, color.Bold),
		fail: mk(color.FgRed, color.Bold),
		errc: mk(color.FgMagenta, color.Bold),
		slow: mk(color.FgYellow, color.Bold),
		idle: mk(color.FgCyan),
		dim:  mk(color.Faint),
		bold: mk(color.Bold),
	}
}

// ColorWanted decides whether to color: mode "always" or "never" says so
// (though NO_COLOR, when set to anything, always wins); "auto" colors only a
// terminal whose TERM is not "dumb".
func ColorWanted(mode string, terminal bool, noColor, term string) bool {
	if noColor != "" {
		return false
	}
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return terminal && term != "dumb"
}

// Status is a status word, padded to width before coloring.
func (p Palette) Status(s result.Status, width int) string {
	word := string(s)
	if s == result.NotStarted {
		word = "untouched" // the code is the stub as shipped
	}
	word = fmt.Sprintf("%-*s", width, word)
	switch s {
	case result.Pass:
		return p.pass.Sprint(word)
	case result.Fail:
		return p.fail.Sprint(word)
	case result.Error:
		return p.errc.Sprint(word)
	case result.Timeout:
		return p.slow.Sprint(word)
	case result.NotStarted:
		return p.idle.Sprint(word)
	}
	return p.dim.Sprint(word)
}

// Dim is text of lesser importance: commands, paths.
func (p Palette) Dim(s string) string { return p.dim.Sprint(s) }

// Bold is a heading.
func (p Palette) Bold(s string) string { return p.bold.Sprint(s) }
