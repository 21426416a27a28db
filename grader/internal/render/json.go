package render

import (
	"encoding/json"
	"io"
	"time"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/suite"
)

// Schema names the version of the JSON report. A change that removes or
// changes the meaning of a field gets a new version; adding a field does not.
// grader/SCHEMA.md documents every field.
const Schema = "onehistory.grader/v1"

// JSONReport is the JSON report, version Schema.
type JSONReport struct {
	Schema     string         `json:"schema"`              // always Schema
	Source     string         `json:"source"`              // "exercises", "solutions" or "stubs"
	Seed       string         `json:"seed"`                // SEED given to the suites, "" for their defaults
	Runs       string         `json:"runs"`                // RUNS given to the suites, "" for their defaults
	Collected  *JSONCollected `json:"collected,omitempty"` // where grader collect copied the exercises from, if it did
	Graded     JSONGraded     `json:"graded"`              // whose work, graded with what, and when
	Passed     bool           `json:"passed"`              // every graded core chapter passes (every bonus one, when no core chapter was graded)
	Score      JSONScore      `json:"score"`               // the points over the graded core chapters
	Bonus      *JSONBonus     `json:"bonus,omitempty"`     // the graded bonus chapters, scored apart; absent when none was graded
	DurationMS int64          `json:"duration_ms"`         // wall time of the whole run
	Chapters   []JSONChapter  `json:"chapters"`            // in course order
	Clauses    []JSONClause   `json:"clauses"`             // the clauses some graded chapter exercises
}

// JSONCollected says where the exercises graded came from, when grader
// collect copied them in from a student's checkout, and what it refused.
type JSONCollected struct {
	From    string        `json:"from"`    // the student's checkout, absolute
	Refused []JSONRefusal `json:"refused"` // every file or folder refused, in course order; each one's chapter scores 0
}

// JSONGraded says whose work a report graded and with what. Each field is
// "" when the grader could not learn it (a checkout that is not a git one);
// it is never guessed.
type JSONGraded struct {
	Repository    string `json:"repository"`     // the graded work's git remote origin, credentials removed
	Commit        string `json:"commit"`         // the graded work's git commit (HEAD)
	CourseCommit  string `json:"course_commit"`  // the commit of the course checkout whose grader and hidden suites graded it
	GraderVersion string `json:"grader_version"` // the grader's module version or VCS revision, from its build information
	Time          string `json:"time"`           // when grading began, RFC 3339 in UTC: "2026-03-02T14:05:09Z"
}

// JSONRefusal is one file or folder grader collect refused to copy.
type JSONRefusal struct {
	Chapter string `json:"chapter"`
	Path    string `json:"path"`   // relative to the student's checkout
	Reason  string `json:"reason"` // "is a symbolic link: collect copies regular files only"
}

// JSONScore is points earned out of points possible.
type JSONScore struct {
	Points int `json:"points"`
	Max    int `json:"max"`
}

// JSONBonus is the bonus chapters' total, kept apart from the core score.
type JSONBonus struct {
	Points   int `json:"points"`   // points earned in the graded bonus chapters
	Max      int `json:"max"`      // points possible in them
	Passing  int `json:"passing"`  // bonus chapters that pass
	Chapters int `json:"chapters"` // bonus chapters graded
}

// JSONChapter is one chapter's result.
type JSONChapter struct {
	ID         string       `json:"id"`
	Title      string       `json:"title"`
	Dir        string       `json:"dir"`    // the folder graded, relative to the module root
	Status     string       `json:"status"` // "pass", "fail", "error", "timeout", "not-started"
	Bonus      bool         `json:"bonus"`  // a bonus chapter: its points count in the report's bonus, not its score
	Points     int          `json:"points"`
	Max        int          `json:"max"`
	Clauses    []int        `json:"clauses"`
	DurationMS int64        `json:"duration_ms"`
	Checks     []JSONCheck  `json:"checks"`
	Failure    *JSONFailure `json:"failure"`   // the first failure, or null
	Problem    *JSONProblem `json:"problem"`   // set for "error" and "timeout", else null
	Replay     string       `json:"replay"`    // the command that reruns the chapter as graded
	OwnTests   []string     `json:"own_tests"` // the learner's own _test.go files in the folder, which the grader did not run
	OutputCut  int64        `json:"output_cut_bytes,omitempty"`
}

// JSONCheck is one check's result.
type JSONCheck struct {
	Name       string `json:"name"`
	Title      string `json:"title"`
	Status     string `json:"status"` // "pass", "fail", "error", "timeout", "skip", "not-run"
	Points     int    `json:"points"`
	Max        int    `json:"max"`
	DurationMS int64  `json:"duration_ms"`
}

// JSONFailure is the story of a failed check, as the hidden suite told it.
type JSONFailure struct {
	Check    string  `json:"check"`
	Name     string  `json:"name"`   // the named failure, e.g. "stale-read"
	Clause   int     `json:"clause"` // the contract clause it breaks, 0 if none named
	Story    string  `json:"story"`
	AtMS     float64 `json:"at_ms"` // virtual time of the decisive event
	Seed     int64   `json:"seed"`
	Replay   string  `json:"replay"` // the command that replays this exact world
	Details  string  `json:"details,omitempty"`
	Timeline string  `json:"timeline,omitempty"`
	HTML     string  `json:"html,omitempty"` // path of the history visualization
}

// JSONProblem says why a chapter could not be graded in the ordinary way.
type JSONProblem struct {
	Kind    string `json:"kind"`           // "compile", "panic", "timeout", "no-report", "tampering", "forbidden", "setup"
	Rule    string `json:"rule,omitempty"` // for "forbidden": the rule the code broke, e.g. "package-state"
	Summary string `json:"summary"`        // one line
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Check   string `json:"check,omitempty"` // the check that was running
	Output  string `json:"output,omitempty"`
}

// JSONClause is one contract clause's total.
type JSONClause struct {
	Clause   int    `json:"clause"`
	Title    string `json:"title"`
	Passing  int    `json:"passing"`  // chapters exercising it that pass
	Chapters int    `json:"chapters"` // chapters exercising it
	Points   int    `json:"points"`   // points earned in the chapters exercising it
	Max      int    `json:"max"`      // points possible in them
}

// JSON writes the report as one indented JSON document.
func JSON(w io.Writer, rep *result.Report) error {
	out := JSONReport{
		Schema: Schema,
		Source: string(rep.Source),
		Seed:   rep.Seed,
		Runs:   rep.Runs,
		Passed: rep.AllPass(),
		Score:  JSONScore{Points: rep.Points, Max: rep.Max},
		Graded: JSONGraded{
			Repository: rep.Graded.Repository, Commit: rep.Graded.Commit,
			CourseCommit: rep.Graded.CourseCommit, GraderVersion: rep.Graded.GraderVersion,
		},
		DurationMS: ms(rep.Duration),
		Chapters:   []JSONChapter{},
		Clauses:    []JSONClause{},
	}
	if b := rep.Bonus; b.Chapters > 0 {
		out.Bonus = &JSONBonus{Points: b.Points, Max: b.Max, Passing: b.Passing, Chapters: b.Chapters}
	}
	if !rep.Graded.Time.IsZero() {
		out.Graded.Time = rep.Graded.Time.UTC().Format(time.RFC3339)
	}
	if c := rep.Collected; c != nil {
		out.Collected = &JSONCollected{From: c.From, Refused: []JSONRefusal{}}
		for _, r := range c.Refused {
			out.Collected.Refused = append(out.Collected.Refused, JSONRefusal{Chapter: r.Chapter, Path: r.Path, Reason: r.Reason})
		}
	}
	for _, ch := range rep.Chapters {
		jc := JSONChapter{
			ID: ch.ID, Title: ch.Title, Dir: ch.Dir, Status: string(ch.Status), Bonus: ch.Bonus,
			Points: ch.Points, Max: ch.Max, Clauses: []int{}, DurationMS: ms(ch.Duration),
			Checks: []JSONCheck{}, Replay: ch.Command, OutputCut: ch.Cut,
			OwnTests: append([]string{}, ch.OwnTests...),
		}
		for _, c := range ch.Clauses {
			jc.Clauses = append(jc.Clauses, int(c))
		}
		for _, c := range ch.Checks {
			jc.Checks = append(jc.Checks, JSONCheck{
				Name: c.Name, Title: c.Title, Status: string(c.Status),
				Points: c.Points, Max: c.Max, DurationMS: ms(c.Duration),
			})
		}
		if f := ch.Failure; f != nil {
			jc.Failure = jsonFailure(*f)
		}
		if p := ch.Problem; p != nil {
			jc.Problem = &JSONProblem{Kind: string(p.Kind), Rule: p.Rule, Summary: p.Summary, File: p.File, Line: p.Line, Check: p.Check, Output: p.Output}
		}
		out.Chapters = append(out.Chapters, jc)
	}
	for _, c := range rep.Clauses {
		out.Clauses = append(out.Clauses, JSONClause{Clause: int(c.Clause), Title: c.Clause.Title(), Passing: c.Passing, Chapters: c.Chapters, Points: c.Points, Max: c.Max})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func jsonFailure(f suite.Failure) *JSONFailure {
	return &JSONFailure{
		Check: f.Check, Name: f.Name, Clause: int(f.Clause), Story: f.Story,
		AtMS: float64(f.At) / float64(time.Millisecond), Seed: f.Seed, Replay: f.Replay,
		Details: f.Details, Timeline: f.Timeline, HTML: f.HTML,
	}
}

func ms(d time.Duration) int64 { return d.Milliseconds() }
