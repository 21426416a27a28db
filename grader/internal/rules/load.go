package rules

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"onehistory/internal/harness/course"
)

// Options say which folders to check, and how to run the go command.
type Options struct {
	Root string            // the module root, absolute
	Go   string            // the go command ("go" when empty)
	Env  []string          // its environment (os.Environ() when nil)
	Dirs map[string]Config // the folders to check, relative to Root, slash-separated

	// Overlay replaces or adds files, by absolute path, as the go
	// command's -overlay does (the rules' own tests use it).
	Overlay map[string][]byte
}

// Result is what the rules found in one folder.
type Result struct {
	Findings []Finding // sorted by file and line
	// Unanalysable, when not empty, says why the folder could not be
	// analysed (a file that does not parse, a package the go command could
	// not list): the rules could not see everything the compiler might
	// build. The grader then builds the chapter to tell a compile error
	// from code the rules cannot see, and refuses the latter.
	Unanalysable string
}

// OK reports whether the folder keeps every rule.
func (r Result) OK() bool { return len(r.Findings) == 0 && r.Unanalysable == "" }

// Check loads each folder's package as the go command would build it (its
// build constraints, its cgo, its compiled files), without its test files,
// and runs the rules on it. It returns one result per folder; an error
// only when the go command could not be run at all.
func Check(ctx context.Context, opts Options) (map[string]Result, error) {
	if len(opts.Dirs) == 0 {
		return map[string]Result{}, nil
	}
	env, cleanup, err := goEnv(opts)
	if err != nil {
		return nil, err
	}
	defer cleanup()

	byPath := map[string]string{} // import path → folder
	var patterns []string
	overlay := map[string][]byte{}
	for file, data := range opts.Overlay {
		overlay[file] = data
	}
	for dir := range opts.Dirs {
		byPath[path.Join(course.Module, dir)] = dir
		patterns = append(patterns, "./"+dir)
		hideTests(filepath.Join(opts.Root, filepath.FromSlash(dir)), overlay)
	}
	sort.Strings(patterns)
	cfg := &packages.Config{
		Context: ctx,
		Mode:    packages.LoadSyntax,
		Dir:     opts.Root,
		Env:     env,
		Tests:   false,
		Overlay: overlay,
		// As the grader builds: the build cache serves any copy of the
		// workbook, wherever it sits.
		BuildFlags: []string{"-trimpath"},
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("the go command could not list the chapters' packages: %v", err)
	}

	results := map[string]Result{}
	var analysable []*packages.Package
	for _, pkg := range pkgs {
		dir, ok := byPath[pkg.PkgPath]
		if !ok {
			continue
		}
		if findings := cgo(pkg, opts.Root); len(findings) > 0 {
			// What the rules would read is what cgo made of the code; the
			// learner's own file is what breaks the rule.
			results[dir] = Result{Findings: findings}
			continue
		}
		if why := unanalysable(pkg, opts.Root); why != "" {
			results[dir] = Result{Unanalysable: why}
		}
		if len(pkg.Syntax) > 0 && pkg.Types != nil {
			analysable = append(analysable, pkg)
		}
	}
	a := New(func(p string) (Config, bool) {
		c, ok := opts.Dirs[byPath[p]]
		return c, ok && byPath[p] != ""
	})
	graph, err := checker.Analyze([]*analysis.Analyzer{a}, analysable, nil)
	if err != nil {
		return nil, err
	}
	for _, act := range graph.Roots {
		dir := byPath[act.Package.PkgPath]
		r := results[dir]
		if act.Err != nil && r.Unanalysable == "" {
			r.Unanalysable = "the rules could not analyse it: " + act.Err.Error()
		}
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.PositionFor(d.Pos, false) // a //line comment moves nothing
			r.Findings = append(r.Findings, Finding{
				Rule: Rule(d.Category), File: relative(opts.Root, pos.Filename),
				Line: pos.Line, Column: pos.Column, Message: d.Message,
			})
		}
		Sort(r.Findings)
		results[dir] = r
	}
	for dir := range opts.Dirs {
		if _, ok := results[dir]; !ok {
			results[dir] = Result{Unanalysable: "the go command listed no package in " + dir}
		}
	}
	return results, nil
}

// hideTests lays, over each test file in dir that names another package
// or does not parse, a file that only names the package: the grader hides
// the learner's test files from the build, and such a file must not stop
// the go command from listing the rest.
func hideTests(dir string, overlay map[string][]byte) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	name := ""
	var tests []string
	for _, e := range entries {
		file := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir() || !strings.HasSuffix(e.Name(), ".go"):
		case strings.HasSuffix(e.Name(), "_test.go"):
			tests = append(tests, file)
		case name == "":
			var src any // the file on disk, unless an overlay replaces it
			if data, ok := overlay[file]; ok {
				src = data
			}
			if f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.PackageClauseOnly); err == nil {
				name = f.Name.Name
			}
		}
	}
	if name == "" {
		return
	}
	for _, file := range tests {
		if _, ok := overlay[file]; ok {
			continue
		}
		// A test file of the package or of its external tests lists as it
		// is; only another costs an overlay, which the go command does not
		// cache.
		if f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.PackageClauseOnly); err == nil && (f.Name.Name == name || f.Name.Name == name+"_test") {
			continue
		}
		overlay[file] = []byte("package " + name + "\n")
	}
}

// cgo finds the files of a package that import "C": the go command
// compiles what cgo generates from them rather than the files themselves.
func cgo(pkg *packages.Package, root string) []Finding {
	var findings []Finding
	for _, name := range pkg.GoFiles {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, imp := range f.Imports {
			if imp.Path.Value == `"C"` {
				findings = append(findings, Finding{Rule: Imports, File: relative(root, name), Line: fset.PositionFor(imp.Pos(), false).Line,
					Message: `imports "C", which a chapter's code may not: ` + whyNot["C"]})
			}
		}
	}
	return findings
}

// unanalysable says why the package cannot be analysed in full, or "".
// Type errors do not count (nor the go command's own report of one): the
// rules run on what the type checker made of the code, and the build
// reports the errors themselves.
func unanalysable(pkg *packages.Package, root string) string {
	for _, e := range pkg.Errors {
		if e.Kind != packages.ParseError {
			continue // a type error, or the compiler's word on one: the build tells it
		}
		msg := e.Msg
		if e.Pos != "" && e.Pos != "-" {
			msg = relative(root, e.Pos) + ": " + msg
		}
		return msg
	}
	if len(pkg.Syntax) != len(pkg.CompiledGoFiles) {
		return fmt.Sprintf("of the %d files the compiler would build, %d could be read", len(pkg.CompiledGoFiles), len(pkg.Syntax))
	}
	return ""
}

// relative names a file by its path below root, slash-separated.
func relative(root, file string) string {
	if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(file)
}

// goEnv is the environment for the go command that go/packages runs: it
// runs "go" from PATH, so a go command given by path comes first on PATH
// (through a link named go when it has another name).
func goEnv(opts Options) ([]string, func(), error) {
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(withoutVar(env, "GOWORK"), "GOWORK=off")
	if opts.Go == "" || opts.Go == "go" {
		return env, func() {}, nil
	}
	bin, err := exec.LookPath(opts.Go)
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Dir(bin)
	cleanup := func() {}
	if base := filepath.Base(bin); base != "go" && base != "go.exe" {
		tmp, err := os.MkdirTemp("", "onehistory-go-")
		if err != nil {
			return nil, nil, err
		}
		if err := os.Symlink(bin, filepath.Join(tmp, "go")); err != nil {
			os.RemoveAll(tmp)
			return nil, nil, err
		}
		dir, cleanup = tmp, func() { os.RemoveAll(tmp) }
	}
	pathVar := dir
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = dir + string(os.PathListSeparator) + v
		}
	}
	return append(withoutVar(env, "PATH"), "PATH="+pathVar), cleanup, nil
}

func withoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
