package main

import (
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"onehistory/grader/internal/engine"
	"onehistory/grader/internal/result"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/suite"
)

// The picture of a failure is for a person, in a browser: every chapter's
// stub failure is drawn, opened in headless Chromium as a learner's browser
// would open it, and what the browser drew is checked (pictureProblems):
// the page's script ran without an error, the failure's mark, its story,
// its clause and its faults are in the first screen, and the page names
// every instant the terminal's timeline names, and no label (a lane's name,
// the failure's, a fault's) cut short or drawn over other text. Without Chromium the test
// says so and skips; CI installs it (.ci/run).
func TestEveryStubFailurePictureIsDrawnInABrowser(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no chromium on PATH: the pictures of the stubs' failures are not checked in a browser (.ci/run installs it: apt-get install chromium)")
	}
	wb, goCmd := realWorkbook(t)
	rep := engine.Grade(context.Background(), engine.Options{Root: wb.Root, Go: goCmd, Source: result.Stubs}, course.All())

	var wg sync.WaitGroup
	slots := make(chan struct{}, 2) // one browser a core, on a machine of two
	for _, ch := range rep.Chapters {
		f := ch.Failure
		if f == nil || f.HTML == "" {
			t.Errorf("%s: the stub's failure names no picture (status %s)", ch.ID, ch.Status)
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			dom, err := drawInBrowser(browser, filepath.Join(wb.Root, filepath.FromSlash(f.HTML)))
			if err != nil {
				t.Errorf("%s: %s: %v", ch.ID, f.HTML, err)
				return
			}
			for _, p := range pictureProblems(dom, *f) {
				t.Errorf("%s: %s: %s", ch.ID, f.HTML, p)
			}
		}()
	}
	wg.Wait()
}

// drawInBrowser opens the page at path in headless Chromium, in a first
// screen of 1280×900, and returns the DOM once the page's script has run.
func drawInBrowser(browser, path string) (string, error) {
	profile, err := os.MkdirTemp("", "onehistory-chromium-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+profile,
		"--window-size=1280,900", "--virtual-time-budget=2000", "--dump-dom", "file://"+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("chromium: %v\n%s", err, lastLines(stderr.String(), 10))
	}
	return string(out), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

var (
	bodyTag  = regexp.MustCompile(`<body[^>]*>`)
	dataAttr = regexp.MustCompile(`data-([a-z-]+)="([^"]*)"`)
	instant  = regexp.MustCompile(`^\s*(\d+\.\d)\s*│`)
	// textEscaper escapes text as a browser serializes a text node.
	textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\u00a0", "&nbsp;")
)

// pictureProblems is what is wrong with a picture of failure f, as a
// browser drew it (dom, dumped once the page's script ran): nothing, for a
// picture that shows the failure.
func pictureProblems(dom string, f suite.Failure) []string {
	var problems []string
	body := map[string]string{}
	for _, m := range dataAttr.FindAllStringSubmatch(bodyTag.FindString(dom), -1) {
		body[m[1]] = html.UnescapeString(m[2])
	}
	if body["ready"] != "1" {
		return []string{"the page's script did not finish: nothing it records can be read"}
	}
	if body["errors"] != "0" {
		problems = append(problems, "the page's script failed: "+body["errors"]+" error(s)")
	}
	view := numbers(body["viewport"])
	if len(view) != 2 {
		return append(problems, "the page recorded no viewport")
	}
	onScreen := func(name string) {
		b := numbers(body[name+"-box"])
		switch {
		case len(b) != 4:
			problems = append(problems, "the page drew no "+name)
		case b[1] < 0 || b[1] >= view[1] || b[0] >= view[0] || b[2] <= 0:
			problems = append(problems, fmt.Sprintf("the %s is not in the first screen (%gx%g): drawn at %s", name, view[0], view[1], body[name+"-box"]))
		}
	}
	for _, name := range []string{"failure", "story", "clause", "faults"} {
		onScreen(name)
	}
	if cut, ok := body["cut"]; !ok {
		problems = append(problems, "the page recorded no labels cut")
	} else if cut != "" {
		problems = append(problems, "labels drawn cut short: "+cut)
	}
	if over, ok := body["overlaps"]; !ok {
		problems = append(problems, "the page recorded no labels overlapping")
	} else if over != "" {
		problems = append(problems, "labels drawn over other text: "+over)
	}
	for _, want := range []string{`id="legend"`, `class="lane-name`, `id="drawing"`} {
		if !strings.Contains(dom, want) {
			problems = append(problems, "the page has no "+want)
		}
	}
	if story := textEscaper.Replace(suite.UpperFirst(f.Story)); !strings.Contains(dom, story[:min(len(story), 60)]) {
		problems = append(problems, "the page does not tell the failure's own story")
	}
	if f.Clause != 0 && !strings.Contains(dom, textEscaper.Replace(f.Clause.String())) {
		problems = append(problems, "the page does not name the clause: "+f.Clause.String())
	}
	var missing []string
	for _, line := range strings.Split(f.Timeline, "\n") {
		if m := instant.FindStringSubmatch(line); m != nil && !strings.Contains(dom, `data-ms="`+m[1]+`"`) {
			missing = append(missing, m[1])
		}
	}
	if len(missing) > 0 {
		problems = append(problems, "the page does not name these instants of the terminal's timeline: "+strings.Join(missing, ", "))
	}
	return problems
}

// numbers reads "1,2,3" as numbers; nil if any is not one.
func numbers(s string) []float64 {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// The checker of pictures catches a picture that does not show its
// failure: a script error, a failure drawn below the first screen, a story
// or an instant the terminal names that the page lacks, a label cut short
// or drawn over an event's text.
func TestPictureProblemsCatchesAPictureThatHidesItsFailure(t *testing.T) {
	f := suite.Failure{Name: "stale-read", Story: "server-2 answered from its own copy", Clause: course.OneHistory,
		Timeline: "virtual ms │ a │\n───────────┼\n       3.6 │ x │\n    2020.8 │ y │\n"}
	good := `<body data-errors="0" data-viewport="1280,900" data-failure-box="74,400,600,420" data-story-box="14,50,1200,90" ` +
		`data-clause-box="14,100,1200,120" data-faults-box="14,130,1200,150" data-cut="" data-overlaps="" data-ready="1"><div id="legend"></div>` +
		`<span class="lane-name">a</span><svg id="drawing"><text data-ms="3.6"/><text data-ms="2020.8"/></svg>` +
		`<p>Server-2 answered from its own copy</p><p>clause 1 (One history, not one machine)</p></body>`
	assert.Empty(t, pictureProblems(good, f))

	bad := strings.NewReplacer(`data-errors="0"`, `data-errors="1"`, `data-failure-box="74,400,600,420"`, `data-failure-box="74,2400,600,2420"`,
		`data-ms="2020.8"`, `data-ms="2020.9"`, "Server-2 answered", "Server-1 answered",
		`data-cut=""`, `data-cut="failure-text: stale-read at 2020.8ms · breaks clause 1"`,
		`data-overlaps=""`, `data-overlaps="fault-label: slow over ev: GET deployments/web"`).Replace(good)
	problems := strings.Join(pictureProblems(bad, f), "\n")
	assert.Contains(t, problems, "script failed")
	assert.Contains(t, problems, "the failure is not in the first screen")
	assert.Contains(t, problems, "2020.8")
	assert.Contains(t, problems, "story")
	assert.Contains(t, problems, "labels drawn cut short: failure-text: stale-read")
	assert.Contains(t, problems, "labels drawn over other text: fault-label: slow over ev: GET")

	assert.Equal(t, []string{"the page's script did not finish: nothing it records can be read"},
		pictureProblems(strings.Replace(good, ` data-ready="1"`, "", 1), f))
}
