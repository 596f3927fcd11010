// Package resolve is tref's static pass between the parser and the
// evaluator. It checks names (undefined names and re-declarations are
// errors, with "did you mean" suggestions), places every variable (a slot
// in its function's frame, a cell shared with closures, or a module
// global), and marks each variable's last use so the evaluator can drop a
// tensor the moment it becomes dead.
//
// Scoping: every block opens a scope; a function's parameters and the top
// level of its body share one scope; a for loop's variable lives in the
// loop body's scope (a fresh variable per iteration). Names declared at a
// file's top level are globals: code at the top level sees those declared
// above it, while function bodies and test blocks see all of them (so
// functions may call each other in any order).
//
// Liveness marks (see liveness.go) are written into the AST: ast.Ident.LastUse
// on a read means the variable is dead after that read; on the name being
// declared or assigned (let, =, op=, fn, for) it means the value stored is
// never read, so the evaluator drops it at once. Drops on control-flow
// edges (a branch that does not use a variable the other branch uses, a
// loop exit, a short-circuit) are returned in Liveness.
package resolve

import (
	"fmt"
	"slices"
	"sort"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/lang/pos"
)

// Options configure the resolution of one file.
type Options struct {
	// Universe is the set of builtin names, visible everywhere unless
	// shadowed.
	Universe map[string]bool
	// Predeclared are globals that exist before the file (the REPL
	// session's earlier bindings). Their Index values are kept.
	Predeclared []*ast.Binding
	// REPL allows re-declaring a global at the top level (it rebinds the
	// existing global) and never drops globals early.
	REPL bool
	// TrackGlobals lets the evaluator drop a global after its last use at
	// the top level when no function or test block refers to it. Only for
	// a file run as the main script: an imported module's globals are its
	// exports and must live on.
	TrackGlobals bool
	// NoLiveness skips the last-use analysis: variables then live until
	// their scope ends or they are rebound (for measuring what liveness
	// saves).
	NoLiveness bool
}

// Module is what the resolver returns for a file, beyond the annotations
// it writes into the AST (Ident.Binding, Ident.Builtin, Ident.LastUse,
// Block.Scope, File.Scope, FnExpr.Locals, FnExpr.FreeVars).
type Module struct {
	// Globals are the file's top-level bindings (after any predeclared
	// ones), indexed by Binding.Index.
	Globals []*ast.Binding
	// Locals are the slots of the top-level code's frame: variables of
	// blocks nested in the top level, including test blocks.
	Locals []*ast.Binding
	// Tests are the file's test blocks in order.
	Tests []*ast.TestStmt
	// Imports are the file's import statements in order.
	Imports []*ast.ImportStmt
	// Live holds the drops on control-flow edges.
	Live *Liveness
}

// File resolves f in place. It returns the module description and, when
// the file has static errors, a pos.ErrorList.
func File(f *ast.File, opts Options) (*Module, error) {
	// The resolver, the liveness analysis and the evaluator's compiler
	// walk the tree by recursion: refuse a tree deeper than the parser
	// makes before any of them starts.
	for _, st := range f.Stmts {
		if n := ast.TooDeep(st, ast.MaxDepth); n != nil {
			return nil, pos.ErrorList{{Pos: n.Span(), Msg: ast.DepthError(n)}}
		}
	}
	r := &resolver{
		opts:     opts,
		fileAll:  map[string]*ast.Binding{},
		owner:    map[*ast.Binding]*unit{},
		usedInFn: map[*ast.Binding]bool{},
		imported: map[*ast.Binding]bool{},
		mod:      &Module{},
	}
	r.top = &unit{}
	fileScope := &scope{u: r.top, names: map[string]*ast.Binding{}, file: true, ast: &ast.Scope{}}
	for _, b := range opts.Predeclared {
		r.globals = append(r.globals, b)
		r.fileAll[b.Name] = b
		fileScope.names[b.Name] = b
		r.owner[b] = r.top
	}
	r.hoist(f.Stmts)
	f.Scope = fileScope.ast
	r.stmts(fileScope, f.Stmts)
	r.mod.Globals = r.globals
	r.mod.Locals = r.top.locals
	if opts.NoLiveness {
		r.mod.Live = &Liveness{}
	} else {
		r.mod.Live = r.liveness(f)
	}
	return r.mod, r.errs.Err()
}

type resolver struct {
	opts    Options
	errs    pos.ErrorList
	mod     *Module
	top     *unit
	globals []*ast.Binding
	// fileAll holds every top-level declaration of the file, created
	// before the walk so that function bodies can refer to globals
	// declared below them.
	fileAll map[string]*ast.Binding
	owner   map[*ast.Binding]*unit
	// usedInFn marks globals referred to from a function or a test block:
	// they may be read at any time, so they are never dropped early.
	usedInFn map[*ast.Binding]bool
	imported map[*ast.Binding]bool
	fns      []*ast.FnExpr
	// undefined lists the reads of undefined names, so that a later
	// declaration around them can say they came before it.
	undefined []undefinedUse
}

// undefinedUse is a read of a name that was not declared at that point.
type undefinedUse struct {
	name  string
	scope *scope
	err   *pos.Error
}

// unit is a function body, or the file's top-level code (fn == nil): the
// owner of a frame.
type unit struct {
	parent *unit
	fn     *ast.FnExpr
	locals []*ast.Binding
	free   []*ast.Binding
	loops  int
}

type scope struct {
	parent *scope
	u      *unit
	names  map[string]*ast.Binding
	ast    *ast.Scope
	file   bool
	// deferred is set inside function bodies and test blocks: code that
	// runs after the top level has declared its globals.
	deferred bool
}

func (r *resolver) errorf(at ast.Pos, format string, args ...any) {
	r.errs = append(r.errs, &pos.Error{Pos: at, Msg: fmt.Sprintf(format, args...)})
}

// hoist creates the bindings of the top-level declarations, in order.
func (r *resolver) hoist(stmts []ast.Stmt) {
	for _, s := range stmts {
		var ids []*ast.Ident
		switch s := s.(type) {
		case *ast.LetStmt:
			ids = []*ast.Ident{s.Name}
		case *ast.UnpackStmt:
			if s.Let {
				ids = s.Names
			}
		case *ast.FnStmt:
			ids = []*ast.Ident{s.Name}
		case *ast.ImportStmt:
			ids = []*ast.Ident{s.Name}
		}
		for _, id := range ids {
			if id == nil {
				continue
			}
			if _, ok := r.fileAll[id.Name]; ok {
				continue
			}
			b := &ast.Binding{Name: id.Name, Decl: id.At, Kind: ast.Global, Index: len(r.globals)}
			r.globals = append(r.globals, b)
			r.fileAll[id.Name] = b
			r.owner[b] = r.top
		}
	}
}

func (r *resolver) child(s *scope, b *ast.Block) *scope {
	c := &scope{parent: s, u: s.u, names: map[string]*ast.Binding{}, deferred: s.deferred, ast: &ast.Scope{Parent: s.ast}}
	if b != nil {
		b.Scope = c.ast
	}
	return c
}

// declare binds id in scope s.
func (r *resolver) declare(s *scope, id *ast.Ident) *ast.Binding {
	if id == nil {
		return nil
	}
	if prev, dup := s.names[id.Name]; dup {
		id.Binding = prev
		if s.file && r.opts.REPL {
			return prev
		}
		r.errorf(id.At, "%q is already declared in this block (at %s); use \"%s = ...\" to rebind it", id.Name, posText(prev.Decl), id.Name)
		return prev
	}
	var b *ast.Binding
	if s.file {
		b = r.fileAll[id.Name]
		if b == nil { // not a hoisted statement kind; cannot happen for valid trees
			b = &ast.Binding{Name: id.Name, Kind: ast.Global, Index: len(r.globals)}
			r.globals = append(r.globals, b)
			r.fileAll[id.Name] = b
			r.owner[b] = r.top
		}
		b.Decl = id.At
	} else {
		b = &ast.Binding{Name: id.Name, Decl: id.At, Kind: ast.Local, Index: len(s.u.locals)}
		s.u.locals = append(s.u.locals, b)
		r.owner[b] = s.u
	}
	s.names[id.Name] = b
	s.ast.Bindings = append(s.ast.Bindings, b)
	id.Binding = b
	r.declaredLate(s, id)
	return b
}

// declaredLate rewords the undefined-name errors that id, declared in s,
// explains: reads of the name in s or a block inside it, before the
// declaration ("x" is used before its declaration).
func (r *resolver) declaredLate(s *scope, id *ast.Ident) {
	for _, u := range r.undefined {
		if u.name != id.Name {
			continue
		}
		for in := u.scope; in != nil; in = in.parent {
			if in == s {
				u.err.Msg = fmt.Sprintf("%q is used before its declaration (at %s)", id.Name, posText(id.At))
				break
			}
		}
	}
}

func posText(p ast.Pos) string {
	if !p.IsValid() {
		return "an earlier input"
	}
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}

// lookup finds the binding id refers to from scope s, recording captures.
// It returns nil when the name is not a variable.
func (r *resolver) lookup(s *scope, name string) *ast.Binding {
	var b *ast.Binding
	for sc := s; sc != nil; sc = sc.parent {
		if b = sc.names[name]; b != nil {
			break
		}
		if sc.file && s.deferred {
			if b = r.fileAll[name]; b != nil {
				break
			}
		}
	}
	if b == nil {
		return nil
	}
	if b.Kind == ast.Global {
		if s.deferred {
			r.usedInFn[b] = true
		}
		return b
	}
	if owner := r.owner[b]; owner != s.u {
		b.Kind = ast.Cell
		for u := s.u; u != nil && u != owner; u = u.parent {
			if !containsBinding(u.free, b) {
				u.free = append(u.free, b)
			}
		}
	}
	return b
}

func containsBinding(list []*ast.Binding, b *ast.Binding) bool {
	for _, x := range list {
		if x == b {
			return true
		}
	}
	return false
}

// visible lists the names a "did you mean" may suggest from scope s.
func (r *resolver) visible(s *scope, withBuiltins bool) []string {
	var names []string
	for sc := s; sc != nil; sc = sc.parent {
		for n := range sc.names {
			names = append(names, n)
		}
		if sc.file && s.deferred {
			for n := range r.fileAll {
				names = append(names, n)
			}
		}
	}
	if withBuiltins {
		for n := range r.opts.Universe {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// pythonNames are Python's spellings of tref's keywords.
var pythonNames = map[string]string{
	"null": "none", "nil": "none",
	"elif": "else if", "def": "fn", "lambda": "fn",
}

func didYouMean(name string, candidates []string) string {
	if k, ok := pythonNames[name]; ok {
		return fmt.Sprintf("; tref writes %s", k)
	}
	if h := TorchHint(name, func(n string) bool { return slices.Contains(candidates, n) }); h != "" {
		return h
	}
	if s := suggest(name, candidates); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

// use resolves a read of id.
func (r *resolver) use(s *scope, id *ast.Ident) {
	if b := r.lookup(s, id.Name); b != nil {
		id.Binding = b
		return
	}
	if r.opts.Universe[id.Name] {
		id.Builtin = true
		return
	}
	if r.opts.REPL && s.deferred {
		// At the prompt a function may use a global defined by a later
		// input; reading it before then is a runtime error.
		b := &ast.Binding{Name: id.Name, Kind: ast.Global, Index: len(r.globals)}
		r.globals = append(r.globals, b)
		r.fileAll[id.Name] = b
		r.owner[b] = r.top
		r.usedInFn[b] = true
		id.Binding = b
		return
	}
	r.errorf(id.At, "undefined name %q%s", id.Name, didYouMean(id.Name, r.visible(s, true)))
	r.undefined = append(r.undefined, undefinedUse{name: id.Name, scope: s, err: r.errs[len(r.errs)-1]})
}

// target resolves the variable written by an assignment or del.
// assignable reports whether id names a variable an assignment may
// rebind (not a module, a builtin or an undeclared name).
func (r *resolver) assignable(s *scope, id *ast.Ident) bool {
	b := r.lookup(s, id.Name)
	return b != nil && !r.imported[b]
}

func (r *resolver) target(s *scope, id *ast.Ident, what string) {
	if b := r.lookup(s, id.Name); b != nil {
		id.Binding = b
		if r.imported[b] {
			r.errorf(id.At, "cannot %s module %q", what, id.Name)
		}
		return
	}
	if r.opts.Universe[id.Name] {
		r.errorf(id.At, "cannot %s builtin %q; declare a variable with \"let %s = ...\"", what, id.Name, id.Name)
		return
	}
	r.errorf(id.At, "cannot %s undeclared name %q; declare it with \"let %s = ...\"%s", what, id.Name, id.Name, didYouMean(id.Name, r.visible(s, false)))
}

func (r *resolver) stmts(s *scope, list []ast.Stmt) {
	for _, st := range list {
		r.stmt(s, st)
	}
}

func (r *resolver) block(s *scope, b *ast.Block) {
	if b == nil {
		return
	}
	r.stmts(r.child(s, b), b.Stmts)
}

func (r *resolver) stmt(s *scope, st ast.Stmt) {
	switch st := st.(type) {
	case *ast.LetStmt:
		r.expr(s, st.Value)
		r.declare(s, st.Name)
	case *ast.UnpackStmt:
		r.expr(s, st.Value)
		for _, id := range st.Names {
			if st.Let {
				r.declare(s, id)
			} else {
				r.target(s, id, "assign to")
			}
		}
	case *ast.AssignStmt:
		if m, ok := st.Value.(*ast.MutateExpr); ok && !r.assignable(s, st.Target) {
			m.Plain = true // helper.update(v) on a module: the call
			r.expr(s, m.Call)
			return
		}
		r.expr(s, st.Value)
		if st.Op == "=" {
			r.target(s, st.Target, "assign to")
		} else {
			r.target(s, st.Target, "update")
		}
	case *ast.FnStmt:
		r.declare(s, st.Name)
		if st.Fn != nil && st.Fn.Name == "" && st.Name != nil {
			st.Fn.Name = st.Name.Name
		}
		r.function(s, st.Fn)
	case *ast.ReturnStmt:
		if s.u.fn == nil {
			r.errorf(st.At, "return outside a function")
		}
		r.expr(s, st.Value)
	case *ast.IfStmt:
		r.expr(s, st.Cond)
		r.block(s, st.Then)
		if st.Else != nil {
			r.stmt(s, st.Else)
		}
	case *ast.ForStmt:
		r.expr(s, st.Iter)
		body := r.child(s, st.Body)
		r.declare(body, st.Var)
		s.u.loops++
		if st.Body != nil {
			r.stmts(body, st.Body.Stmts)
		}
		s.u.loops--
	case *ast.WhileStmt:
		r.expr(s, st.Cond)
		s.u.loops++
		r.block(s, st.Body)
		s.u.loops--
	case *ast.BranchStmt:
		if s.u.loops == 0 {
			r.errorf(st.At, "%s outside a loop", st.Keyword)
		}
	case *ast.TestStmt:
		if !s.file {
			r.errorf(st.At, "test blocks must be at the top level of a file")
		}
		r.mod.Tests = append(r.mod.Tests, st)
		t := r.child(s, st.Body)
		t.deferred = true
		saved := s.u.loops
		s.u.loops = 0
		if st.Body != nil {
			r.stmts(t, st.Body.Stmts)
		}
		s.u.loops = saved
	case *ast.AssertStmt:
		r.expr(s, st.Cond)
		r.expr(s, st.Msg)
	case *ast.ImportStmt:
		if !s.file {
			r.errorf(st.At, "import must be at the top level of a file")
		}
		if b := r.declare(s, st.Name); b != nil {
			r.imported[b] = true
		}
		r.mod.Imports = append(r.mod.Imports, st)
	case *ast.DelStmt:
		r.target(s, st.Name, "delete")
	case *ast.ExprStmt:
		r.expr(s, st.X)
	case *ast.Block:
		r.block(s, st)
	case nil:
	default:
		r.errorf(st.Span(), "internal: unknown statement %T", st)
	}
}

// function resolves a function literal defined in scope s.
func (r *resolver) function(s *scope, fn *ast.FnExpr) {
	if fn == nil {
		return
	}
	if fn.Name == "" {
		fn.Name = "lambda"
	}
	for _, p := range fn.Params {
		r.expr(s, p.Default) // defaults are evaluated where the function is defined
	}
	u := &unit{parent: s.u, fn: fn}
	body := &scope{parent: s, u: u, names: map[string]*ast.Binding{}, deferred: true, ast: &ast.Scope{Parent: s.ast}}
	for _, p := range fn.Params {
		r.declare(body, p.Name)
	}
	if fn.Body != nil {
		fn.Body.Scope = body.ast
		r.stmts(body, fn.Body.Stmts)
	}
	fn.Locals = u.locals
	fn.FreeVars = u.free
	r.fns = append(r.fns, fn)
}

func (r *resolver) expr(s *scope, e ast.Expr) {
	switch e := e.(type) {
	case nil:
	case *ast.Ident:
		r.use(s, e)
	case *ast.NumberLit, *ast.StringLit, *ast.BoolLit, *ast.NoneLit:
	case *ast.ListExpr:
		for _, x := range e.Elems {
			r.expr(s, x)
		}
	case *ast.FStringExpr:
		for _, p := range e.Parts {
			r.expr(s, p.X)
			for _, sp := range p.SpecParts {
				r.expr(s, sp.X)
			}
		}
	case *ast.StarExpr:
		r.expr(s, e.X)
	case *ast.CondExpr:
		r.expr(s, e.Cond)
		r.expr(s, e.Then)
		r.expr(s, e.Else)
	case *ast.RecordExpr:
		type key struct {
			text   string
			intKey bool
		}
		seen := map[key]bool{}
		for _, f := range e.Fields {
			if f.Spread || f.KeyExpr != nil {
				r.expr(s, f.KeyExpr)
				r.expr(s, f.Value)
				continue
			}
			if k := (key{f.Key, f.IntKey}); seen[k] {
				r.errorf(f.At, "duplicate field %q in record", f.Key)
			} else {
				seen[k] = true
			}
			r.expr(s, f.Value)
		}
	case *ast.FnExpr:
		r.function(s, e)
	case *ast.BinaryExpr:
		r.expr(s, e.X)
		r.expr(s, e.Y)
	case *ast.UnaryExpr:
		r.expr(s, e.X)
	case *ast.CallExpr:
		r.expr(s, e.Fn)
		seen := map[string]bool{}
		keyword, spreadKw := false, false
		for _, a := range e.Args {
			star, _ := a.Value.(*ast.StarExpr)
			switch {
			case a.Name != "":
				if seen[a.Name] {
					r.errorf(a.At, "keyword argument %q given twice", a.Name)
				}
				seen[a.Name] = true
				keyword = true
			case star != nil && star.Double:
				keyword, spreadKw = true, true
			case keyword && star == nil:
				r.errorf(a.At, "positional argument after keyword arguments")
			case spreadKw:
				r.errorf(a.At, "*spread after a **spread: put the positional arguments first")
			}
			r.expr(s, a.Value)
		}
	case *ast.SliceExpr:
		r.expr(s, e.Lo)
		r.expr(s, e.Hi)
		r.expr(s, e.Step)
	case *ast.IndexExpr:
		r.expr(s, e.X)
		for _, x := range e.Indices {
			r.expr(s, x)
		}
	case *ast.IndexSetExpr:
		r.expr(s, e.Index)
		r.expr(s, e.Value)
	case *ast.MutateExpr:
		r.expr(s, e.Call)
	case *ast.FieldExpr:
		r.expr(s, e.X)
	case *ast.ParenExpr:
		r.expr(s, e.X)
	default:
		r.errorf(e.Span(), "internal: unknown expression %T", e)
	}
}
