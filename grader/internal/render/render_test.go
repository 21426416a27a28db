package render

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/suite"
)

// Each renderer has a golden file in testdata/, reviewed by a person before
// it is committed. After an intended change, rewrite them with
//
//	go test ./grader/internal/render -update
var update = flag.Bool("update", false, "rewrite the golden files")

// class is a report with one chapter in each state a learner can be in.
func class() *result.Report {
	failure := suite.Failure{
		Chapter: "ex02", Check: "crash-points", Name: "lost-write", Clause: course.DurableAgreement,
		Story: "server-1 acknowledged deployments/web rv 7, crashed before syncing, and came back without it",
		At:    412500 * time.Microsecond, Seed: 17, Replay: "make ex02 SEED=17",
		Timeline: "   ms  client      server-1\n  400  put web ──▶ append rv 7\n  405  ◀── ok\n  412              ✗ crash\n",
		HTML:     ".onehistory/ex02-seed17.html",
	}
	rep := &result.Report{
		Source:   result.Exercises,
		Duration: 2300 * time.Millisecond,
		Graded: result.Provenance{
			Repository: "https://github.com/course/onehistory-ada", Commit: "4f2a9c1e0b7d5a3f6e8c9b1d2a4f6e8c0b2d4f6a",
			CourseCommit: "9fd3337a1b2c3d4e5f60718293a4b5c6d7e8f901", GraderVersion: "v1.2.0",
			Time: time.Date(2026, 3, 2, 14, 5, 9, 0, time.UTC),
		},
		Chapters: []result.Chapter{
			{
				ID: "ex01", Title: "One memory", Dir: "exercises/ex01-one-memory", Clauses: []course.Clause{course.OneHistory},
				Status: result.Pass, Points: 10, Max: 10, Duration: 800 * time.Millisecond, Command: "make ex01",
				Checks: []result.Check{
					{Name: "story", Title: "the informer reconnects", Status: result.Pass, Points: 4, Max: 4, Duration: 12 * time.Millisecond},
					{Name: "randomized", Title: "hundreds of worlds", Status: result.Pass, Points: 6, Max: 6, Duration: 230 * time.Millisecond},
				},
			},
			{
				ID: "ex02", Title: "The 2:14 a.m. page", Dir: "exercises/ex02-the-page", Clauses: []course.Clause{course.DurableAgreement},
				Status: result.Fail, Points: 3, Max: 10, Duration: 900 * time.Millisecond, Command: "make ex02", Failure: &failure,
				OwnTests: []string{"exercises/ex02-the-page/crash_test.go", "exercises/ex02-the-page/store_test.go"},
				Checks: []result.Check{
					{Name: "story", Title: "a restart keeps the history", Status: result.Pass, Points: 3, Max: 3},
					{Name: "crash-points", Title: "a crash at every point", Status: result.Fail, Max: 7, Failure: &failure, Failures: []suite.Failure{failure}},
				},
			},
			{
				ID: "ex03", Title: "Silence is not agreement", Dir: "exercises/ex03-silence", Clauses: []course.Clause{course.OneHistory},
				Status: result.NotStarted, Max: 10, Duration: 700 * time.Millisecond, Command: "make ex03",
				Checks: []result.Check{{Name: "drill", Title: "the drill catches the bad cluster", Status: result.Fail, Max: 10}},
			},
			{
				ID: "ex04", Title: "The write that arrived late", Dir: "exercises/ex04-late", Clauses: []course.Clause{course.OneHistory},
				Status: result.Error, Max: 10, Duration: 300 * time.Millisecond, Command: "make ex04",
				Problem: &result.Problem{
					Kind: result.Compile, File: "exercises/ex04-late/server.go", Line: 12,
					Summary: "exercises/ex04-late/server.go:12:3: undefined: replicate",
					Output:  "# onehistory/exercises/ex04-late\nexercises/ex04-late/server.go:12:3: undefined: replicate",
				},
				Checks: []result.Check{{Name: "linearizable", Title: "no stale read", Status: result.NotRun, Max: 10}},
			},
			{
				ID: "ex05", Title: "The read that contradicted the write", Dir: "exercises/ex05-contradiction",
				Clauses: []course.Clause{course.OneHistory, course.AgreementFirst},
				Status:  result.Timeout, Max: 10, Duration: 65 * time.Second, Command: "make ex05",
				Problem: &result.Problem{Kind: result.Hang, Check: "randomized", Summary: "timed out after 60 s in check randomized"},
				Checks: []result.Check{
					{Name: "story", Title: "eight pods where five were desired", Status: result.NotRun, Max: 4},
					{Name: "randomized", Title: "never more than desired", Status: result.Timeout, Max: 6},
				},
			},
		},
	}
	rep.Tally()
	return rep
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(file, got, 0o644))
		return
	}
	want, err := os.ReadFile(file)
	require.NoError(t, err, "no golden file yet: go test ./grader/internal/render -update, then review it")
	assert.Equal(t, string(want), string(got), "the output changed; if that is intended, rerun with -update and review the diff")
}

func TestSummary(t *testing.T) {
	var b bytes.Buffer
	Summary(&b, class(), NewPalette(false))
	golden(t, "summary.golden", b.Bytes())
}

func TestVerboseFailure(t *testing.T) {
	var b bytes.Buffer
	Verbose(&b, class().Chapters[1], NewPalette(false))
	golden(t, "verbose-fail.golden", b.Bytes())
}

func TestVerboseCompileError(t *testing.T) {
	var b bytes.Buffer
	Verbose(&b, class().Chapters[3], NewPalette(false))
	golden(t, "verbose-compile.golden", b.Bytes())
}

func TestJSON(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, JSON(&b, class()))
	golden(t, "report.json.golden", b.Bytes())
}

func TestJUnit(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, JUnit(&b, class()))
	golden(t, "junit.xml.golden", b.Bytes())
}

// The tally behind every renderer: points add up, and a clause counts the
// chapters that exercise it and their points.
func TestTheClassTallies(t *testing.T) {
	rep := class()
	assert.Equal(t, 13, rep.Points)
	assert.Equal(t, 50, rep.Max)
	assert.Equal(t, 1, rep.Passing)
	assert.Equal(t, []result.ClauseTotal{
		{Clause: course.OneHistory, Passing: 1, Chapters: 4, Points: 10, Max: 40},
		{Clause: course.DurableAgreement, Passing: 0, Chapters: 1, Points: 3, Max: 10},
		{Clause: course.AgreementFirst, Passing: 0, Chapters: 1, Points: 0, Max: 10},
	}, rep.Clauses)
}

// Color: only when wanted, and NO_COLOR always wins.
func TestColorWanted(t *testing.T) {
	assert.True(t, ColorWanted("auto", true, "", "xterm"))
	assert.False(t, ColorWanted("auto", false, "", "xterm"), "piped output stays plain")
	assert.False(t, ColorWanted("auto", true, "", "dumb"))
	assert.False(t, ColorWanted("auto", true, "1", "xterm"))
	assert.True(t, ColorWanted("always", false, "", ""))
	assert.False(t, ColorWanted("always", true, "1", "xterm"), "NO_COLOR wins over --color=always")
	assert.False(t, ColorWanted("never", true, "", "xterm"))

	var b bytes.Buffer
	Summary(&b, class(), NewPalette(true))
	assert.Contains(t, b.String(), "\x1b[")
}

// A report of exercises grader collect copied in from a student's checkout
// says where from, in the summary's first line and in the JSON, and lists
// every refusal in the JSON beside its chapter's problem.
func TestACollectedReportSaysWhereFromAndWhatWasRefused(t *testing.T) {
	rep := class()
	refusal := result.Refusal{Chapter: "ex04", Path: "exercises/ex04-late/server.go", Reason: "is a symbolic link: collect copies regular files only"}
	rep.Collected = &result.Collection{From: "/students/ada", Refused: []result.Refusal{refusal}}
	rep.Chapters[3].Problem = &result.Problem{Kind: result.Forbidden, File: refusal.Path, Summary: refusal.Path + " " + refusal.Reason}

	var b bytes.Buffer
	Summary(&b, rep, NewPalette(false))
	assert.Contains(t, b.String(), "One History · grading exercises/ collected from /students/ada\n")
	assert.Contains(t, b.String(), "        exercises/ex04-late/server.go is a symbolic link: collect copies regular files only\n")

	b.Reset()
	require.NoError(t, JSON(&b, rep))
	var got JSONReport
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	assert.Equal(t, &JSONCollected{From: "/students/ada", Refused: []JSONRefusal{{Chapter: "ex04", Path: refusal.Path, Reason: refusal.Reason}}}, got.Collected)
	assert.Equal(t, "forbidden", got.Chapters[3].Problem.Kind)

	b.Reset()
	require.NoError(t, JSON(&b, class()))
	assert.NotContains(t, b.String(), `"collected"`, "a report of a checkout's own exercises has no collected field")
}

// A refusal by the world's rules explains itself in lines that fit a
// terminal of 80 columns, report indent included; a compiler's output is
// left as it came.
func TestARefusalFitsEightyColumns(t *testing.T) {
	why := "rule package-state (no package-level state): every simulated node runs in one Go process, so a package-level variable is memory that every server shares and that survives their crashes; keep state in your server's struct, which only its node can reach and a crash takes with it."
	ch := result.Chapter{ID: "ex04", Title: "The write that arrived late", Dir: "exercises/ex04-x", Status: result.Error, Max: 10,
		Problem: &result.Problem{Kind: result.Forbidden, Rule: "package-state", Summary: "exercises/ex04-x/server.go:34: changes the package-level variable shared in Serve [package-state]",
			Output: "exercises/ex04-x/server.go:34: changes the package-level variable shared in Serve [package-state]\n\n" + why}}
	var b bytes.Buffer
	Verbose(&b, ch, NewPalette(false))
	_, after, _ := bytes.Cut(b.Bytes(), []byte("\n\n  "))
	for _, line := range bytes.Split(after, []byte("\n")) {
		assert.LessOrEqual(t, len([]rune(string(line))), 80, "%q", line)
	}
	assert.Contains(t, b.String(), "  rule package-state (no package-level state): every simulated node runs in\n    one Go process,")
}

// A failing chapter told at a terminal 80 columns wide: the check table's
// titles, the story and its contract line break to fit it, and the line
// under the timeline says what its arrows mean, for the arrows it shows.
func TestAChapterFitsEightyColumnsAndItsArrowsAreExplained(t *testing.T) {
	ch := class().Chapters[1]
	f := *ch.Failure
	f.Timeline = "virtual ms │ client      │ server-1    │\n       0.0 │ → server-1  │             │\n       5.0 │             │ ← client    │\n       5.0 │             │ ⇢ client ok │\n"
	ch.Failure, ch.Checks[1].Failure = &f, &f
	ch.Checks[1].Title = "a crash at every point of every write, the server restarted after each, and the history read back"
	var b bytes.Buffer
	Verbose(&b, ch, NewPalette(false).Fitting(80))
	for _, line := range bytes.Split(b.Bytes(), []byte("\n")) {
		assert.LessOrEqual(t, len([]rune(string(line))), 80, "%q", line)
	}
	assert.Contains(t, b.String(), "│ ⇢ client ok │\n  → request sent · ← request received · ⇢ reply sent\n")
	assert.NotContains(t, b.String(), "⇠ reply received", "the legend names only the arrows the timeline shows")
	assert.Empty(t, Legend("virtual ms │ a │\n       0.0 │ hello │\n"))
}

// A check that the stub as shipped passes by itself earns nothing until
// the learner's code passes it: it shows as such, not as "pass 0/1".
func TestAStubsOwnPassShowsAsEarningNothingYet(t *testing.T) {
	ch := class().Chapters[2]
	ch.Checks = append(ch.Checks, result.Check{Name: "available", Title: "every request is answered", Status: result.Pass, Max: 1})
	var b bytes.Buffer
	Verbose(&b, ch, NewPalette(false))
	assert.Contains(t, b.String(), "  pass*   available  every request is answered          –/1\n")
	assert.Contains(t, b.String(), "* the stub as shipped passes it by itself: it scores once your code does")
	assert.NotContains(t, b.String(), " 0/1\n")
}

// In JUnit a failed check's text is what a reader needs (story, clause,
// seed, replay), its time is the check's own, its name carries its points,
// and its timeline goes to system-out, cut short with the command that
// shows it whole.
func TestJUnitTellsAFailureWithoutPagesOfTimeline(t *testing.T) {
	rep := class()
	f := *rep.Chapters[1].Failure
	f.Timeline = strings.Repeat("       0.0 │ → server-1  │             │\n", 500)
	rep.Chapters[1].Checks[1].Failure = &f
	rep.Chapters[1].Checks[1].Duration = 1234 * time.Millisecond
	var b bytes.Buffer
	require.NoError(t, JUnit(&b, rep))
	out := b.String()
	assert.Contains(t, out, `<testcase name="ex02 crash-points (0/7 points)" classname="ex02" time="1.234">`)
	assert.Contains(t, out, "seed 17 · replay: make ex02 SEED=17")
	assert.Contains(t, out, "… 234 lines before\n")
	assert.Contains(t, out, "… 234 lines after; make ex02 SEED=17 shows the whole timeline")
	assert.Less(t, strings.Count(out, "│ → server-1"), 50)
	failure := out[strings.Index(out, "<failure"):strings.Index(out, "</failure>")]
	assert.NotContains(t, failure, "│", "the failure's text holds no timeline")
}

// Whose work a report graded, and with what: each value the grader could
// not learn is an empty string, never left out and never guessed.
func TestAReportSaysWhoseWorkItGradedAndWithWhat(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, JSON(&b, class()))
	var got JSONReport
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	assert.Equal(t, JSONGraded{
		Repository: "https://github.com/course/onehistory-ada", Commit: "4f2a9c1e0b7d5a3f6e8c9b1d2a4f6e8c0b2d4f6a",
		CourseCommit: "9fd3337a1b2c3d4e5f60718293a4b5c6d7e8f901", GraderVersion: "v1.2.0", Time: "2026-03-02T14:05:09Z",
	}, got.Graded)

	rep := class()
	rep.Graded = result.Provenance{}
	b.Reset()
	require.NoError(t, JSON(&b, rep))
	assert.Contains(t, b.String(), `"graded": {
    "repository": "",
    "commit": "",
    "course_commit": "",
    "grader_version": "",
    "time": ""
  },`)
}

// A failure's details at a narrow terminal: prose is broken at spaces to
// fit, but a table's rows keep their columns (broken, "0ms ADDED
// deployments/web (before) 0 5" reads as one sentence of numbers).
func TestFittingBreaksProseAndKeepsTablesWhole(t *testing.T) {
	details := "the pods of web in the one history, change by change (times: accepted by etcd):\n" +
		"  accepted    change                              by             via       pods  desired\n" +
		"  720.4ms     ADDED pods/web-dwd5k                controller-b   server-2     6        5  ← too many"
	got := strings.Split(fitLines(details, 60), "\n")
	assert.Equal(t, []string{
		"the pods of web in the one history, change by change (times:",
		"  accepted by etcd):",
		"  accepted    change                              by             via       pods  desired",
		"  720.4ms     ADDED pods/web-dwd5k                controller-b   server-2     6        5  ← too many",
	}, got)
}

// withBonus is a class whose learner passes the core chapter ex01 and has
// started a bonus chapter: the bonus is scored apart, so the core score,
// the clauses and the verdict are those of the core alone.
func withBonus() *result.Report {
	rep := &result.Report{
		Source: result.Exercises,
		Chapters: []result.Chapter{
			{
				ID: "ex01", Title: "One memory", Dir: "exercises/ex01-one-memory", Clauses: []course.Clause{course.OneHistory},
				Status: result.Pass, Points: 10, Max: 10, Command: "make ex01",
				Checks: []result.Check{{Name: "story", Title: "the informer reconnects", Status: result.Pass, Points: 10, Max: 10}},
			},
			{
				ID: "ex12", Title: "The edit that erased a scale", Dir: "exercises/ex12-the-edit-that-erased-a-scale",
				Clauses: []course.Clause{course.OneHistory, course.AgreementFirst}, Bonus: true,
				Status: result.Fail, Points: 3, Max: 13, Command: "make ex12",
				Checks: []result.Check{
					{Name: "story", Title: "the scale survives the edit", Status: result.Pass, Points: 3, Max: 3},
					{Name: "no-lost-update", Title: "no increment is lost", Status: result.Fail, Max: 10},
				},
			},
		},
	}
	rep.Tally()
	return rep
}

// A bonus chapter is scored apart: the core score, the clauses and the
// verdict are the core's alone, and every output says which chapter is a
// bonus one.
func TestABonusChapterIsScoredApartFromTheCore(t *testing.T) {
	rep := withBonus()
	assert.Equal(t, 10, rep.Points)
	assert.Equal(t, 10, rep.Max)
	assert.Equal(t, 1, rep.Passing)
	assert.Equal(t, 1, rep.Core)
	assert.Equal(t, result.BonusTotal{Points: 3, Max: 13, Passing: 0, Chapters: 1}, rep.Bonus)
	assert.Equal(t, []result.ClauseTotal{{Clause: course.OneHistory, Passing: 1, Chapters: 1, Points: 10, Max: 10}}, rep.Clauses,
		"the clauses count the core chapters only")
	assert.True(t, rep.AllPass(), "an unfinished bonus chapter does not fail a run that graded the core")

	var js bytes.Buffer
	require.NoError(t, JSON(&js, rep))
	var got JSONReport
	require.NoError(t, json.Unmarshal(js.Bytes(), &got))
	assert.Equal(t, JSONScore{Points: 10, Max: 10}, got.Score)
	assert.True(t, got.Passed)
	require.NotNil(t, got.Bonus)
	assert.Equal(t, JSONBonus{Points: 3, Max: 13, Passing: 0, Chapters: 1}, *got.Bonus)
	assert.False(t, got.Chapters[0].Bonus)
	assert.True(t, got.Chapters[1].Bonus)
	var plain bytes.Buffer
	require.NoError(t, JSON(&plain, class()))
	assert.NotContains(t, plain.String(), `"bonus": {`, "a report without bonus chapters has no bonus object")

	var text bytes.Buffer
	Summary(&text, rep, NewPalette(false))
	assert.Contains(t, text.String(), "Bonus chapters (scored apart from the core)\n  ex12")
	assert.Contains(t, text.String(), "Score 10/10 points · 1 of 1 chapters pass")
	assert.Contains(t, text.String(), "Bonus 3/13 points · 0 of 1 bonus chapters pass")

	var xml bytes.Buffer
	require.NoError(t, JUnit(&xml, rep))
	assert.Equal(t, 1, strings.Count(xml.String(), `<property name="bonus" value="true">`), "only the bonus chapter carries the property")

	// A run that graded only the bonus chapter passes only when it does.
	only := &result.Report{Chapters: rep.Chapters[1:]}
	only.Tally()
	assert.False(t, only.AllPass())
	var alone bytes.Buffer
	Summary(&alone, only, NewPalette(false))
	assert.NotContains(t, alone.String(), "Score ")
	assert.Contains(t, alone.String(), "Bonus 3/13 points · 0 of 1 bonus chapters pass")
}

// Under the last chapter there is no next one to promise: the line says
// it is the last; under any other, the next chapter awaits.
func TestPassedLineUnderTheLastChapter(t *testing.T) {
	all := course.All()
	last := all[len(all)-1].ID
	if got := passedLine(last); !strings.Contains(got, "this is the last chapter") || strings.Contains(got, "next chapter") {
		t.Errorf("under %s: %q", last, got)
	}
	if got := passedLine(all[0].ID); !strings.Contains(got, "The next chapter awaits") {
		t.Errorf("under %s: %q", all[0].ID, got)
	}
}
