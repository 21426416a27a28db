package rules

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"iter"
	"path"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/edge"
	"golang.org/x/tools/go/ast/inspector"

	"onehistory/internal/harness/course"
)

// New returns the analyzer of the world's rules. configFor gives the
// configuration of the package with the given import path, or false for a
// package the rules do not cover (which is then not analysed).
//
// Each diagnostic's Category is the Rule it breaks. Test files are not
// analysed: the grader hides the learner's and brings its own.
func New(configFor func(pkgPath string) (Config, bool)) *analysis.Analyzer {
	return newAnalyzer(configFor, false)
}

// newAnalyzer is New; tagged ends each message with its rule, for go vet,
// which prints messages only.
func newAnalyzer(configFor func(pkgPath string) (Config, bool), tagged bool) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:             "worldrules",
		Doc:              "the rules a chapter's code keeps so that the simulated world is the only world it touches",
		Requires:         []*analysis.Analyzer{inspect.Analyzer},
		RunDespiteErrors: true,
		Run: func(pass *analysis.Pass) (any, error) {
			cfg, ok := configFor(pass.Pkg.Path())
			if !ok {
				return nil, nil
			}
			c := &run{pass: pass, cfg: cfg, info: pass.TypesInfo, tagged: tagged}
			c.all(pass.ResultOf[inspect.Analyzer].(*inspector.Inspector))
			return nil, nil
		},
	}
}

// Analyzer is the analyzer for the workbook's own chapters, found by the
// folder of the package (exercises/exNN-slug or solutions/exNN-slug); `go
// vet -vettool` runs it.
var Analyzer = newAnalyzer(ConfigForPath, true)

// ConfigForPath finds the chapter of a package below course.Module by its
// folder: onehistory/exercises/ex04-the-write-that-arrived-late is ex04's.
func ConfigForPath(pkgPath string) (Config, bool) {
	rel, ok := strings.CutPrefix(pkgPath, course.Module+"/")
	if !ok {
		return Config{}, false
	}
	parts := strings.Split(rel, "/")
	if len(parts) != 2 || (parts[0] != "exercises" && parts[0] != "solutions") {
		return Config{}, false
	}
	id, _, _ := strings.Cut(parts[1], "-")
	ch, ok := course.Lookup(id)
	if !ok {
		return Config{}, false
	}
	return ForChapter(ch), true
}

// The harness's packages, as the rules name them.
var (
	simPath   = path.Join(course.Module, "internal/harness/sim")
	drillPath = path.Join(course.Module, "internal/harness/suites/ex03suite/drill")
)

// refused lists functions, types and methods of allowed packages that step
// outside the world, by "import/path.Name" (methods: "import/path.Type.Name"),
// with the rule they break and what to use instead.
var refused = map[string]struct {
	rule Rule
	use  string
}{
	"time.Now":                  {WallClock, "p.Now() for the true virtual time, p.Clock() for the node's own clock"},
	"time.Since":                {WallClock, "p.Now() minus an earlier p.Now()"},
	"time.Until":                {WallClock, "a deadline minus p.Now()"},
	"time.Sleep":                {WallClock, "p.Sleep(d)"},
	"time.After":                {WallClock, "a sim.Queue's GetTimeout or a sim.Cond's WaitTimeout"},
	"time.AfterFunc":            {WallClock, "p.Go with a p.Sleep inside"},
	"time.NewTimer":             {WallClock, "a sim.Queue's GetTimeout or a sim.Cond's WaitTimeout"},
	"time.NewTicker":            {WallClock, "a p.Go loop that calls p.Sleep"},
	"time.Tick":                 {WallClock, "a p.Go loop that calls p.Sleep"},
	"time.Timer":                {WallClock, "a sim.Queue's GetTimeout or a sim.Cond's WaitTimeout"},
	"time.Ticker":               {WallClock, "a p.Go loop that calls p.Sleep"},
	"context.WithTimeout":       {WallClock, "a timeout on the call itself (p.Call's timeout)"},
	"context.WithDeadline":      {WallClock, "a timeout on the call itself (p.Call's timeout)"},
	"context.WithTimeoutCause":  {WallClock, "a timeout on the call itself (p.Call's timeout)"},
	"context.WithDeadlineCause": {WallClock, "a timeout on the call itself (p.Call's timeout)"},
	"context.AfterFunc":         {Goroutines, "p.Go"},
	"sync.WaitGroup.Go":         {Goroutines, "p.Go, and a sim.Group to wait"},
	"log.SetOutput":             {ProcessState, "a logger of your own, log.New(w, prefix, flags)"},
	"log.SetFlags":              {ProcessState, "a logger of your own, log.New(w, prefix, flags)"},
	"log.SetPrefix":             {ProcessState, "a logger of your own, log.New(w, prefix, flags)"},
	"log.Default":               {ProcessState, "a logger of your own, log.New(w, prefix, flags)"},
	"log.Writer":                {ProcessState, "a logger of your own, log.New(w, prefix, flags), and the writer you gave it"},
	"log.Fatal":                 {ProcessState, "a returned error or a panic (they end only your node's process, not every node's)"},
	"log.Fatalf":                {ProcessState, "a returned error or a panic (they end only your node's process, not every node's)"},
	"log.Fatalln":               {ProcessState, "a returned error or a panic (they end only your node's process, not every node's)"},
	"log.Logger.Fatal":          {ProcessState, "a returned error or a panic (they end only your node's process, not every node's)"},
	"log.Logger.Fatalf":         {ProcessState, "a returned error or a panic (they end only your node's process, not every node's)"},
	"log.Logger.Fatalln":        {ProcessState, "a returned error or a panic (they end only your node's process, not every node's)"},
	"fmt.Scan":                  {ProcessState, "requests that come to your node through p.Serve"},
	"fmt.Scanf":                 {ProcessState, "requests that come to your node through p.Serve"},
	"fmt.Scanln":                {ProcessState, "requests that come to your node through p.Serve"},
	"time.LoadLocation":         {WallClock, "durations, or times in UTC"},
	simPath + ".New":            {World, "the *sim.Proc your code is given"},
	simPath + ".World":          {World, "the *sim.Proc your code is given"},
	simPath + ".Trace":          {World, "p.Logf to note what your node decided"},
	drillPath + ".New":          {World, "the *drill.Cluster your drill is given"},
	simPath + ".Proc.World":     {World, "p itself: p.Call, p.Disk, p.Go, p.Sleep"},
}

// run holds one pass's state.
type run struct {
	pass   *analysis.Pass
	cfg    Config
	info   *types.Info
	tagged bool
}

func (c *run) report(rule Rule, pos token.Pos, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if c.tagged {
		msg += " [" + string(rule) + ": " + rule.Title() + "]"
	}
	c.pass.Report(analysis.Diagnostic{Pos: pos, Category: string(rule), Message: msg})
}

// isTestFile reports whether the file holding pos is a test file, which the
// rules leave alone.
func (c *run) isTestFile(pos token.Pos) bool {
	f := c.pass.Fset.File(pos)
	return f != nil && strings.HasSuffix(f.Name(), "_test.go")
}

func (c *run) all(in *inspector.Inspector) {
	for _, name := range c.pass.OtherFiles {
		if !strings.HasSuffix(name, ".go") {
			c.pass.Report(analysis.Diagnostic{Pos: c.fileStart(), Category: string(Files),
				Message: fmt.Sprintf("the go command would build %s into the chapter: a chapter's folder may hold Go files only", path.Base(name))})
		}
	}
	for _, f := range c.pass.Files {
		if c.isTestFile(f.Pos()) {
			continue
		}
		c.imports(f)
		c.directives(f)
	}
	for cur := range c.files(in) {
		switch n := cur.Node().(type) {
		case *ast.GoStmt:
			c.report(Goroutines, n.Pos(), "a go statement starts a goroutine the world does not run")
		case *ast.Ident:
			c.ident(cur, n)
		case *ast.SelectorExpr:
			c.selector(n)
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				c.foreignElement(lhs)
			}
		case *ast.IncDecStmt:
			c.foreignElement(n.X)
		case *ast.StarExpr:
			c.insides(cur, n)
		}
	}
	c.packageVariables(in)
}

// files visits every node of the package's files but its test files.
func (c *run) files(in *inspector.Inspector) iter.Seq[inspector.Cursor] {
	return func(yield func(inspector.Cursor) bool) {
		root := in.Root()
		for _, f := range c.pass.Files {
			if c.isTestFile(f.Pos()) {
				continue
			}
			fc, ok := root.FindNode(f)
			if !ok {
				continue
			}
			for cur := range fc.Preorder() {
				if !yield(cur) {
					return
				}
			}
		}
	}
}

// fileStart is a position to report whole-folder findings at.
func (c *run) fileStart() token.Pos {
	for _, f := range c.pass.Files {
		if !c.isTestFile(f.Pos()) {
			return f.Package
		}
	}
	return token.NoPos
}

// imports checks the file's imports against the chapter's list.
func (c *run) imports(f *ast.File) {
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil || c.cfg.Allowed[p] {
			continue
		}
		reason := whyNot[p]
		switch {
		case reason != "":
		case strings.HasPrefix(p, course.Module+"/"):
			reason = "a chapter's code may use the harness's sim, kube and check packages (and what its chapter adds), not the suites, the solutions, other chapters or the grader"
		default:
			reason = "it is not on the list of packages a chapter may import"
		}
		c.report(Imports, imp.Pos(), "imports %q, which a chapter's code may not: %s", p, reason)
	}
}

// directives refuses the compiler directives that reach around the rules.
func (c *run) directives(f *ast.File) {
	for _, g := range f.Comments {
		for _, cm := range g.List {
			for _, d := range []string{"//go:linkname", "//go:embed", "//go:cgo_", "//go:wasmimport", "//go:wasmexport"} {
				if strings.HasPrefix(cm.Text, d) {
					c.report(Files, cm.Pos(), "the directive %s reaches around the rules", strings.TrimSuffix(strings.TrimPrefix(d, "//"), "_"))
				}
			}
		}
	}
}

// key is the "import/path.Name" (or "import/path.Type.Name" for a method
// or field) of an object of another package, or "".
func key(obj types.Object) string {
	if obj == nil || obj.Pkg() == nil {
		return ""
	}
	if fn, ok := obj.(*types.Func); ok {
		if recv := fn.Signature().Recv(); recv != nil {
			if named := namedOf(recv.Type()); named != nil {
				return obj.Pkg().Path() + "." + named.Obj().Name() + "." + obj.Name()
			}
			return ""
		}
	}
	if v, ok := obj.(*types.Var); ok && v.IsField() {
		return ""
	}
	return obj.Pkg().Path() + "." + obj.Name()
}

// namedOf is the named type of t or of what t points to, or nil.
func namedOf(t types.Type) *types.Named {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := types.Unalias(t).(*types.Named)
	return n
}

// ident checks one identifier's use of an object of another package (a
// refused function or type, the harness's answer), and a foreign
// package-level variable referred to through a dot import.
func (c *run) ident(cur inspector.Cursor, id *ast.Ident) {
	obj := c.info.Uses[id]
	if obj == nil || obj.Pkg() == nil || obj.Pkg() == c.pass.Pkg {
		return
	}
	k := key(obj)
	if r, ok := refused[k]; ok {
		c.report(r.rule, id.Pos(), "uses %s; use %s instead", short(k), r.use)
	} else if strings.HasPrefix(k, simPath+".World.") {
		c.report(World, id.Pos(), "uses %s, a method of the whole world; use the *sim.Proc your code is given", short(k))
	}
	if c.cfg.Forbidden[k] {
		c.report(Answer, id.Pos(), "uses %s, the harness's own answer to what chapter %s asks you to build", short(k), c.cfg.Chapter)
	}
	if v, ok := obj.(*types.Var); ok && !v.IsField() && v.Parent() == v.Pkg().Scope() {
		// A package-level variable of another package: pkg.V or, through a
		// dot import, V.
		at := cur
		if p := cur.Parent(); p.Valid() {
			if sel, ok := p.Node().(*ast.SelectorExpr); ok && sel.Sel == id {
				at = p
			}
		}
		c.variable(at, v, false)
	}
}

// selector checks a method or field selection on a value whose type is the
// harness's answer (a MemStore reached without naming it), and selections
// that do not resolve but name the world (p.World() on a Proc that has no
// such method: the compiler says "undefined", the rules say why).
func (c *run) selector(sel *ast.SelectorExpr) {
	if s := c.info.Selections[sel]; s != nil {
		if named := namedOf(s.Recv()); named != nil && named.Obj().Pkg() != nil {
			k := named.Obj().Pkg().Path() + "." + named.Obj().Name()
			if c.cfg.Forbidden[k] {
				c.report(Answer, sel.Sel.Pos(), "uses %s, the harness's own answer to what chapter %s asks you to build", short(k)+"."+sel.Sel.Name, c.cfg.Chapter)
			}
		}
		return
	}
	if _, isPkg := c.info.Uses[identOf(sel.X)].(*types.PkgName); isPkg {
		return
	}
	t := c.info.TypeOf(sel.X)
	if named := namedOf(t); named != nil && named.Obj().Pkg() != nil {
		k := named.Obj().Pkg().Path() + "." + named.Obj().Name() + "." + sel.Sel.Name
		if r, ok := refused[k]; ok && c.info.Uses[sel.Sel] == nil {
			c.report(r.rule, sel.Sel.Pos(), "reaches for %s; use %s instead", short(k), r.use)
		}
	}
}

func identOf(x ast.Expr) *ast.Ident {
	id, _ := ast.Unparen(x).(*ast.Ident)
	return id
}

// insides refuses copying the value a harness pointer points to (*p for a
// *sim.Proc, *p.Disk()): what the harness keeps inside its values is the
// world's, and a copy of it could be printed or compared field by field.
func (c *run) insides(cur inspector.Cursor, star *ast.StarExpr) {
	if tv, ok := c.info.Types[star]; !ok || !tv.IsValue() || cur.ParentEdgeKind() == edge.AssignStmt_Lhs {
		return
	}
	n := namedOf(c.info.TypeOf(star))
	if n == nil || n.Obj().Pkg() == nil || !strings.HasPrefix(n.Obj().Pkg().Path(), course.Module+"/internal/") || !hidesFields(n) {
		return
	}
	c.report(World, star.Pos(), "copies the insides of a %s.%s, which belong to the harness", n.Obj().Pkg().Name(), n.Obj().Name())
}

// short names an object by its package's name rather than its path:
// "onehistory/internal/harness/sim.Proc.World" is "sim.Proc.World".
func short(k string) string { return path.Base(k) }
