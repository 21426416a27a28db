package result

import (
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/suite"
)

// Status is the outcome of a chapter or of one check.
type Status string

// The outcomes. A chapter is Pass only when every check passed; the others
// say why not. A check is Pass, Fail, Error (it panicked), Timeout (it hung),
// Skip (it called t.Skip) or NotRun (it never reported a result).
const (
	Pass       Status = "pass"
	Fail       Status = "fail"
	Error      Status = "error"       // compile error, panic, or the process ended without a report
	Timeout    Status = "timeout"     // the time limit ended the run
	NotStarted Status = "not-started" // the exercise folder still holds the pristine stub
	Skip       Status = "skip"        // checks only
	NotRun     Status = "not-run"     // checks only
)

// ProblemKind names what went wrong when a chapter could not be graded
// normally.
type ProblemKind string

// The kinds of problem.
const (
	Compile   ProblemKind = "compile"   // the package or its test did not build
	Panic     ProblemKind = "panic"     // the test process panicked or hit a fatal error
	Hang      ProblemKind = "timeout"   // the run exceeded its time limit
	NoReport  ProblemKind = "no-report" // the process failed without reporting every check (log.Fatal?)
	Tampering ProblemKind = "tampering" // the run claimed more than the hidden suite reported: forged results, an early exit with success
	Forbidden ProblemKind = "forbidden" // the chapter's code imports or uses what a chapter may not (os, unsafe, the harness's own answer), or grader collect refused its files (a symbolic link)
	Setup     ProblemKind = "setup"     // the go command could not run the test at all
)

// Problem describes a chapter the suite could not grade in the ordinary way.
type Problem struct {
	Kind    ProblemKind
	Rule    string // for Forbidden: the rule the code broke ("package-state", "wall-clock"; grader/internal/rules)
	Summary string // one line: "exercises/ex01-one-memory/store.go:12:3: undefined: foo"
	File    string // the learner's file involved, relative to the module root, if known
	Line    int    // its line, if known
	Check   string // the check running when it happened, if any
	Output  string // the fuller text: the compiler's output, the panic and its stack
}

// Check is the result of one check of a chapter's hidden suite.
type Check struct {
	Name     string
	Title    string
	Status   Status
	Points   int // earned: Max when Status is Pass, else 0 (and 0 in a chapter not started)
	Max      int
	Duration time.Duration      // as the test reported it
	Failure  *suite.Failure     // the first failure the check reported
	Output   string             // what the check printed, Marker lines removed (capped)
	Printed  string             // of that, what the code under test printed itself (fmt.Println), capped
	Failures []suite.Failure    // every failure the check reported, in order
	Figures  []suite.FigureLine // the figures the check logged (suite.Figure), in order; the book quotes them
}

// Chapter is the result of grading one chapter.
type Chapter struct {
	ID       string
	Title    string
	Dir      string // the folder graded, relative to the module root
	Clauses  []course.Clause
	Bonus    bool // a bonus chapter: scored apart from the core, in Report.Bonus
	Status   Status
	Points   int
	Max      int
	Duration time.Duration // wall time of the whole go test process
	Checks   []Check
	Failure  *suite.Failure // the first failure, in the registry's order of checks
	Problem  *Problem       // set when Status is Error or Timeout
	Output   string         // the human part of the test output (capped), for verbose reports
	Printed  string         // what the code under test printed outside any check (in init), capped
	Cut      int64          // bytes of output dropped by the cap
	Command  string         // the go test command that ran, for a person to rerun
	// OwnTests are the learner's own test files in the exercise folder
	// (every _test.go file but the chapter's thin one), relative to the
	// module root, slash-separated, sorted. The grader never builds or runs
	// them (its overlay hides them), and the report names them so that a
	// learner does not take their passing for the grader's.
	OwnTests []string
}

// Source is which copy of the chapters a run graded.
type Source string

// The sources a run can grade.
const (
	Exercises Source = "exercises" // the learner's work
	Solutions Source = "solutions" // the reference solutions
	Stubs     Source = "stubs"     // the pristine stubs, overlaid onto the exercise folders
)

// ClauseTotal is how the chapters that exercise one clause fared.
type ClauseTotal struct {
	Clause   course.Clause
	Passing  int // chapters exercising the clause that pass
	Chapters int // chapters exercising the clause
	Points   int // points earned in the chapters exercising the clause
	Max      int // points possible in them
}

// Collection says where the exercise files graded came from, when grader
// collect copied them into this checkout from a student's, and what it
// refused to copy.
type Collection struct {
	From       string    // the student's checkout, absolute
	Repository string    // its git remote origin, if known
	Commit     string    // its git HEAD, if known
	Refused    []Refusal // in course order
}

// Provenance says whose work a run graded and with what. A value the grader
// could not learn (a checkout that is not a git one, a grader built without
// version information) is empty, never guessed.
type Provenance struct {
	Repository    string    // the graded work's git remote origin, credentials removed
	Commit        string    // the graded work's git HEAD
	CourseCommit  string    // the git HEAD of the checkout whose grader, harness and hidden suites graded it
	GraderVersion string    // the grader binary's module version or VCS revision, from its build information
	Time          time.Time // when grading began
}

// Refusal is one file or folder grader collect refused, and why; its
// chapter scores 0.
type Refusal struct {
	Chapter string // "ex04"
	Path    string // relative to the student's checkout: "exercises/ex04-the-write-that-arrived-late/server.go"
	Reason  string // "is a symbolic link: collect copies regular files only"
}

// Report is a whole grading run.
type Report struct {
	Source    Source
	Seed      string      // SEED passed to the suites, if any
	Runs      string      // RUNS passed to the suites, if any
	Collected *Collection // set when the exercises graded were collected from a student's checkout
	Graded    Provenance  // whose work, graded with what, and when
	Chapters  []Chapter
	Clauses   []ClauseTotal // over the core chapters graded
	Points    int           // over the core chapters graded
	Max       int           // over the core chapters graded
	Passing   int           // core chapters that pass
	Core      int           // core chapters graded
	Bonus     BonusTotal    // the bonus chapters graded, scored apart from the core
	Duration  time.Duration
}

// BonusTotal is how the bonus chapters graded fared. They are scored apart
// from the core chapters, so a class graded on the core is unaffected by
// them.
type BonusTotal struct {
	Points   int // points earned in the bonus chapters graded
	Max      int // points possible in them
	Passing  int // bonus chapters that pass
	Chapters int // bonus chapters graded
}

// Tally fills in the totals from the chapters: points, passing chapters and
// the per-clause counts and points (a chapter's points count for every
// clause it exercises), all over the core chapters; and the bonus chapters'
// own total apart. Only clauses some graded core chapter exercises appear.
func (r *Report) Tally() {
	r.Points, r.Max, r.Passing, r.Core = 0, 0, 0, 0
	r.Bonus = BonusTotal{}
	r.Clauses = nil
	for _, ch := range r.Chapters {
		if ch.Bonus {
			r.Bonus.Chapters++
			r.Bonus.Points += ch.Points
			r.Bonus.Max += ch.Max
			if ch.Status == Pass {
				r.Bonus.Passing++
			}
			continue
		}
		r.Core++
		r.Points += ch.Points
		r.Max += ch.Max
		if ch.Status == Pass {
			r.Passing++
		}
	}
	for _, k := range course.Clauses {
		t := ClauseTotal{Clause: k}
		for _, ch := range r.Chapters {
			if ch.Bonus {
				continue
			}
			for _, c := range ch.Clauses {
				if c == k {
					t.Chapters++
					t.Points += ch.Points
					t.Max += ch.Max
					if ch.Status == Pass {
						t.Passing++
					}
				}
			}
		}
		if t.Chapters > 0 {
			r.Clauses = append(r.Clauses, t)
		}
	}
}

// AllPass reports whether every graded core chapter passes; a run that
// graded only bonus chapters passes when each of them does. A bonus chapter
// not yet done never fails a run that graded the core.
func (r *Report) AllPass() bool {
	if r.Core == 0 {
		return r.Bonus.Passing == r.Bonus.Chapters
	}
	return r.Passing == r.Core
}
