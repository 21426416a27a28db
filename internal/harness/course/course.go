package course

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// Module is the Go module path of the workbook.
const Module = "onehistory"

// Clause is one clause of the source-of-truth contract. The grader reports
// progress per clause: how many of the chapters that exercise it pass.
type Clause int

// The three clauses of the contract, in the order the book states them.
const (
	// OneHistory: the truth is one ordered sequence of accepted changes,
	// possibly stored on many machines; any two readers get answers
	// consistent with that one sequence.
	OneHistory Clause = 1
	// DurableAgreement: losing a machine never loses an acknowledged change,
	// and never leaves two machines believing different histories.
	DurableAgreement Clause = 2
	// AgreementFirst: a client hears "accepted" only after the system has
	// settled on one outcome; copying a write somewhere is not acceptance.
	AgreementFirst Clause = 3
)

// Clauses lists every clause in order.
var Clauses = []Clause{OneHistory, DurableAgreement, AgreementFirst}

// Title is the clause's short name as the book and the grader print it.
func (c Clause) Title() string {
	switch c {
	case OneHistory:
		return "One history, not one machine"
	case DurableAgreement:
		return "Durability without disagreement"
	case AgreementFirst:
		return "Agreement precedes durability"
	}
	return fmt.Sprintf("clause %d", int(c))
}

// Meaning is one sentence saying what the clause demands.
func (c Clause) Meaning() string {
	switch c {
	case OneHistory:
		return "the truth is one ordered sequence of accepted changes; any two readers get answers consistent with it"
	case DurableAgreement:
		return "losing a machine never loses an acknowledged change, nor leaves two machines believing different histories"
	case AgreementFirst:
		return "a client is told \"accepted\" only after the system has settled on one outcome; a copy is not an acceptance"
	}
	return ""
}

// String is "clause 1 (One history, not one machine)".
func (c Clause) String() string { return fmt.Sprintf("clause %d (%s)", int(c), c.Title()) }

// Check is one named, separately scored part of a chapter's hidden suite. It
// runs as the subtest Chapter.TestName()+"/"+Name, and the grader awards its
// points only when that subtest reports its own pass event.
type Check struct {
	Name   string // subtest name: lower-case words joined by '-', e.g. "story"
	Title  string // what it shows, in a few words: "the informer reconnects and misses nothing"
	Points int    // points awarded when it passes
}

// Chapter is the registry entry of one chapter: everything the grader, the
// Makefile and the thin test files need to know about it, written once.
type Chapter struct {
	ID      string   // "ex01"
	Slug    string   // "one-memory"
	Title   string   // "One memory"
	Failure string   // the named failure the pristine stub must show, e.g. "missed-change"
	Clauses []Clause // the contract clauses the chapter exercises
	Checks  []Check  // the hidden suite's checks, in the order they run
	Hints   [3]string

	// Suite is the import path, below Module, of the hidden suite package,
	// e.g. "internal/harness/suites/ex01suite". It must export
	// Run(t *testing.T, <binding>).
	Suite string
	// Binding is the Go expression, written in the learner's package, that the
	// thin test file passes to the suite's Run, e.g. "New" or
	// "hidden.Impl{Serve: Serve}". The suite package is imported as hidden.
	Binding string

	// Imports lists packages below Module, besides the harness's sim, kube
	// and check, that the chapter's code may import, e.g.
	// "internal/harness/suites/ex03suite/drill". The grader refuses any other.
	Imports []string
	// Forbidden lists the harness's own answers to what the chapter asks
	// the learner to build, as "import/path.Name" below Module, e.g.
	// "internal/harness/kube.MemStore": the grader refuses code that uses one.
	Forbidden []string
	// Given lists the files of the exercise folder that the harness gives
	// the learner whole, e.g. "controller.go": the page says they are not
	// the learner's to write, and the grader does not name them among the
	// files to edit.
	Given []string

	// Bonus marks a bonus chapter (ex11 onward): one of the source's deferred
	// questions, listed after the core ten and scored apart from them, so a
	// class graded on the core is unaffected by it.
	Bonus bool
}

// Dir is the exercise folder the learner edits: "exercises/ex01-one-memory".
func (c Chapter) Dir() string { return path.Join("exercises", c.ID+"-"+c.Slug) }

// SolutionDir is the reference solution's folder: "solutions/ex01-one-memory".
func (c Chapter) SolutionDir() string { return path.Join("solutions", c.ID+"-"+c.Slug) }

// BookPage is the chapter's page: "book/ex01-one-memory.md".
func (c Chapter) BookPage() string { return path.Join("book", c.ID+"-"+c.Slug+".md") }

// Package is the Go package name of the stub and of the solution: "ex01".
func (c Chapter) Package() string { return c.ID }

// TestName is the top-level test that runs the hidden suite: "TestEx01".
func (c Chapter) TestName() string { return "Test" + strings.ToUpper(c.ID[:1]) + c.ID[1:] }

// TestFileName is the thin test file's name inside the exercise and solution
// folders: "ex01_test.go".
func (c Chapter) TestFileName() string { return c.ID + "_test.go" }

// Points is the chapter's total: the sum of its checks' points.
func (c Chapter) Points() int {
	n := 0
	for _, k := range c.Checks {
		n += k.Points
	}
	return n
}

// Check returns the check with the given name.
func (c Chapter) Check(name string) (Check, bool) {
	for _, k := range c.Checks {
		if k.Name == name {
			return k, true
		}
	}
	return Check{}, false
}

// Exercises reports whether the chapter exercises clause k.
func (c Chapter) Exercises(k Clause) bool {
	for _, x := range c.Clauses {
		if x == k {
			return true
		}
	}
	return false
}

// TestFile is the canonical text of the thin test file. The committed copies
// in the exercise and solution folders are generated from it (go generate
// ./internal/harness/course), and the grader overlays this text over whatever
// the learner's folder holds, so editing or deleting the file changes nothing.
func (c Chapter) TestFile() string {
	return fmt.Sprintf(`// Code generated by the chapter registry in internal/harness/course. DO NOT EDIT.
//
// This file hands the package to the hidden suite of chapter %[1]s. The grader
// always uses its own copy of it, so changing or deleting it changes nothing.
// Run it with: make %[1]s

package %[2]s

import (
	"testing"

	hidden "%[3]s"
)

// %[4]s runs the hidden suite of chapter %[1]s, %[5]q, against this package.
func %[4]s(t *testing.T) {
	hidden.Run(t, %[6]s)
}
`, c.ID, c.Package(), path.Join(Module, c.Suite), c.TestName(), c.Title, c.Binding)
}

var registry = map[string]Chapter{}

// register adds a chapter; each chapter's file calls it from init.
func register(c Chapter) {
	if _, dup := registry[c.ID]; dup {
		panic("course: chapter " + c.ID + " registered twice")
	}
	registry[c.ID] = c
}

// All returns every chapter in course order: the core chapters by ID, then
// the bonus chapters by ID.
func All() []Chapter {
	out := make([]Chapter, 0, len(registry))
	for _, c := range registry {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Bonus != out[j].Bonus {
			return !out[i].Bonus
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Core returns the core chapters, ordered by ID: the course a class is
// graded on, without the bonus chapters.
func Core() []Chapter {
	var out []Chapter
	for _, c := range All() {
		if !c.Bonus {
			out = append(out, c)
		}
	}
	return out
}

// Lookup finds a chapter by ID ("ex01"); it also accepts the folder name
// ("ex01-one-memory").
func Lookup(id string) (Chapter, bool) {
	if c, ok := registry[id]; ok {
		return c, true
	}
	for _, c := range registry {
		if c.ID+"-"+c.Slug == id {
			return c, true
		}
	}
	return Chapter{}, false
}

// MustLookup is Lookup for code that names a chapter that must exist, such as
// a hidden suite naming its own chapter.
func MustLookup(id string) Chapter {
	c, ok := Lookup(id)
	if !ok {
		panic("course: no chapter " + id)
	}
	return c
}
