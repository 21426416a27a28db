package rules

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
)

// root is the workbook the tests run in.
func root(t *testing.T) string {
	t.Helper()
	wb, err := workbook.Find(".")
	require.NoError(t, err)
	return wb.Root
}

// probe is one package the tests lay over the workbook: a folder that
// exists only in the overlay, checked as chapter ch's code.
type probe struct {
	name  string
	ch    course.Chapter
	files map[string]string // file name → text
}

func (p probe) dir() string { return "internal/rulesprobe/" + p.name }

// check runs the rules once over every probe, as the grader would.
func check(t *testing.T, probes []probe) map[string]Result {
	t.Helper()
	r := root(t)
	opts := Options{Root: r, Dirs: map[string]Config{}, Overlay: map[string][]byte{}}
	for _, p := range probes {
		opts.Dirs[p.dir()] = ForChapter(p.ch)
		for name, text := range p.files {
			opts.Overlay[filepath.Join(r, filepath.FromSlash(p.dir()), name)] = []byte(text)
		}
	}
	res, err := Check(context.Background(), opts)
	require.NoError(t, err)
	out := map[string]Result{}
	for _, p := range probes {
		out[p.name] = res[p.dir()]
	}
	return out
}

// Each archive in testdata/ is a chapter's code and what the rules must
// find in it. Its comment tells the story in prose, then:
//
//	chapter: ex04                       the chapter it is checked as
//	want: server.go:12 package-state changes the package-level variable history
//	unanalysable: TEXT                  the folder cannot be analysed, and says TEXT
//
// An archive without want lines keeps every rule. Every finding must be
// wanted, and every wanted finding found (its message contains the text).
func TestTheRulesOnChaptersCode(t *testing.T) {
	names, err := filepath.Glob("testdata/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, names)
	type expect struct {
		wants        []string
		unanalysable string
	}
	var probes []probe
	expects := map[string]expect{}
	for _, name := range names {
		a, err := txtar.ParseFile(name)
		require.NoError(t, err)
		p := probe{name: strings.TrimSuffix(filepath.Base(name), ".txtar"), files: map[string]string{}}
		var e expect
		for _, line := range strings.Split(string(a.Comment), "\n") {
			key, value, ok := strings.Cut(line, ": ")
			switch {
			case !ok:
			case key == "chapter":
				p.ch = course.MustLookup(value)
			case key == "want":
				e.wants = append(e.wants, value)
			case key == "unanalysable":
				e.unanalysable = value
			}
		}
		require.NotEmpty(t, p.ch.ID, "%s says which chapter it is", name)
		for _, f := range a.Files {
			p.files[f.Name] = string(f.Data)
		}
		probes = append(probes, p)
		expects[p.name] = e
	}
	results := check(t, probes)
	for _, p := range probes {
		t.Run(p.name, func(t *testing.T) {
			got, e := results[p.name], expects[p.name]
			if e.unanalysable != "" {
				assert.Contains(t, got.Unanalysable, e.unanalysable)
				return
			}
			assert.Empty(t, got.Unanalysable)
			findings := map[string][]Finding{} // "file:line rule" → findings there
			for _, f := range got.Findings {
				k := fmt.Sprintf("%s:%d %s", filepath.Base(f.File), f.Line, f.Rule)
				findings[k] = append(findings[k], f)
			}
			for _, w := range e.wants {
				fields := strings.SplitN(w, " ", 3)
				require.Len(t, fields, 3, "want: FILE:LINE RULE TEXT")
				k := fields[0] + " " + fields[1]
				fs := findings[k]
				if assert.NotEmpty(t, fs, "a finding at %s; found:\n%s", k, Explain(got.Findings)) {
					assert.Contains(t, fs[0].Message, fields[2], k)
					delete(findings, k)
				}
			}
			var extra []string
			for k := range findings {
				extra = append(extra, k+": "+findings[k][0].Message)
			}
			sort.Strings(extra)
			assert.Empty(t, extra, "findings nobody wanted")
		})
	}
}

// Every stub as shipped and every reference solution keeps the rules.
func TestEveryStubAndSolutionKeepsTheRules(t *testing.T) {
	r := root(t)
	opts := Options{Root: r, Dirs: map[string]Config{}}
	for _, ch := range course.All() {
		opts.Dirs[ch.SolutionDir()] = ForChapter(ch)
		if files := ch.Pristine(); len(files) > 0 {
			// The stubs as shipped, whatever the exercise folders hold now.
			opts.Dirs[ch.Dir()] = ForChapter(ch)
			if opts.Overlay == nil {
				opts.Overlay = map[string][]byte{}
			}
			for name, text := range files {
				opts.Overlay[filepath.Join(r, filepath.FromSlash(ch.Dir()), name)] = []byte(text)
			}
			entries, err := os.ReadDir(filepath.Join(r, filepath.FromSlash(ch.Dir())))
			require.NoError(t, err)
			for _, e := range entries {
				if _, shipped := files[e.Name()]; !shipped && strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
					t.Skipf("%s holds %s, which is not part of the stub: run this test on a fresh checkout", ch.Dir(), e.Name())
				}
			}
		}
	}
	res, err := Check(context.Background(), opts)
	require.NoError(t, err)
	for dir, r := range res {
		assert.True(t, r.OK(), "%s keeps the rules:\n%s%s", dir, r.Unanalysable, Explain(r.Findings))
	}
}

// The reference solution plus one line that breaks a rule is refused, with
// that rule named. Each case adds its lines after the first line of the
// named file that matches after.
func TestASolutionPlusOneLineBreaksARule(t *testing.T) {
	cases := []struct {
		name, ch, file, after, add string
		rule                       Rule
		says                       string
	}{
		{"the wall clock", "ex04", "server.go", `^func Serve\(`, "\t_ = time.Now()", WallClock, "uses time.Now"},
		{"a real sleep", "ex07", "server.go", `^func Serve\(`, "\ttime.Sleep(time.Millisecond)", WallClock, "uses time.Sleep"},
		{"a package-level map", "ex04", "server.go", `^func Serve\(`, "\tshared[string(self)]++", PackageState, "changes the package-level variable shared"},
		{"the world object", "ex04", "server.go", `^func Serve\(`, "\t_ = p.World()", World, "sim.Proc.World"},
		{"a logger's setter", "ex08", "server.go", `^func Serve\(`, "\tlog.SetPrefix(string(self))", ProcessState, "uses log.SetPrefix"},
		{"a go statement", "ex06", "server.go", `^func Serve\(`, "\tgo func() {}()", Goroutines, "a go statement"},
		{"a package-level counter", "ex02", "store.go", `^func Open\(`, "\topened++", PackageState, "changes the package-level variable opened"},
	}
	extra := map[string]string{ // declarations the added lines need, appended to the file
		"a package-level map":     "\nvar shared = map[string]int{}\n",
		"a package-level counter": "\nvar opened int\n",
	}
	imports := map[Rule]string{WallClock: "time", ProcessState: "log"}
	var probes []probe
	for i, c := range cases {
		ch := course.MustLookup(c.ch)
		dir := filepath.Join(root(t), filepath.FromSlash(ch.SolutionDir()))
		p := probe{name: fmt.Sprintf("oneline%d", i), ch: ch, files: map[string]string{}}
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			p.files[e.Name()] = string(data)
		}
		text, ok := p.files[c.file]
		require.True(t, ok, "%s has %s", ch.SolutionDir(), c.file)
		text = insertAfter(t, text, c.after, c.add)
		if imp := imports[c.rule]; imp != "" && !strings.Contains(text, "\""+imp+"\"") {
			text = strings.Replace(text, "import (", "import (\n\t\""+imp+"\"", 1)
		}
		p.files[c.file] = text + extra[c.name]
		probes = append(probes, p)
	}
	results := check(t, probes)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := results[probes[i].name]
			var rules []string
			for _, f := range got.Findings {
				rules = append(rules, string(f.Rule))
				if f.Rule == c.rule {
					assert.Contains(t, f.Message, c.says)
					return
				}
			}
			t.Errorf("no %s finding; found %v (%s)", c.rule, rules, got.Unanalysable)
		})
	}
}

// insertAfter adds lines after the first line matching the pattern.
func insertAfter(t *testing.T, text, pattern, add string) string {
	t.Helper()
	re := regexp.MustCompile(pattern)
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if re.MatchString(l) {
			return strings.Join(append(lines[:i+1], append([]string{add}, lines[i+1:]...)...), "\n")
		}
	}
	t.Fatalf("no line matches %q", pattern)
	return ""
}

// cgo runs C code the rules cannot check: a file that imports "C" is
// refused by name (in a module of its own on disk, where cgo can run).
func TestCgoIsRefusedByName(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                 "module " + course.Module + "\n\ngo 1.24\n",
		"exercises/ex01-x/c.go":  "package ex01\n\n// int answer(void) { return 42; }\nimport \"C\"\n\n// Answer asks C.\nfunc Answer() int { return int(C.answer()) }\n",
		"exercises/ex01-x/go.go": "package ex01\n\nvar _ = Answer\n",
	}
	for name, text := range files {
		file := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
		require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
	}
	res, err := Check(context.Background(), Options{Root: dir, Dirs: map[string]Config{"exercises/ex01-x": ForChapter(course.MustLookup("ex01"))}})
	require.NoError(t, err)
	r := res["exercises/ex01-x"]
	if os.Getenv("CGO_ENABLED") == "0" {
		assert.True(t, r.OK(), "without cgo the go command builds no C: %s", Explain(r.Findings))
		return
	}
	if assert.Len(t, r.Findings, 1, "%s%s", r.Unanalysable, Explain(r.Findings)) {
		f := r.Findings[0]
		assert.Equal(t, Imports, f.Rule)
		assert.Equal(t, "exercises/ex01-x/c.go", f.File)
		assert.Equal(t, 4, f.Line)
	}
}
