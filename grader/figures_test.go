package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The book's prose quotes figures (1387 ms, 8 pods, 90%, 5 servers) and the
// captures beside it show what the runs print, but nothing ties the two
// together: a capture is refilled by `make generate`, and the sentence
// that repeats one of its numbers is not. So every number with a unit in a
// page's prose, outside its captures, must be one of two things:
//
//   - a figure one of that page's captures shows (the same quantity: "2 s"
//     in prose is "2000ms" in a story, "5 replicas" is "replicas=5" or
//     "deployments/web=5", and a
//     timeline's "virtual ms" column counts as milliseconds); or
//
//   - a figure whose origin the page states, in a figures note above it in
//     the same section (up to the next heading):
//
//     <!-- figures 400 ms, 800 ms: the source's Failure 02, and a round trip of it -->
//
//     The words before the colon list the figures, written as the prose
//     writes them; the words after it say where they come from (the source
//     story, the suite's own parameters, arithmetic on a captured figure),
//     and may not be empty. A note is an HTML comment: rendered, the page
//     shows nothing of it, and read raw it sits beside what it explains.
//
// Only digits count: "five servers" is the story's, "5 servers" is a
// figure. A range ("380–400 ms", "between 600 and 1500 ms") is two figures.
func TestTheBookSaysWhereEveryFigureComesFrom(t *testing.T) {
	wb, _ := realWorkbook(t)
	pages, err := filepath.Glob(filepath.Join(wb.Root, "book", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range unsourcedFigures(string(data)) {
			t.Errorf("book/%s:%d: %s", filepath.Base(page), p.line, p.why)
		}
	}
}

// figureProblem is one figure a page does not account for, or a figures
// note it cannot read.
type figureProblem struct {
	line int
	why  string
}

// figureUnits are the units a number must carry to count as a figure:
// times (compared as milliseconds), percentages and counts of the things
// the book counts.
const figureUnits = `ms|milliseconds?|s|secs?|seconds?|minutes?|%|pods?|servers?|members?|replicas?|writes?|reads?|changes?|entries|entry|containers?|controllers?|round trips?|worlds?|seeds?|points?|runs?|operations?|messages?|requests?|clusters?|checks?|chapters?`

var (
	// figureRE is a number with its unit, or a range of two sharing one:
	// "1387 ms", "90%", "380–400ms", "between 600 and 1500 ms". The number
	// may not be glued to what precedes it ("rv=6", "web-2", "ex04", "02:14").
	figureRE = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_.=@#:/+-])(\d+(?:\.\d+)?)(?:(?:\s*[–-]\s*|\s+(?:to|and|or)\s+)(\d+(?:\.\d+)?))?\s?(` + figureUnits + `)(?:[^\p{L}\p{N}]|$)`)
	// timelineRowRE is a timeline row: its first column is virtual ms.
	timelineRowRE = regexp.MustCompile(`^\s*(\d+(?:\.\d+)?) │`)
	// figuresNoteRE is a figures note: <!-- figures LIST: WHENCE -->.
	figuresNoteRE = regexp.MustCompile(`<!--\s*figures?\b(.*?)-->`)
	// fieldRE is a count as a run prints it inside an object: "replicas=5",
	// or a deployment's replicas as a history prints them: "deployments/web=3".
	fieldRE   = regexp.MustCompile(`\b(replicas|pods|deployments/[a-z0-9-]+)=(\d+)\b`)
	headingRE = regexp.MustCompile(`^#{1,6} `)
	fenceRE   = regexp.MustCompile("^\\s*(```|~~~)")
)

// figure is one quantity: a value and the unit it is counted in.
type figure struct {
	value float64
	unit  string
}

// figureKey is the quantity a number and its unit name, whatever the
// spelling: milliseconds for times, the singular for counts.
func figureKey(number, unit string) figure {
	v, _ := strconv.ParseFloat(number, 64)
	switch unit {
	case "ms", "millisecond", "milliseconds":
		return figure{v, "ms"}
	case "s", "sec", "secs", "second", "seconds":
		return figure{v * 1000, "ms"}
	case "minute", "minutes":
		return figure{v * 60000, "ms"}
	case "entries":
		return figure{v, "entry"}
	}
	return figure{v, strings.TrimSuffix(unit, "s")}
}

// foundFigure is a figure as a line writes it.
type foundFigure struct {
	text string
	key  figure
}

// figuresIn lists the figures of one line, a range as two.
func figuresIn(line string) []foundFigure {
	var out []foundFigure
	for _, m := range figureRE.FindAllStringSubmatchIndex(line, -1) {
		first, second, unit := line[m[2]:m[3]], "", line[m[6]:m[7]]
		if m[4] >= 0 {
			second = line[m[4]:m[5]]
		}
		text := strings.TrimSpace(line[m[2]:m[7]])
		out = append(out, foundFigure{text, figureKey(first, unit)})
		if second != "" {
			out = append(out, foundFigure{text, figureKey(second, unit)})
		}
	}
	return out
}

// unsourcedFigures is every figure in a page's prose (Markdown, outside its
// captures) that none of the page's captures shows and no figures note in
// its section accounts for, and every figures note that does not say where
// its figures come from.
func unsourcedFigures(page string) []figureProblem {
	lines := strings.Split(page, "\n")
	// What the captures show.
	shown := map[figure]bool{}
	inCapture := make([]bool, len(lines))
	in := false
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "<!-- capture "):
			in = true
		case strings.HasPrefix(l, "<!-- /capture -->"):
			in = false
		case in:
			inCapture[i] = true
			for _, f := range figuresIn(l) {
				shown[f.key] = true
			}
			for _, m := range fieldRE.FindAllStringSubmatch(l, -1) {
				unit := m[1]
				if strings.HasPrefix(unit, "deployments/") {
					unit = "replicas"
				}
				shown[figureKey(m[2], unit)] = true
			}
			if m := timelineRowRE.FindStringSubmatch(l); m != nil {
				shown[figureKey(m[1], "ms")] = true
			}
		}
	}
	// The prose, section by section.
	var problems []figureProblem
	noted := map[figure]bool{}
	fenced := false
	for i, l := range lines {
		if inCapture[i] || strings.HasPrefix(l, "<!-- capture ") || strings.HasPrefix(l, "<!-- /capture -->") {
			continue
		}
		if fenceRE.MatchString(l) {
			fenced = !fenced
		}
		if !fenced && headingRE.MatchString(l) {
			noted = map[figure]bool{}
		}
		prose := l
		for _, m := range figuresNoteRE.FindAllStringSubmatch(l, -1) {
			list, whence, ok := strings.Cut(m[1], ":")
			listed := figuresIn(list)
			switch {
			case !ok || strings.TrimSpace(whence) == "":
				problems = append(problems, figureProblem{i + 1, fmt.Sprintf("the figures note %q does not say where its figures come from: write <!-- figures 400 ms, 800 ms: where they come from -->", strings.TrimSpace(m[0]))})
			case len(listed) == 0:
				problems = append(problems, figureProblem{i + 1, fmt.Sprintf("the figures note %q lists no figure with a unit before its colon: write <!-- figures 400 ms, 800 ms: where they come from -->", strings.TrimSpace(m[0]))})
			}
			for _, f := range listed {
				noted[f.key] = true
			}
			prose = strings.Replace(prose, m[0], "", 1)
		}
		reported := map[string]bool{}
		for _, f := range figuresIn(prose) {
			if shown[f.key] || noted[f.key] || reported[f.text] {
				continue
			}
			reported[f.text] = true
			problems = append(problems, figureProblem{i + 1, fmt.Sprintf(
				"the figure %q is in none of this page's captures, and no figures note above it in its section says where it comes from. "+
					"If a run prints it, write the figure the capture shows; if it comes from the source story or elsewhere (a suite's parameter, arithmetic on a captured figure), "+
					"say so in a note above the line, under the same heading: <!-- figures %s: where it comes from -->", f.text, f.text)})
		}
	}
	return problems
}

// The check itself, on pages made for it: a figure the captures show, or
// one a note accounts for, passes; one that is neither fails, and so does a
// note that lists figures without saying where they come from.
func TestTheBookFiguresCheckCatchesAnUnsourcedFigure(t *testing.T) {
	capture := "<!-- capture ex10 stub story -->\n```text\nthe last yes at 16872.4ms; 5 servers; web{replicas=3}; it must catch 90%\n   2000.0 │ note\n```\n<!-- /capture -->\n"
	cases := []struct {
		name, prose string
		bad         []string // the figures the check must name, in order
	}{
		{"a captured figure", "The last yes came at 16872.4 ms, from 5 servers; web had 3 replicas.\n", nil},
		{"the same quantity in other units", "Two seconds in: 2 s, 90% caught.\n", nil},
		{"a timeline's time column", "At 2000 ms the note.\n", nil},
		{"a figure the run does not print", "The last yes came at 16571.8ms.\n", []string{"16571.8ms"}},
		{"a count the run does not print", "It ran on 3 servers.\n", []string{"3 servers"}},
		{"a range, half of it printed", "Links of 380–400 ms.\n", []string{"380–400 ms"}},
		{"a noted figure", "<!-- figures 400 ms, 800 ms: the source's Failure 02, and a round trip of it -->\nThe link took 400 ms, a round trip 800 ms.\n", nil},
		{"a note in another section", "<!-- figures 400 ms: the source -->\n## Next\nThe link took 400 ms.\n", []string{"400 ms"}},
		{"a note that does not say whence", "<!-- figures 400 ms: -->\nThe link took 400 ms.\n", []string{"figures note"}},
		{"not figures", "rv=6, web-2, ex04, 02:14, five servers, seed 3, `make ex01 RUNS=1000`.\n", nil},
	}
	for _, c := range cases {
		got := unsourcedFigures("# A page\n\n" + capture + "\n" + c.prose)
		if len(got) != len(c.bad) {
			t.Errorf("%s: the check found %d problems, want %d: %v", c.name, len(got), len(c.bad), got)
			continue
		}
		for i, p := range got {
			if !strings.Contains(p.why, c.bad[i]) {
				t.Errorf("%s: problem %d does not name %q: %s", c.name, i, c.bad[i], p.why)
			}
		}
	}
}
