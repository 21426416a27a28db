package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/suite"
)

const precondition = `mistake: compares the precondition with < instead of !=
clause: 1
expect: lost-update
needs: nothing
-- old store.go --
	if v != 0 && v != cur {
-- new store.go --
	if v != 0 && v < cur {
`

func TestParseReadsTheCommentAndTheEdits(t *testing.T) {
	m, err := Parse("mutants/ex01/precondition.txtar", []byte(precondition))
	require.NoError(t, err)
	assert.Equal(t, "ex01", m.Chapter)
	assert.Equal(t, "precondition", m.Name)
	assert.Equal(t, "compares the precondition with < instead of !=", m.Mistake)
	assert.Equal(t, 1, m.Clause)
	assert.Equal(t, "lost-update", m.Expect)
	assert.False(t, m.NeedsFault())
	assert.False(t, m.Equivalent())
	assert.Equal(t, []Edit{{File: "store.go", Old: "\tif v != 0 && v != cur {\n", New: "\tif v != 0 && v < cur {\n"}}, m.Edits)
}

func TestAnEquivalentNeedsNoClause(t *testing.T) {
	m, err := Parse("mutants/ex01/same.txtar", []byte("mistake: a loop instead of a slice deletion\nexpect: pass\nneeds: nothing\n-- old a.go --\nx\n-- new a.go --\ny\n"))
	require.NoError(t, err)
	assert.True(t, m.Equivalent())
}

// Every malformed mutant is refused with a message naming its file and
// what is wrong with it.
func TestParseRefusesMalformedMutants(t *testing.T) {
	head := "mistake: m\nclause: 2\nexpect: e\nneeds: a crash\n"
	pair := "-- old a.go --\nx\n-- new a.go --\ny\n"
	for _, c := range []struct{ name, text, says string }{
		{"no expect", "mistake: m\nclause: 1\nneeds: nothing\n" + pair, "no expect"},
		{"no needs", "mistake: m\nclause: 1\nexpect: e\n" + pair, "no needs"},
		{"no clause", "mistake: m\nexpect: e\nneeds: nothing\n" + pair, "no clause"},
		{"bad clause", strings.Replace(head, "clause: 2", "clause: 4", 1) + pair, "clause must be 1, 2 or 3"},
		{"not key value", head + "just words\n" + pair, "want key: value"},
		{"unknown key", head + "points: 3\n" + pair, `unknown key "points"`},
		{"twice", head + "needs: nothing\n" + pair, "needs given twice"},
		{"no sections", head, "no -- old F --"},
		{"odd sections", head + "-- old a.go --\nx\n", "come in pairs"},
		{"new before old", head + "-- new a.go --\ny\n-- old a.go --\nx\n", "want -- old F -- then -- new F --"},
		{"two files", head + "-- old a.go --\nx\n-- new b.go --\ny\n", "for the same F"},
		{"outside", head + "-- old ../a.go --\nx\n-- new ../a.go --\ny\n", "inside the solution folder"},
		{"empty old", head + "-- old a.go --\n-- new a.go --\ny\n", "is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("mutants/ex02/bad.txtar", []byte(c.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "mutants/ex02/bad.txtar: ")
			assert.Contains(t, err.Error(), c.says)
		})
	}
}

func TestApplyReplacesEachOldTextInOrder(t *testing.T) {
	m, err := Parse("mutants/ex01/two.txtar", []byte("mistake: m\nclause: 1\nexpect: e\nneeds: nothing\n"+
		"-- old a.go --\nx := 1\n-- new a.go --\nx := 2\n"+
		"-- old a.go --\nx := 2\n-- new a.go --\nx := 3\n"))
	require.NoError(t, err)
	files := map[string]string{"a.go": "package a\nx := 1\n", "b.go": "package a\n"}
	out, err := m.Apply(files)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a.go": "package a\nx := 3\n"}, out, "the second edit sees the first; untouched files are not returned")
	assert.Equal(t, "package a\nx := 1\n", files["a.go"], "the input is not changed")
}

// A mutant whose old text is not in the file exactly once is an error that
// names the mutant: the solution has moved on, or the mutant is ambiguous.
func TestApplyRefusesOldTextNotFoundExactlyOnce(t *testing.T) {
	m, err := Parse("mutants/ex01/precondition.txtar", []byte(precondition))
	require.NoError(t, err)

	_, err = m.Apply(map[string]string{"store.go": "package ex01\n"})
	require.Error(t, err)
	assert.Equal(t, "mutants/ex01/precondition.txtar: edit 1: the old text is not in store.go: if v != 0 && v != cur {", err.Error())

	twice := "\tif v != 0 && v != cur {\n\t}\n\tif v != 0 && v != cur {\n"
	_, err = m.Apply(map[string]string{"store.go": twice})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mutants/ex01/precondition.txtar: edit 1: the old text occurs 2 times in store.go")

	_, err = m.Apply(map[string]string{"other.go": "x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the solution has no file store.go")
}

func mutant(name, expect, needs string) Mutant {
	return Mutant{Chapter: "ex09", Name: name, File: "mutants/ex09/" + name + ".txtar", Expect: expect, Needs: needs}
}

func TestJudgeReadsTheFirstFailure(t *testing.T) {
	m := mutant("ack-early", "lost-acknowledged-write", "a crash")
	o := judge(Outcome{Mutant: m}, result.Chapter{Status: result.Fail,
		Failure: &suite.Failure{Check: "crashpoints", Name: "torn-record", Story: "the first line\nthe second"}})
	assert.True(t, o.Killed())
	assert.False(t, o.Diagnosed())
	assert.Equal(t, "ex09/ack-early                           killed by crashpoints: torn-record, MISDIAGNOSED: expected lost-acknowledged-write, story: the first line", o.Line())

	o = judge(Outcome{Mutant: m}, result.Chapter{Status: result.Fail,
		Failure: &suite.Failure{Check: "crashpoints", Name: "lost-acknowledged-write", Story: "s"}})
	assert.True(t, o.Diagnosed())
	assert.Contains(t, o.Line(), "killed by crashpoints: lost-acknowledged-write, diagnosed")

	o = judge(Outcome{Mutant: m}, result.Chapter{Status: result.Pass})
	assert.False(t, o.Killed())
	assert.Contains(t, o.Line(), "SURVIVED")

	o = judge(Outcome{Mutant: m}, result.Chapter{Status: result.Error, Problem: &result.Problem{Kind: result.Panic, Check: "story", Summary: "panic: boom"}})
	assert.True(t, o.Killed())
	assert.Contains(t, o.Line(), "killed by story: panic, MISDIAGNOSED")

	o = judge(Outcome{Mutant: m}, result.Chapter{Status: result.Error, Problem: &result.Problem{Kind: result.Compile, Summary: "store.go:3:1: undefined: x"}})
	assert.False(t, o.Killed(), "a mutant that does not compile is the mutant's error, not a kill")
	assert.Contains(t, o.Line(), "ERROR mutants/ex09/ack-early.txtar: the mutant does not compile: store.go:3:1: undefined: x")
}

func TestEquivalentsPassOrAreBroken(t *testing.T) {
	eq := mutant("loop", Pass, "nothing")
	assert.Contains(t, judge(Outcome{Mutant: eq}, result.Chapter{Status: result.Pass}).Line(), "passes")
	broken := judge(Outcome{Mutant: eq}, result.Chapter{Status: result.Fail, Failure: &suite.Failure{Check: "history", Name: "missed-change", Story: "s"}})
	assert.Contains(t, broken.Line(), "BROKEN (equivalent fails: history: missed-change: s)")
}

func killed(name, expect, got string) Outcome {
	return Outcome{Mutant: mutant(name, expect, "a crash"), Check: "c", Failure: got}
}

func TestSummaryMeetsTheBars(t *testing.T) {
	var os []Outcome
	for i := range 9 {
		os = append(os, killed(string(rune('a'+i)), "torn-record", "torn-record"))
	}
	os = append(os, Outcome{Mutant: mutant("z", Pass, "nothing"), Passed: true})
	s := Summarize(os)
	require.Len(t, s, 1)
	assert.Empty(t, s[0].Shortfalls())
	assert.Equal(t, "ex09: killed 9/9 (100%), diagnosed 9/9 (100%), equivalents passing 1/1", s[0].Line())
}

func TestSummaryNamesEveryShortfall(t *testing.T) {
	os := []Outcome{
		killed("a", "torn-record", "torn-record"),
		killed("b", "torn-record", "lost-acknowledged-write"),
		{Mutant: mutant("c", "torn-record", "nothing"), Passed: true},
		{Mutant: mutant("d", "torn-record", "nothing"), Err: errors.New("bad")},
		{Mutant: mutant("e", Pass, "nothing"), Check: "c", Failure: "f"},
	}
	s := Summarize(os)[0]
	assert.Equal(t, Summary{Chapter: "ex09", Mutants: 3, NeedFault: 2, Killed: 2, Diagnosed: 1, Equivalents: 1, Errors: 1}, s)
	assert.Equal(t, "ex09: killed 2/3 (66%), diagnosed 1/3 (33%), equivalents passing 0/1  BELOW THE BAR: "+
		"1 mutant(s) could not be applied or graded; 3 mutants, at least 8 are needed; under 95% killed; under 90% diagnosed; 1 equivalent(s) fail",
		s.Line())
}

// The bars are compared exactly: 19 of 20 killed is 95%, enough; 17 of 19
// diagnosed is 89.5%, not enough.
func TestSummaryBarsAtTheirEdges(t *testing.T) {
	s := Summary{Chapter: "ex09", Mutants: 20, NeedFault: 10, Killed: 19, Diagnosed: 18, Equivalents: 1, EquivPass: 1}
	assert.Empty(t, s.Shortfalls())
	s = Summary{Chapter: "ex09", Mutants: 19, NeedFault: 9, Killed: 19, Diagnosed: 17, Equivalents: 1, EquivPass: 1}
	assert.Equal(t, []string{"only 9 of 19 mutants need a fault or interleaving, at least half should", "under 90% diagnosed"}, s.Shortfalls())
}
