package main

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// Pass is the expect value of an equivalent: a harmless change that must pass.
const Pass = "pass"

// Mutant is one deliberate mistake in a chapter's reference solution, as read
// from mutants/exNN/NAME.txtar.
type Mutant struct {
	Chapter string // "ex01"
	Name    string // the file's name without .txtar
	File    string // the file, relative to the workbook: "mutants/ex01/NAME.txtar"
	Mistake string // the mistake, as it would be made
	Clause  int    // the contract clause it breaks (1..3); 0 for an equivalent
	Expect  string // the named failure the suite should report, or Pass
	Needs   string // "nothing", or the fault or interleaving needed to show it
	Edits   []Edit // applied in order
}

// Edit replaces the only occurrence of Old in File (relative to the
// solution folder) with New.
type Edit struct {
	File string
	Old  string
	New  string
}

// Equivalent reports whether the mutant is a harmless change that must pass.
func (m Mutant) Equivalent() bool { return m.Expect == Pass }

// NeedsFault reports whether the mutant's mistake shows only under a
// particular fault or interleaving.
func (m Mutant) NeedsFault() bool {
	n := strings.ToLower(strings.TrimSpace(m.Needs))
	return n != "" && n != "nothing"
}

// Parse reads a mutant from the text of its file; file is the file's path
// relative to the workbook, "mutants/ex01/NAME.txtar", and names the mutant
// and its chapter. Every error names the file.
func Parse(file string, data []byte) (Mutant, error) {
	m := Mutant{File: file, Name: strings.TrimSuffix(path.Base(file), ".txtar"), Chapter: path.Base(path.Dir(file))}
	bad := func(format string, args ...any) (Mutant, error) {
		return Mutant{}, fmt.Errorf("%s: %s", file, fmt.Sprintf(format, args...))
	}
	ar := txtar.Parse(data)
	seen := map[string]bool{}
	for i, line := range strings.Split(string(ar.Comment), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return bad("line %d: want key: value, have %q", i+1, line)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if seen[key] {
			return bad("line %d: %s given twice", i+1, key)
		}
		seen[key] = true
		switch key {
		case "mistake":
			m.Mistake = value
		case "clause":
			c, err := strconv.Atoi(value)
			if err != nil || c < 1 || c > 3 {
				return bad("line %d: clause must be 1, 2 or 3, have %q", i+1, value)
			}
			m.Clause = c
		case "expect":
			m.Expect = value
		case "needs":
			m.Needs = value
		default:
			return bad("line %d: unknown key %q (want mistake, clause, expect, needs)", i+1, key)
		}
	}
	for _, k := range []string{"mistake", "expect", "needs"} {
		if !seen[k] {
			return bad("no %s: line", k)
		}
	}
	if !seen["clause"] && m.Expect != Pass {
		return bad("no clause: line")
	}
	if len(ar.Files) == 0 {
		return bad("no -- old F -- / -- new F -- sections")
	}
	if len(ar.Files)%2 != 0 {
		return bad("%d sections: they come in pairs, -- old F -- then -- new F --", len(ar.Files))
	}
	for i := 0; i < len(ar.Files); i += 2 {
		o, n := ar.Files[i], ar.Files[i+1]
		ofile, ok1 := strings.CutPrefix(o.Name, "old ")
		nfile, ok2 := strings.CutPrefix(n.Name, "new ")
		if !ok1 || !ok2 || ofile != nfile {
			return bad("sections %q and %q: want -- old F -- then -- new F -- for the same F", o.Name, n.Name)
		}
		f := strings.TrimSpace(ofile)
		if f == "" || path.IsAbs(f) || path.Clean(f) != f || strings.HasPrefix(f, "..") {
			return bad("section %q: the file must be a plain path inside the solution folder", o.Name)
		}
		if len(o.Data) == 0 {
			return bad("section %q is empty: the old text must be something to find", o.Name)
		}
		m.Edits = append(m.Edits, Edit{File: f, Old: string(o.Data), New: string(n.Data)})
	}
	return m, nil
}

// Apply applies the mutant's edits, in order, to files (the solution
// folder's files by name) and returns the changed files. Each edit's old
// text must occur exactly once in its file at that point.
func (m Mutant) Apply(files map[string]string) (map[string]string, error) {
	out := map[string]string{}
	get := func(f string) (string, bool) {
		if s, ok := out[f]; ok {
			return s, true
		}
		s, ok := files[f]
		return s, ok
	}
	for i, e := range m.Edits {
		text, ok := get(e.File)
		if !ok {
			return nil, fmt.Errorf("%s: edit %d: the solution has no file %s", m.File, i+1, e.File)
		}
		switch n := strings.Count(text, e.Old); n {
		case 1:
			out[e.File] = strings.Replace(text, e.Old, e.New, 1)
		case 0:
			return nil, fmt.Errorf("%s: edit %d: the old text is not in %s: %s", m.File, i+1, e.File, firstLine(e.Old))
		default:
			return nil, fmt.Errorf("%s: edit %d: the old text occurs %d times in %s, it must occur once: %s", m.File, i+1, n, e.File, firstLine(e.Old))
		}
	}
	return out, nil
}

// firstLine is s's first non-blank line, trimmed, for messages.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
