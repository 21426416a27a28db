package engine

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/course"
)

// StdAllowed lists the standard packages a chapter's code may import: data
// structures, text, encoding, errors, time values and synchronization.
// Nothing here opens files, starts processes, exits, reads the clock's
// randomness or reaches below Go's safety: time, randomness, the network
// and the disk come from the simulated world (package sim), and a package
// such as os, syscall, unsafe, os/exec, plugin, reflect or runtime/debug
// could tamper with grading.
var StdAllowed = []string{
	"bufio", "bytes", "cmp", "container/heap", "container/list", "container/ring", "context",
	"encoding/base64", "encoding/binary", "encoding/hex", "encoding/json",
	"errors", "fmt", "hash", "hash/adler32", "hash/crc32", "hash/crc64", "hash/fnv", "hash/maphash",
	"io", "iter", "log", "maps", "math", "math/bits", "path", "regexp", "slices", "sort",
	"strconv", "strings", "sync", "sync/atomic", "text/tabwriter", "time",
	"unicode", "unicode/utf16", "unicode/utf8",
}

// HarnessAllowed lists the harness packages (below course.Module) every
// chapter's code may import; a chapter's registry entry may add more
// (course.Chapter.Imports).
var HarnessAllowed = []string{"internal/harness/sim", "internal/harness/kube", "internal/harness/check"}

// why says why some packages are refused, for the report.
var why = map[string]string{
	"os":            "it reads and writes files, starts processes and ends the process",
	"os/exec":       "it runs other programs",
	"os/signal":     "it intercepts the process's signals",
	"syscall":       "it talks to the operating system directly",
	"unsafe":        "it reaches below Go's type safety (and go:linkname into any package)",
	"plugin":        "it loads code the grader never saw",
	"reflect":       "it reaches into the harness's values",
	"runtime":       "it controls the Go runtime",
	"runtime/debug": "it controls the Go runtime and writes to open files",
	"io/ioutil":     "it reads and writes files",
	"io/fs":         "it reads files",
	"path/filepath": "it walks the file system",
	"net":           "the network comes from the simulated world",
	"math/rand":     "randomness comes from the simulated world, so that every failure replays from its seed",
	"math/rand/v2":  "randomness comes from the simulated world, so that every failure replays from its seed",
	"crypto/rand":   "randomness comes from the simulated world, so that every failure replays from its seed",
	"testing":       "the hidden suite does the testing",
	"embed":         "a chapter's code is its Go files",
	"C":             "cgo runs C code the grader cannot check",
}

// buildExts are the kinds of file, besides Go, that the go command would
// build into a package: assembly, C and friends, and object files.
var buildExts = map[string]bool{
	".s": true, ".sx": true, ".c": true, ".cc": true, ".cpp": true, ".cxx": true, ".m": true,
	".h": true, ".hh": true, ".hpp": true, ".hxx": true, ".f": true, ".for": true, ".f90": true,
	".syso": true, ".swig": true, ".swigcxx": true,
}

// guard checks a chapter's code before it is built: only Go files (no
// assembly, C or object files the go command would also build), importing
// only what StdAllowed, HarnessAllowed and the chapter's Imports allow, and
// using none of the harness identifiers the chapter's registry entry
// forbids (its Forbidden: the harness's own answer to the chapter), nor
// assigning to the harness's package variables. It returns the first
// violation, or nil. Test files are not looked at: the grader hides them.
//
// The check is syntactic and strict: it reads every Go file in the folder,
// whatever its build constraints say.
func guard(ch course.Chapter, absDir, dir string, src result.Source, pristine map[string]string) *result.Problem {
	entries, err := os.ReadDir(absDir)
	if err != nil {
		return &result.Problem{Kind: result.Setup, Summary: err.Error()}
	}
	files := map[string][]byte{}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			continue
		}
		if ext := strings.ToLower(filepath.Ext(name)); buildExts[ext] {
			return forbidden(dir+"/"+name, 0, fmt.Sprintf("%s/%s: a chapter's folder may hold Go files only; the go command would build this %s file into the chapter, beyond what the grader can check", dir, name, ext), "")
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || src == result.Stubs {
			continue
		}
		data, err := os.ReadFile(filepath.Join(absDir, name))
		if err != nil {
			return &result.Problem{Kind: result.Setup, Summary: err.Error()}
		}
		files[name] = data
		names = append(names, name)
	}
	if src == result.Stubs {
		for name, text := range pristine {
			files[name] = []byte(text)
			names = append(names, name)
		}
	}
	sort.Strings(names)

	allowed := map[string]bool{}
	for _, p := range StdAllowed {
		allowed[p] = true
	}
	for _, p := range append(append([]string{}, HarnessAllowed...), ch.Imports...) {
		allowed[path.Join(course.Module, p)] = true
	}
	banned := map[string]bool{}
	for _, id := range ch.Forbidden {
		banned[path.Join(course.Module, id)] = true
	}

	fset := token.NewFileSet()
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, files[name], parser.SkipObjectResolution)
		if err != nil {
			continue // the compiler will tell
		}
		rel := dir + "/" + name
		local := map[string]string{} // the file's name for an imported harness package → its path
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			line := fset.Position(imp.Pos()).Line
			if !allowed[p] {
				reason := why[p]
				switch {
				case reason != "":
				case strings.HasPrefix(p, course.Module+"/"):
					reason = "a chapter's code may use the harness's sim, kube and check packages, not the suites, the solutions, other chapters or the grader"
				default:
					reason = "it is not on the list of packages a chapter may import"
				}
				return forbidden(rel, line, fmt.Sprintf("%s:%d: imports %q, which a chapter's code may not: %s", rel, line, p, reason), allowedText(ch))
			}
			if !strings.HasPrefix(p, course.Module+"/") {
				continue
			}
			name := path.Base(p)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			if name == "." {
				return forbidden(rel, line, fmt.Sprintf("%s:%d: imports %q with a dot: name the harness's package where you use it", rel, line, p), "")
			}
			local[name] = p
		}
		var problem *result.Problem
		ast.Inspect(f, func(n ast.Node) bool {
			if problem != nil {
				return false
			}
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if p, ok := harnessName(n, local); ok && banned[p+"."+n.Sel.Name] {
					line := fset.Position(n.Pos()).Line
					id := path.Base(p) + "." + n.Sel.Name
					problem = forbidden(rel, line, fmt.Sprintf("%s:%d: uses %s, the harness's own answer to what chapter %s asks you to build: code that wraps or calls it earns nothing; build it yourself in %s", rel, line, id, ch.ID, dir), "")
				}
			case *ast.AssignStmt:
				for _, lhs := range n.Lhs {
					problem = changesHarness(fset, rel, lhs, local)
					if problem != nil {
						break
					}
				}
			case *ast.IncDecStmt:
				problem = changesHarness(fset, rel, n.X, local)
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					problem = changesHarness(fset, rel, n.X, local)
				}
			}
			return problem == nil
		})
		if problem != nil {
			return problem
		}
	}
	return nil
}

// harnessName reports the import path of a selector pkg.Name on a harness
// package's local name.
func harnessName(sel *ast.SelectorExpr, local map[string]string) (string, bool) {
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", false
	}
	p, ok := local[id.Name]
	return p, ok
}

// changesHarness reports an assignment to (or the address of) a harness
// package's variable, or a part of one: the hidden suite shares those
// variables with the chapter's code.
func changesHarness(fset *token.FileSet, rel string, x ast.Expr, local map[string]string) *result.Problem {
	for {
		switch e := x.(type) {
		case *ast.ParenExpr:
			x = e.X
			continue
		case *ast.StarExpr:
			x = e.X
			continue
		case *ast.IndexExpr:
			x = e.X
			continue
		case *ast.SelectorExpr:
			if p, ok := harnessName(e, local); ok {
				line := fset.Position(e.Pos()).Line
				return forbidden(rel, line, fmt.Sprintf("%s:%d: changes %s.%s, a variable of the harness that the hidden suite relies on", rel, line, path.Base(p), e.Sel.Name), "")
			}
			x = e.X
			continue
		}
		return nil
	}
}

func forbidden(file string, line int, summary, output string) *result.Problem {
	return &result.Problem{Kind: result.Forbidden, File: file, Line: line, Summary: summary, Output: output}
}

// allowedText lists what a chapter's code may import, for the report.
func allowedText(ch course.Chapter) string {
	harness := append(append([]string{}, HarnessAllowed...), ch.Imports...)
	for i, p := range harness {
		harness[i] = path.Join(course.Module, p)
	}
	return "A chapter's code may import:\n  " + strings.Join(StdAllowed, " ") + "\n  " + strings.Join(harness, " ")
}
