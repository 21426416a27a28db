package gradebook

import (
	"bytes"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/render"
	"onehistory/grader/internal/result"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/suite"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Three chapters of a made-up course: ex01 exercises clause 1, ex02 clause
// 2, ex04 clauses 1 and 3.
type chapterSpec struct {
	id, title string
	clauses   []course.Clause
	max       int
}

var specs = []chapterSpec{
	{"ex01", "One memory", []course.Clause{course.OneHistory}, 10},
	{"ex02", "The 2:14 a.m. page", []course.Clause{course.DurableAgreement}, 10},
	{"ex04", "The write that arrived late", []course.Clause{course.OneHistory, course.AgreementFirst}, 12},
}

// outcome is what one student's chapter came to: "pass", "fail N" (N
// points), "untouched", "compile".
func report(student string, outcomes ...string) *result.Report {
	rep := &result.Report{
		Source: result.Exercises,
		Graded: result.Provenance{
			Repository: "https://github.com/course/onehistory-" + student, Commit: fmt.Sprintf("%040x", len(student)),
			CourseCommit: "9fd3337a1b2c3d4e5f60718293a4b5c6d7e8f901", Time: time.Date(2026, 3, 2, 14, 0, len(student), 0, time.UTC),
		},
	}
	for i, o := range outcomes {
		s := specs[i]
		ch := result.Chapter{ID: s.id, Title: s.title, Clauses: s.clauses, Max: s.max, Dir: "exercises/" + s.id}
		var points int
		switch {
		case o == "pass":
			ch.Status, ch.Points = result.Pass, s.max
		case o == "untouched":
			ch.Status = result.NotStarted
			ch.Failure = &suite.Failure{Check: "story", Name: "stale-read", Clause: s.clauses[0], Story: "the stub answered from its own copy"}
		case o == "compile":
			ch.Status = result.Error
			ch.Problem = &result.Problem{Kind: result.Compile, Summary: "exercises/" + s.id + "/server.go:12:3: undefined: quorum\nand more"}
		case scan(o, &points):
			ch.Status, ch.Points = result.Fail, points
			ch.Failure = &suite.Failure{Check: "randomized", Name: "lost-write", Clause: s.clauses[len(s.clauses)-1],
				Story: "server-1 acknowledged web rv 7 | and lost it in a crash"}
		default:
			panic("no outcome " + o)
		}
		rep.Chapters = append(rep.Chapters, ch)
	}
	rep.Tally()
	return rep
}

func scan(o string, points *int) bool {
	_, err := fmt.Sscanf(o, "fail %d", points)
	return err == nil
}

// A class of ten, and one more whose grading failed: each student's report is a grade.json in a folder named
// for the student, as the roster workflow's artifacts download (grade-NAME),
// or NAME.json; one graded only two chapters; one report is not a report.
// The gradebook reads them all into one table, per chapter and per clause
// in points, with totals and each failing chapter's first failure.
func TestTenReportsMakeOneTable(t *testing.T) {
	dir := t.TempDir()
	class := map[string]*result.Report{
		"grade-ada/grade.json":    report("ada", "pass", "pass", "pass"),
		"grade-bo/grade.json":     report("bo", "pass", "fail 3", "untouched"),
		"grade-cy/grade.json":     report("cy", "untouched", "untouched", "untouched"),
		"grade-dee/grade.json":    report("dee", "compile", "pass", "fail 5"),
		"grade-eli/grade.json":    report("eli", "pass", "pass", "fail 0"),
		"grade-fay/grade.json":    report("fay", "fail 4", "pass", "pass"),
		"gus.json":                report("gus", "pass", "pass"),
		"grade-hal/grade.json":    report("hal", "pass", "compile", "pass"),
		"late/ivy/grade.json":     report("ivy", "fail 6", "fail 6", "fail 6"),
		"grade-jo/grade.json":     nil, // the download failed half way
		"grade-jo/notes.txt":      nil,
		"grade-kim/grade.json":    nil, // the roster workflow's note: no report
		".cache/stray/grade.json": nil,
	}
	for path, rep := range class {
		full := filepath.Join(dir, path)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		var b bytes.Buffer
		switch {
		case rep != nil:
			require.NoError(t, render.JSON(&b, rep))
		case strings.Contains(path, "kim"):
			b.WriteString("no report: github.com/course/onehistory-kim could not be checked out\n(see the run's log)\n")
		default:
			b.WriteString(`{"schema": "onehistory.grader/v1", "chapt`)
		}
		require.NoError(t, os.WriteFile(full, b.Bytes(), 0o644))
	}

	files, err := Find(dir)
	require.NoError(t, err)
	require.Len(t, files, 11, "every grade.json and top-level .json, nothing in hidden folders: %v", files)
	var book Book
	for _, f := range files {
		rep, err := Read(f)
		if err != nil {
			book.AddProblem(Name(f), f, err)
			continue
		}
		book.Add(Name(f), f, rep)
	}

	var names []string
	for _, s := range book.Students {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"ada", "bo", "cy", "dee", "eli", "fay", "gus", "hal", "ivy", "jo", "kim"}, names)
	assert.Equal(t, []Chapter{{ID: "ex01", Title: "One memory", Max: 10}, {ID: "ex02", Title: "The 2:14 a.m. page", Max: 10}, {ID: "ex04", Title: "The write that arrived late", Max: 12}}, book.Chapters)

	bo := book.Students[1]
	assert.Equal(t, 13, bo.Points)
	assert.Equal(t, 32, bo.Max)
	assert.Equal(t, Cell{Status: "fail", Points: 3, Max: 10, First: "randomized: lost-write (clause 2): server-1 acknowledged web rv 7 | and lost it in a crash"}, bo.Cells["ex02"])
	// Clause 1 is exercised by ex01 (10 of 10) and ex04 (0 of 12), clause 2
	// by ex02 alone, clause 3 by ex04 alone: points, not chapters.
	assert.Equal(t, map[int]Score{1: {10, 22}, 2: {3, 10}, 3: {0, 12}}, bo.Clauses)
	dee := book.Students[3]
	assert.Equal(t, "compile: exercises/ex01/server.go:12:3: undefined: quorum", dee.Cells["ex01"].First, "one line of a problem")
	assert.Equal(t, map[int]Score{1: {5, 22}, 2: {10, 10}, 3: {5, 12}}, dee.Clauses)
	gus := book.Students[6]
	assert.Equal(t, Score{20, 20}, Score{gus.Points, gus.Max})
	assert.Equal(t, "", gus.Cells["ex04"].Text(), "a chapter gus's report did not grade has no cell")
	assert.Contains(t, book.Students[9].Problem, "not a grader report")
	assert.Equal(t, "no report: github.com/course/onehistory-kim could not be checked out", book.Students[10].Problem)

	var md bytes.Buffer
	require.NoError(t, book.Markdown(&md))
	golden(t, "class.md.golden", md.Bytes())

	var c bytes.Buffer
	require.NoError(t, book.CSV(&c))
	rows, err := csv.NewReader(&c).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 12)
	assert.Equal(t, []string{"student", "repository", "commit", "course_commit", "time", "points", "max",
		"ex01", "ex02", "ex04", "clause 1", "clause 1 max", "clause 2", "clause 2 max", "clause 3", "clause 3 max",
		"ex01 status", "ex01 first failure", "ex02 status", "ex02 first failure", "ex04 status", "ex04 first failure", "problem"}, rows[0])
	assert.Equal(t, []string{"bo", "https://github.com/course/onehistory-bo", fmt.Sprintf("%040x", 2), "9fd3337a1b2c3d4e5f60718293a4b5c6d7e8f901", "2026-03-02T14:00:02Z",
		"13", "32", "10", "3", "0", "10", "22", "3", "10", "0", "12",
		"pass", "", "fail", "randomized: lost-write (clause 2): server-1 acknowledged web rv 7 | and lost it in a crash",
		"not-started", "story: stale-read (clause 1): the stub answered from its own copy", ""}, rows[2])
	assert.Equal(t, []string{"20", "20", "10", "10", ""}, []string{rows[7][5], rows[7][6], rows[7][7], rows[7][8], rows[7][9]}, "gus: no ex04")
	assert.Equal(t, "", rows[10][5], "jo's unread report has no points, not 0")

	var h bytes.Buffer
	require.NoError(t, book.HTML(&h))
	page := h.String()
	assert.Contains(t, page, `<td class="fail" title="randomized: lost-write (clause 2): server-1 acknowledged web rv 7 | and lost it in a crash">3/10 fail</td>`)
	assert.Contains(t, page, `<td class="unread" colspan="7">unread: `)
	assert.NotContains(t, page, "<script")
	assert.NotContains(t, page, "http://")
	assert.NotContains(t, page, "src=")
}

// A Markdown cell cannot be broken by the text in it: a | is escaped.
func TestAStoryCannotBreakTheMarkdownTable(t *testing.T) {
	var book Book
	rep := report("bo", "fail 3")
	var b bytes.Buffer
	require.NoError(t, render.JSON(&b, rep))
	path := filepath.Join(t.TempDir(), "bo.json")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	read, err := Read(path)
	require.NoError(t, err)
	book.Add("bo", path, read)
	b.Reset()
	require.NoError(t, book.Markdown(&b))
	assert.Contains(t, b.String(), `| bo | ex01 | fail | randomized: lost-write (clause 1): server-1 acknowledged web rv 7 \| and lost it in a crash |`)
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden file: go test ./grader/internal/gradebook -update, then read it")
	assert.Equal(t, string(want), string(got))
}

// A bonus chapter gets its column like any other, but its points are the
// student's bonus, apart from the core points and the clauses: a class
// graded on the core reads the same points column as before.
func TestABonusChapterIsABonusColumnApartFromTheCore(t *testing.T) {
	rep := func(bonus *render.JSONBonus, chs ...render.JSONChapter) *render.JSONReport {
		r := &render.JSONReport{Schema: render.Schema, Score: render.JSONScore{Points: chs[0].Points, Max: chs[0].Max}, Bonus: bonus, Chapters: chs}
		r.Clauses = []render.JSONClause{{Clause: 1, Title: "One history, not one machine"}}
		return r
	}
	core := render.JSONChapter{ID: "ex01", Title: "One memory", Status: "pass", Points: 10, Max: 10, Clauses: []int{1}}
	bonus := render.JSONChapter{ID: "ex12", Title: "The edit that erased a scale", Status: "fail", Bonus: true, Points: 3, Max: 13, Clauses: []int{1, 3}}
	var book Book
	book.Add("ada", "ada.json", rep(&render.JSONBonus{Points: 3, Max: 13, Chapters: 1}, core, bonus))
	book.Add("bo", "bo.json", rep(nil, core))

	require.True(t, book.HasBonus())
	assert.Equal(t, []Chapter{{ID: "ex01", Title: "One memory", Max: 10}, {ID: "ex12", Title: "The edit that erased a scale", Max: 13, Bonus: true}}, book.Chapters)
	ada := book.Students[0]
	assert.Equal(t, 10, ada.Points)
	assert.Equal(t, &Score{3, 13}, ada.Bonus)
	assert.Equal(t, map[int]Score{1: {10, 10}}, ada.Clauses, "the clauses count the core chapters only")

	var md bytes.Buffer
	require.NoError(t, book.Markdown(&md))
	assert.Contains(t, md.String(), "| student | points | bonus | ex01 (10) | ex12 (13) | clause 1 |")
	assert.Contains(t, md.String(), "| ada | 10/10 | 3/13 | 10/10 | 3/13 fail | 10/10 |")
	assert.Contains(t, md.String(), "| bo | 10/10 | — | 10/10 | — | 10/10 |")
	var csv bytes.Buffer
	require.NoError(t, book.CSV(&csv))
	assert.Contains(t, csv.String(), "time,points,max,bonus,bonus max,ex01,ex12,")
	var html bytes.Buffer
	require.NoError(t, book.HTML(&html))
	assert.Contains(t, html.String(), ">bonus</th>")

	var plain Book
	plain.Add("bo", "bo.json", rep(nil, core))
	md.Reset()
	require.NoError(t, plain.Markdown(&md))
	assert.NotContains(t, md.String(), "bonus", "a class without bonus chapters has no bonus column")
}
