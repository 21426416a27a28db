// Package gradebook puts many students' grader reports (grade.json, schema
// onehistory.grader/v1) into one table: a row per student, a column per
// chapter, the points of each, the points of each contract clause, the
// total, and the first failure of each chapter that does not pass. It
// writes the table as Markdown, CSV and one self-contained HTML page.
package gradebook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"onehistory/grader/internal/render"
)

// Book is the class's table.
type Book struct {
	Chapters []Chapter // every chapter some report graded, in course order
	Clauses  []Clause  // every clause some graded chapter exercises, in order
	Students []Student // by name
	Courses  []string  // the distinct course commits the reports name, "" included when one names none
}

// Chapter is one column of the table.
type Chapter struct {
	ID    string
	Title string
	Max   int
	Bonus bool // a bonus chapter: its points are in the student's Bonus, not Points
}

// Clause is one contract clause's column: its points are those of the
// chapters that exercise it.
type Clause struct {
	Number int
	Title  string
}

// Student is one row: a student's report, as read.
type Student struct {
	Name       string // from the report's file or folder: reports/ada/grade.json, ada.json and grade-ada/ are all "ada"
	From       string // the file read, or the checkout graded
	Repository string
	Commit     string
	Course     string // the course commit that graded the work
	Time       string
	Points     int             // over the core chapters
	Max        int             // over the core chapters
	Bonus      *Score          // over the bonus chapters, scored apart; nil when the report graded none
	Cells      map[string]Cell // by chapter ID; a chapter the report did not grade has none
	Clauses    map[int]Score   // by clause number, over the core chapters
	Problem    string          // set when the report could not be read: the row has nothing else
}

// Score is points earned out of points possible.
type Score struct{ Points, Max int }

// Cell is one student's result in one chapter.
type Cell struct {
	Status string // "pass", "fail", "error", "timeout", "not-started"
	Points int
	Max    int
	First  string // for a chapter that does not pass: its first failure or problem, one line
}

// Read reads one report. A file that is not JSON at all is a note saying
// why there is no report, and its first line is the error. Its error says what is wrong with the file, not
// which file it is: the caller knows.
func Read(path string) (*render.JSONReport, error) {
	data, err := os.ReadFile(path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, pe.Err
	}
	if err != nil {
		return nil, err
	}
	if text := strings.TrimSpace(string(data)); text != "" && !strings.HasPrefix(text, "{") {
		// A note in place of a report (the roster workflow writes one when
		// a student's repository could not be checked out or graded): its
		// first line is the problem.
		return nil, errors.New(oneLine(text))
	}
	var rep render.JSONReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("not a grader report: %v", err)
	}
	if rep.Schema != render.Schema {
		return nil, fmt.Errorf("schema %q, not %s", rep.Schema, render.Schema)
	}
	return &rep, nil
}

// Find lists the report files under dir: every grade.json in it or in a
// folder below, and every other *.json file directly in it, sorted.
func Find(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == "grade.json" || filepath.Dir(path) == filepath.Clean(dir) && strings.HasSuffix(d.Name(), ".json") {
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// Name is the student a report file stands for: the folder it lies in when
// it is called grade.json (the artifact grade-ada/ gives "ada"), else its
// own name without .json.
func Name(path string) string {
	base := filepath.Base(path)
	if base == "grade.json" {
		base = filepath.Base(filepath.Dir(path))
	}
	base = strings.TrimSuffix(base, ".json")
	if n := strings.TrimPrefix(base, "grade-"); n != "" {
		base = n
	}
	return base
}

// Add puts one student's report in the book, under name; from is where it
// came from.
func (b *Book) Add(name, from string, rep *render.JSONReport) {
	s := Student{
		Name: name, From: from,
		Repository: rep.Graded.Repository, Commit: rep.Graded.Commit, Course: rep.Graded.CourseCommit, Time: rep.Graded.Time,
		Points: rep.Score.Points, Max: rep.Score.Max,
		Cells: map[string]Cell{}, Clauses: map[int]Score{},
	}
	if b := rep.Bonus; b != nil {
		s.Bonus = &Score{b.Points, b.Max}
	}
	for _, ch := range rep.Chapters {
		c := Cell{Status: ch.Status, Points: ch.Points, Max: ch.Max}
		if ch.Status != "pass" {
			c.First = first(ch)
		}
		s.Cells[ch.ID] = c
		b.chapter(Chapter{ID: ch.ID, Title: ch.Title, Max: ch.Max, Bonus: ch.Bonus})
		if ch.Bonus {
			continue
		}
		for _, k := range ch.Clauses {
			t := s.Clauses[k]
			t.Points += ch.Points
			t.Max += ch.Max
			s.Clauses[k] = t
		}
	}
	for _, k := range rep.Clauses {
		b.clause(Clause{Number: k.Clause, Title: k.Title})
	}
	b.course(s.Course)
	b.Students = append(b.Students, s)
	sort.SliceStable(b.Students, func(i, j int) bool { return b.Students[i].Name < b.Students[j].Name })
}

// AddProblem puts a row in the book for a student whose report could not be
// had: it names the problem and nothing else.
func (b *Book) AddProblem(name, from string, err error) {
	b.Students = append(b.Students, Student{Name: name, From: from, Problem: oneLine(err.Error())})
	sort.SliceStable(b.Students, func(i, j int) bool { return b.Students[i].Name < b.Students[j].Name })
}

// first is a chapter's first failure or problem, in one line: the failure's
// name, clause and story, or the problem's kind and summary.
func first(ch render.JSONChapter) string {
	switch {
	case ch.Problem != nil:
		return oneLine(ch.Problem.Kind + ": " + ch.Problem.Summary)
	case ch.Failure != nil:
		f := ch.Failure
		clause := ""
		if f.Clause > 0 {
			clause = fmt.Sprintf(" (clause %d)", f.Clause)
		}
		return oneLine(fmt.Sprintf("%s: %s%s: %s", f.Check, f.Name, clause, f.Story))
	case ch.Status == "not-started":
		return "not started"
	}
	return ""
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// HasBonus reports whether some report graded a bonus chapter: the table
// then has a bonus column beside the core points.
func (b *Book) HasBonus() bool {
	for _, ch := range b.Chapters {
		if ch.Bonus {
			return true
		}
	}
	return false
}

// BonusText is a student's bonus cell: "7/13", or "" when the student's
// report graded no bonus chapter.
func (s Student) BonusText() string {
	if s.Bonus == nil {
		return ""
	}
	return s.Bonus.Text()
}

func (b *Book) chapter(c Chapter) {
	for i, have := range b.Chapters {
		if have.ID == c.ID {
			b.Chapters[i].Max = max(have.Max, c.Max)
			return
		}
	}
	b.Chapters = append(b.Chapters, c)
	sort.SliceStable(b.Chapters, func(i, j int) bool {
		if b.Chapters[i].Bonus != b.Chapters[j].Bonus {
			return !b.Chapters[i].Bonus
		}
		return b.Chapters[i].ID < b.Chapters[j].ID
	})
}

func (b *Book) clause(c Clause) {
	for _, have := range b.Clauses {
		if have.Number == c.Number {
			return
		}
	}
	b.Clauses = append(b.Clauses, c)
	sort.Slice(b.Clauses, func(i, j int) bool { return b.Clauses[i].Number < b.Clauses[j].Number })
}

func (b *Book) course(commit string) {
	for _, have := range b.Courses {
		if have == commit {
			return
		}
	}
	b.Courses = append(b.Courses, commit)
	sort.Strings(b.Courses)
}

// Failing lists, for each student in order, the chapters that do not pass
// and their first failure or problem.
func (b *Book) Failing() []Failing {
	var out []Failing
	for _, s := range b.Students {
		if s.Problem != "" {
			out = append(out, Failing{Student: s.Name, Chapter: "", Status: "unread", First: s.Problem})
			continue
		}
		for _, ch := range b.Chapters {
			if c, ok := s.Cells[ch.ID]; ok && c.Status != "pass" {
				out = append(out, Failing{Student: s.Name, Chapter: ch.ID, Status: c.Status, First: c.First})
			}
		}
	}
	return out
}

// Failing is one chapter of one student that does not pass.
type Failing struct {
	Student, Chapter, Status, First string
}

// Text is a cell as the table shows it: "10/10", "3/10 fail",
// "0/10 not started"; "" for a chapter the report did not grade.
func (c Cell) Text() string {
	if c.Status == "" {
		return ""
	}
	s := fmt.Sprintf("%d/%d", c.Points, c.Max)
	if c.Status != "pass" {
		s += " " + strings.ReplaceAll(c.Status, "-", " ")
	}
	return s
}

// Text is a score as the table shows it: "7/20"; "" for none.
func (s Score) Text() string {
	if s.Max == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Points, s.Max)
}
