package engine

import (
	"fmt"
	"strings"
)

// capped is a text buffer that keeps at most max bytes and counts the rest,
// so that a chapter that floods its output costs memory in proportion to the
// cap, not to the flood.
type capped struct {
	max  int
	b    strings.Builder
	lost int64
}

func newCapped(max int) *capped { return &capped{max: max} }

// WriteString keeps what fits and counts what does not.
func (c *capped) WriteString(s string) {
	room := c.max - c.b.Len()
	if room >= len(s) {
		c.b.WriteString(s)
		return
	}
	if room > 0 {
		c.b.WriteString(s[:room])
		s = s[room:]
	}
	c.lost += int64(len(s))
}

// Lost is how many bytes the cap dropped.
func (c *capped) Lost() int64 { return c.lost }

// String is the kept text, with a note at the end when some was dropped.
func (c *capped) String() string {
	if c.lost == 0 {
		return c.b.String()
	}
	s := c.b.String()
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s + fmt.Sprintf("[output cut: %d more bytes not shown]\n", c.lost)
}
