package rules

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/edge"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// packageVariables checks every package-level variable of the chapter's
// own package: each use must leave it as initialisation left it.
func (c *run) packageVariables(in *inspector.Inspector) {
	own := map[*types.Var]bool{}
	for _, f := range c.pass.Files {
		if c.isTestFile(f.Pos()) {
			continue
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					v, ok := c.info.Defs[name].(*types.Var)
					if !ok || name.Name == "_" {
						continue
					}
					own[v] = true
					if len(vs.Values) == len(vs.Names) {
						c.initialiser(v, vs.Values[i])
					}
				}
			}
		}
	}
	if len(own) == 0 {
		return
	}
	for cur := range c.files(in) {
		id, ok := cur.Node().(*ast.Ident)
		if !ok {
			continue
		}
		v, ok := c.info.Uses[id].(*types.Var)
		if !ok || !own[v] || initialising(cur) {
			continue
		}
		c.variable(cur, v, true)
	}
}

// initialiser refuses a package-level variable whose value may keep state
// out of sight: a function made by a call (a closure over the call's
// variables, a method value bound to its receiver), or an error holding a
// value of the chapter's own type that is not a plain value. Calling it
// from any node would change what every node sees.
func (c *run) initialiser(v *types.Var, init ast.Expr) {
	t := v.Type()
	switch {
	case isError(t):
		if c.ownNonValue(init) {
			c.report(PackageState, init.Pos(), "the package-level error %s holds a %s, whose methods may change it for every node; make it with errors.New or fmt.Errorf",
				v.Name(), types.TypeString(c.info.TypeOf(init), c.qualifier))
		}
	case holdsFunc(t):
		if bad := c.madeFunc(init); bad != nil {
			c.report(PackageState, bad.Pos(), "the package-level variable %s holds a function made by a call or bound to a value, which may keep state that every node shares; use a function declared with func, or a function literal", v.Name())
		}
	}
}

// ownNonValue reports whether x is a value of the chapter's own type that
// is not a plain value (a pointer, say), or is made by the chapter's own
// function.
func (c *run) ownNonValue(x ast.Expr) bool {
	x = ast.Unparen(x)
	if call, ok := x.(*ast.CallExpr); ok {
		if tv, ok := c.info.Types[call.Fun]; ok && tv.IsType() && len(call.Args) == 1 {
			return c.ownNonValue(call.Args[0])
		}
		fn, _ := typeutil.Callee(c.info, call).(*types.Func)
		return fn == nil || fn.Pkg() == c.pass.Pkg
	}
	t := c.info.TypeOf(x)
	if t == nil {
		return true
	}
	if n := namedOf(t); n != nil && n.Obj().Pkg() == c.pass.Pkg {
		return !valueOnly(t)
	}
	return false
}

// holdsFunc reports whether a value of type t holds a function.
func holdsFunc(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Signature:
		return true
	case *types.Array:
		return holdsFunc(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if holdsFunc(u.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}

// madeFunc finds, in a package-level initialiser, a function value that is
// neither a declared function nor a function literal, or returns nil.
func (c *run) madeFunc(x ast.Expr) ast.Expr {
	switch x := ast.Unparen(x).(type) {
	case *ast.FuncLit, *ast.BasicLit:
		return nil
	case *ast.Ident:
		switch c.info.Uses[x].(type) {
		case *types.Func, *types.Var, *types.Const, *types.Nil:
			return nil // a declared function, or a variable checked in its own right
		}
	case *ast.SelectorExpr:
		if s := c.info.Selections[x]; s != nil {
			if s.Kind() == types.MethodVal {
				return x // a method value, bound to its receiver
			}
			return nil // a method expression (T.M) or a field
		}
		switch c.info.Uses[x.Sel].(type) {
		case *types.Func, *types.Var, *types.Const:
			return nil // another package's function or variable
		}
	case *ast.CompositeLit:
		for _, e := range x.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				e = kv.Value
			}
			if bad := c.madeFunc(e); bad != nil {
				return bad
			}
		}
		return nil
	case *ast.CallExpr:
		if tv, ok := c.info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			return c.madeFunc(x.Args[0]) // a conversion
		}
	}
	if t := c.info.TypeOf(x); t != nil && !holdsFunc(t) {
		return nil
	}
	return x
}

// initialising reports whether cur is in code that runs once, as the
// package initialises: an init function's body or a package-level
// variable's initialiser, but not a function literal inside them, which
// may run at any time later.
func initialising(cur inspector.Cursor) bool {
	for p := cur.Parent(); p.Valid(); p = p.Parent() {
		switch n := p.Node().(type) {
		case *ast.FuncLit:
			return false
		case *ast.FuncDecl:
			return n.Recv == nil && n.Name.Name == "init"
		case *ast.GenDecl:
			return true // a package-level declaration
		}
	}
	return false
}

// use is what an expression derived from a variable is used for.
type use int

const (
	read  use = iota // a copy or a look: nothing can change through it
	write            // the variable, or what it points to, changes here
	share            // a reference to it goes where it can change later
)

// variable checks one use of a package-level variable: the chapter's own
// (own) or another package's. It climbs from the variable through the
// expressions derived from it (a field, an element, what it points to, a
// slice of it) to the place the result is used, and reports a write, or a
// reference handed on to where it could be written.
func (c *run) variable(cur inspector.Cursor, v *types.Var, own bool) {
	cur, how := c.derive(cur, own)
	if how == read {
		how = c.context(cur, own)
	}
	if how == read {
		return
	}
	pos := cur.Node().Pos()
	name := v.Name()
	if !own {
		name = v.Pkg().Name() + "." + v.Name()
	}
	t := types.TypeString(v.Type(), c.qualifier)
	switch {
	case own && how == write:
		c.report(PackageState, pos, "changes the package-level variable %s%s", name, in(cur))
	case own:
		c.report(PackageState, pos, "hands on the package-level variable %s (a %s), through which it can change%s", name, t, in(cur))
	case how == write:
		c.report(ForeignState, pos, "changes %s, a variable of package %s", name, v.Pkg().Name())
	default:
		c.report(ForeignState, pos, "keeps a reference to %s (a %s), a variable of package %s, through which it can change", name, t, v.Pkg().Name())
	}
}

// qualifier names other packages by their name, as their code is written:
// kube.StatusError, not onehistory/internal/harness/kube.StatusError.
func (c *run) qualifier(p *types.Package) string {
	if p == c.pass.Pkg {
		return ""
	}
	return p.Name()
}

// in says which function the cursor is in: " in (*Server).apply".
func in(cur inspector.Cursor) string {
	lit := ""
	for p := cur.Parent(); p.Valid(); p = p.Parent() {
		switch n := p.Node().(type) {
		case *ast.FuncLit:
			lit = " a function literal in"
		case *ast.FuncDecl:
			if n.Recv != nil && len(n.Recv.List) == 1 {
				return " in" + lit + " " + recvName(n.Recv.List[0].Type) + "." + n.Name.Name
			}
			return " in" + lit + " " + n.Name.Name
		}
	}
	return ""
}

func recvName(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.StarExpr:
		return "(*" + recvName(x.X) + ")"
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}

// derive climbs from cur through the expressions derived from it: a field,
// an element, what it points to, a slice, a conversion, an assertion. It
// stops at the first use that is not a derivation, or at a method call,
// which it judges: a pointer method on the variable itself changes it.
func (c *run) derive(cur inspector.Cursor, own bool) (inspector.Cursor, use) {
	for {
		parent := cur.Parent()
		if !parent.Valid() {
			return cur, read
		}
		switch cur.ParentEdgeKind() {
		case edge.ParenExpr_X, edge.IndexExpr_X, edge.IndexListExpr_X, edge.StarExpr_X,
			edge.TypeAssertExpr_X, edge.SliceExpr_X:
			cur = parent
			continue
		case edge.CallExpr_Args:
			// A conversion derives a value that may alias the original.
			call := parent.Node().(*ast.CallExpr)
			if tv, ok := c.info.Types[call.Fun]; ok && tv.IsType() {
				cur = parent
				continue
			}
		case edge.SelectorExpr_X:
			sel := parent.Node().(*ast.SelectorExpr)
			s := c.info.Selections[sel]
			if s == nil {
				return cur, read // not a selection the type checker understood
			}
			if s.Kind() == types.FieldVal {
				cur = parent
				continue
			}
			return parent, c.method(cur, s, own)
		}
		return cur, read
	}
}

// method judges a method called on (or taken as a value from) an
// expression derived from a package-level variable.
func (c *run) method(cur inspector.Cursor, s *types.Selection, own bool) use {
	x := c.info.TypeOf(cur.Node().(ast.Expr))
	sig, _ := s.Obj().Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil || x == nil {
		return read
	}
	_, recvIsPtr := types.Unalias(sig.Recv().Type()).(*types.Pointer)
	_, xIsPtr := types.Unalias(x.Underlying()).(*types.Pointer)
	switch {
	case recvIsPtr && !xIsPtr:
		return write // x.M() takes &x: M may change x
	case !own:
		return read // another package's own method on its own value
	case valueOnly(x) || isError(x):
		return read
	}
	return share // a method called through a pointer or an interface may change what it points to
}

// context judges the place where an expression derived from a variable
// ends up.
func (c *run) context(cur inspector.Cursor, own bool) use {
	e, _ := cur.Node().(ast.Expr)
	t := c.info.TypeOf(e)
	copyable := t != nil && (valueOnly(t) || isError(t))
	parent := cur.Parent()
	k, idx := cur.ParentEdge()
	switch k {
	case edge.AssignStmt_Lhs:
		return write
	case edge.IncDecStmt_X:
		return write
	case edge.UnaryExpr_X:
		switch parent.Node().(*ast.UnaryExpr).Op {
		case token.AND:
			return write
		case token.ARROW:
			return share // a receive from a shared channel
		}
		return read
	case edge.RangeStmt_Key, edge.RangeStmt_Value:
		if parent.Node().(*ast.RangeStmt).Tok == token.ASSIGN {
			return write
		}
		return read
	case edge.RangeStmt_X:
		rs := parent.Node().(*ast.RangeStmt)
		if _, isChan := types.Unalias(t.Underlying()).(*types.Chan); isChan {
			return share
		}
		if rs.Value != nil && !isBlank(rs.Value) {
			if vt := c.info.TypeOf(rs.Value); vt != nil && !valueOnly(vt) && !isError(vt) {
				return share
			}
		}
		return read
	case edge.SendStmt_Chan:
		return share
	case edge.BinaryExpr_X, edge.BinaryExpr_Y, edge.SwitchStmt_Tag, edge.CaseClause_List,
		edge.CallExpr_Fun, edge.ExprStmt_X, edge.IndexExpr_Index, edge.SliceExpr_Low,
		edge.SliceExpr_High, edge.SliceExpr_Max, edge.IfStmt_Cond, edge.ForStmt_Cond:
		return read
	case edge.ValueSpec_Values:
		if !own {
			break
		}
		// Another package-level variable's initialiser: that variable is
		// checked in its own right.
		return read
	case edge.CallExpr_Args:
		call := parent.Node().(*ast.CallExpr)
		if b, ok := typeutil.Callee(c.info, call).(*types.Builtin); ok {
			switch b.Name() {
			case "len", "cap":
				return read
			case "delete", "clear":
				return write
			case "copy", "append":
				if idx == 0 {
					return write
				}
			}
			if copyable {
				return read
			}
			return share
		}
		if copyable {
			return read
		}
		if !own {
			// Another package's function given another package's value,
			// as in crc32.Checksum(b, crc32.IEEETable): it may read it, but
			// not where it would take anything (any, a type parameter),
			// such as json.Unmarshal or maps.Copy, which write into it.
			if fn, ok := typeutil.Callee(c.info, call).(*types.Func); ok && fn.Pkg() != c.pass.Pkg {
				if p := param(fn.Signature(), idx); p != nil && !takesAnything(p) {
					return read
				}
			}
		}
		return share
	}
	if copyable {
		return read
	}
	return share
}

// param is the type of the idx-th argument's parameter in sig.
func param(sig *types.Signature, idx int) types.Type {
	ps := sig.Params()
	switch {
	case sig.Variadic() && idx >= ps.Len()-1:
		return ps.At(ps.Len() - 1).Type().(*types.Slice).Elem()
	case idx < ps.Len():
		return ps.At(idx).Type()
	}
	return nil
}

// takesAnything reports whether a parameter of type t takes a value of
// any type: an empty interface or a type parameter.
func takesAnything(t types.Type) bool {
	switch u := types.Unalias(t).(type) {
	case *types.TypeParam:
		return true
	case *types.Interface:
		return u.Empty()
	case *types.Named:
		if i, ok := u.Underlying().(*types.Interface); ok {
			return i.Empty()
		}
	}
	return false
}

func isBlank(x ast.Expr) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == "_"
}

// isError reports whether t is the error interface: an error value gives
// nothing to change but through a type assertion, which the rules follow.
func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

// immutablePointers are pointer types of allowed packages whose values
// nobody can change: no exported fields, no method that changes them.
var immutablePointers = map[string]bool{
	"time.Location":            true,
	"encoding/base64.Encoding": true,
}

// valueOnly reports whether a value of type t holds nothing shared: a copy
// of it is independent of the original (numbers, strings, functions, and
// structs and arrays of them).
func valueOnly(t types.Type) bool { return valueOnlySeen(t, map[types.Type]bool{}) }

func valueOnlySeen(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return true
	}
	seen[t] = true
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		if n := namedOf(p.Elem()); n != nil && n.Obj().Pkg() != nil && immutablePointers[n.Obj().Pkg().Path()+"."+n.Obj().Name()] {
			return true
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Kind() != types.UnsafePointer
	case *types.Signature:
		return true
	case *types.Array:
		return valueOnlySeen(u.Elem(), seen)
	case *types.Struct:
		for i := range u.NumFields() {
			if !valueOnlySeen(u.Field(i).Type(), seen) {
				return false
			}
		}
		return true
	}
	return false
}

// foreignElement refuses writing into an element of a value whose type
// another package declares as an array, slice or map, or overwriting a
// value of another package's type whose fields it keeps to itself: such
// values may be the package's own, shared with every caller (crc32.MakeTable
// hands every caller of a known polynomial the same table).
func (c *run) foreignElement(lhs ast.Expr) {
	switch x := ast.Unparen(lhs).(type) {
	case *ast.IndexExpr:
		if n := namedOf(c.info.TypeOf(x.X)); n != nil && c.foreign(n) {
			switch n.Underlying().(type) {
			case *types.Array, *types.Slice, *types.Map:
				c.report(ForeignState, x.Pos(), "changes an element of a %s, which package %s may share with every caller", n.Obj().Pkg().Name()+"."+n.Obj().Name(), n.Obj().Pkg().Name())
			}
		}
	case *ast.StarExpr:
		if n := namedOf(c.info.TypeOf(x)); n != nil && c.foreign(n) && hidesFields(n) {
			c.report(ForeignState, x.Pos(), "overwrites a %s, a value whose insides belong to package %s", n.Obj().Pkg().Name()+"."+n.Obj().Name(), n.Obj().Pkg().Name())
		}
	}
}

// foreign reports whether n is declared in another package.
func (c *run) foreign(n *types.Named) bool {
	return n.Obj().Pkg() != nil && n.Obj().Pkg() != c.pass.Pkg
}

// hidesFields reports whether n is a struct with an unexported field.
func hidesFields(n *types.Named) bool {
	s, ok := n.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range s.NumFields() {
		if !s.Field(i).Exported() {
			return true
		}
	}
	return false
}
