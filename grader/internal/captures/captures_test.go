package captures

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/suite"
)

const page = "# ex05\n\nText.\n\n" +
	"<!-- capture ex05 stub story seed=3 -->\n```text\nold story\n```\n<!-- /capture -->\n\nMore.\n\n" +
	"<!-- capture ex05 solution figure=pods check=story -->\n<!-- /capture -->\n"

// A page's markers say which run to quote and what of it; the text between
// them is replaced, everything else is kept byte for byte.
func TestFillReplacesOnlyWhatIsBetweenTheMarkers(t *testing.T) {
	blocks, err := Parse(page)
	require.NoError(t, err)
	require.Len(t, blocks, 2)
	assert.Equal(t, Spec{Chapter: "ex05", Source: "stub", What: "story", Seed: "3"}, blocks[0].Spec)
	assert.Equal(t, 5, blocks[0].Line)
	assert.Equal(t, Spec{Chapter: "ex05", Source: "solution", What: "figure", Figure: "pods", Check: "story"}, blocks[1].Spec)

	got, err := Fill(page, func(s Spec) (string, error) { return "quoted " + s.String() + "  \n", nil })
	require.NoError(t, err)
	want := "# ex05\n\nText.\n\n" +
		"<!-- capture ex05 stub story seed=3 -->\n```text\nquoted ex05 stub story seed=3\n```\n<!-- /capture -->\n\nMore.\n\n" +
		"<!-- capture ex05 solution figure=pods check=story -->\n```text\nquoted ex05 solution figure=pods check=story\n```\n<!-- /capture -->\n"
	assert.Equal(t, want, got)
	again, err := Fill(got, func(s Spec) (string, error) { return "quoted " + s.String() + "\n", nil })
	require.NoError(t, err)
	assert.Equal(t, got, again, "filling twice changes nothing")
}

// A marker that cannot be read is an error naming its line, never a block
// silently skipped.
func TestABadMarkerNamesItsLine(t *testing.T) {
	for text, want := range map[string]string{
		"a\n<!-- capture ex05 stub -->\n<!-- /capture -->\n":                                      "line 2",
		"<!-- capture ex5 stub story -->\n<!-- /capture -->\n":                                    "not a chapter",
		"<!-- capture ex05 mine story -->\n<!-- /capture -->\n":                                   "stub or solution",
		"<!-- capture ex05 stub diff -->\n<!-- /capture -->\n":                                    "story, timeline or figure",
		"<!-- capture ex05 stub story seed=x -->\n<!-- /capture -->\n":                            "whole number",
		"<!-- capture ex05 stub story colour=red -->\n<!-- /capture -->\n":                        "unknown word",
		"<!-- capture ex05 stub story -->\nnever closed\n":                                        "never closed",
		"<!-- capture ex05 stub story -->\n<!-- capture ex05 stub story -->\n<!-- /capture -->\n": "not closed before",
	} {
		_, err := Parse(text)
		require.Error(t, err, text)
		assert.Contains(t, err.Error(), want, text)
	}
}

// A story is the failure's text without its timeline or its picture's path
// (a file on the machine that ran it, which a reader of the book does not
// have); a timeline is the timeline alone; a figure is found by name, in
// the named check if one is given.
func TestQuoteTakesWhatTheMarkerAsksFor(t *testing.T) {
	f := &suite.Failure{Name: "overshoot", Story: "8 pods where 5 were desired", Seed: 1, Replay: "make ex05 SEED=1",
		Timeline: "the timeline\n", HTML: "/home/x/onehistory/.onehistory/ex05-story-seed-1.html"}
	ch := result.Chapter{Status: result.Fail, Failure: f, Checks: []result.Check{
		{Name: "story", Failure: f, Figures: []suite.FigureLine{{Name: "pods", Text: "story's pods"}}},
		{Name: "randomized", Figures: []suite.FigureLine{{Name: "pods", Text: "randomized pods"}}},
	}}
	story, err := Quote(Spec{What: "story"}, ch, "/home/x/onehistory")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(story, "overshoot at 0ms: 8 pods where 5 were desired\n"))
	assert.NotContains(t, story, "the timeline")
	assert.NotContains(t, story, "ex05-story-seed-1.html")

	tl, err := Quote(Spec{What: "timeline"}, ch, "")
	require.NoError(t, err)
	assert.Equal(t, "the timeline\n", tl)

	fig, err := Quote(Spec{What: "figure", Figure: "pods", Check: "randomized"}, ch, "")
	require.NoError(t, err)
	assert.Equal(t, "randomized pods", fig)
	fig, err = Quote(Spec{What: "figure", Figure: "pods"}, ch, "")
	require.NoError(t, err)
	assert.Equal(t, "story's pods", fig)

	_, err = Quote(Spec{What: "story", Check: "randomized"}, ch, "")
	assert.ErrorContains(t, err, "no failure")
	_, err = Quote(Spec{What: "figure", Figure: "nodes"}, ch, "")
	assert.ErrorContains(t, err, "no check logged")
}

// Captured runs see one fixed width and none of the caller's replay or
// timeline settings.
func TestEnvIsTheSameEverywhere(t *testing.T) {
	env := Env([]string{"HOME=/h", "SEED=4", "RUNS=9", "COLUMNS=80", "ONEHISTORY_TIMELINE=wide", "WIDE=1"})
	assert.Equal(t, []string{"HOME=/h", "COLUMNS=160"}, env)
}
