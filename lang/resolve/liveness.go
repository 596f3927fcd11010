package resolve

import "github.com/tref-lang/tref/lang/ast"

// Liveness holds where the evaluator must drop variables that die on a
// control-flow edge rather than at a read. Each list names variables that
// may still hold a value there; dropping one that was already moved out is
// a no-op.
type Liveness struct {
	// Then and Else list, for an if statement, the variables to drop on
	// entering that branch (or, for a missing else, on falling through):
	// live in the other branch, dead in this one.
	Then map[*ast.IfStmt][]*ast.Binding
	Else map[*ast.IfStmt][]*ast.Binding
	// Exit lists, for a for or while loop, the variables to drop when the
	// loop ends because its range is exhausted or its condition is false.
	Exit map[ast.Stmt][]*ast.Binding
	// Short lists, for `and`/`or`, the variables read only by the right
	// operand, dropped when it is skipped.
	Short map[*ast.BinaryExpr][]*ast.Binding
	// CondThen and CondElse list, for a conditional expression, the
	// variables to drop on taking that branch: read by the other branch
	// only.
	CondThen map[*ast.CondExpr][]*ast.Binding
	CondElse map[*ast.CondExpr][]*ast.Binding
}

// The analysis is a backward liveness pass over each unit's structured
// control flow (loops iterate to a fixpoint). Only "tracked" variables
// take part: frame slots not captured by any closure, and top-level
// globals no function or test refers to (when Options.TrackGlobals).
// Cells and other globals live until their scope or the module ends.

// liveness runs the analysis over the top-level code, each test block and
// each function, writing LastUse marks and returning the edge drops.
func (r *resolver) liveness(f *ast.File) *Liveness {
	out := &Liveness{
		Then:  map[*ast.IfStmt][]*ast.Binding{},
		Else:  map[*ast.IfStmt][]*ast.Binding{},
		Exit:  map[ast.Stmt][]*ast.Binding{},
		Short: map[*ast.BinaryExpr][]*ast.Binding{},

		CondThen: map[*ast.CondExpr][]*ast.Binding{},
		CondElse: map[*ast.CondExpr][]*ast.Binding{},
	}
	var top []*ast.Binding
	for _, b := range r.top.locals {
		if b.Kind == ast.Local {
			top = append(top, b)
		}
	}
	mod := top
	if r.opts.TrackGlobals && !r.opts.REPL {
		for _, b := range r.globals {
			if b.Kind == ast.Global && !r.usedInFn[b] && !r.imported[b] {
				mod = append(mod, b)
			}
		}
	}
	newLive(mod, out).stmts(f.Stmts, nil, nil)
	for _, t := range r.mod.Tests {
		if t.Body != nil {
			newLive(top, out).stmts(t.Body.Stmts, nil, nil)
		}
	}
	for _, fn := range r.fns {
		var tracked []*ast.Binding
		for _, b := range fn.Locals {
			if b.Kind == ast.Local {
				tracked = append(tracked, b)
			}
		}
		if fn.Body != nil {
			newLive(tracked, out).stmts(fn.Body.Stmts, nil, nil)
		}
	}
	return out
}

// set is a bit set over a unit's tracked variables. Operations return new
// sets; nil is the empty set.
type set []uint64

func (s set) has(i int) bool { return i/64 < len(s) && s[i/64]&(1<<(i%64)) != 0 }

func (s set) with(i int) set {
	n := max(len(s), i/64+1)
	t := make(set, n)
	copy(t, s)
	t[i/64] |= 1 << (i % 64)
	return t
}

func (s set) without(i int) set {
	if !s.has(i) {
		return s
	}
	t := append(set(nil), s...)
	t[i/64] &^= 1 << (i % 64)
	return t
}

func (s set) union(u set) set {
	if len(u) > len(s) {
		s, u = u, s
	}
	t := append(set(nil), s...)
	for i, w := range u {
		t[i] |= w
	}
	return t
}

// minus is s \ u.
func (s set) minus(u set) set {
	t := append(set(nil), s...)
	for i := range t {
		if i < len(u) {
			t[i] &^= u[i]
		}
	}
	return t
}

func (s set) equal(u set) bool {
	for i := range max(len(s), len(u)) {
		var a, b uint64
		if i < len(s) {
			a = s[i]
		}
		if i < len(u) {
			b = u[i]
		}
		if a != b {
			return false
		}
	}
	return true
}

type live struct {
	idx  map[*ast.Binding]int
	vars []*ast.Binding
	out  *Liveness
}

// loopCtx gives the live sets at a loop's break and continue targets.
type loopCtx struct{ brk, cont set }

func newLive(tracked []*ast.Binding, out *Liveness) *live {
	l := &live{idx: map[*ast.Binding]int{}, vars: tracked, out: out}
	for i, b := range tracked {
		l.idx[b] = i
	}
	return l
}

// list turns a set into the bindings it holds.
func (l *live) list(s set) []*ast.Binding {
	var bs []*ast.Binding
	for i, b := range l.vars {
		if s.has(i) {
			bs = append(bs, b)
		}
	}
	return bs
}

// def handles a write of id: it reports whether the stored value is dead
// at once (marking id) and returns the live set before the write.
func (l *live) def(id *ast.Ident, out set) set {
	if id == nil || id.Binding == nil {
		return out
	}
	i, ok := l.idx[id.Binding]
	if !ok {
		id.LastUse = false
		return out
	}
	id.LastUse = !out.has(i)
	return out.without(i)
}

func (l *live) stmts(list []ast.Stmt, out set, ctx *loopCtx) set {
	for i := len(list) - 1; i >= 0; i-- {
		out = l.stmt(list[i], out, ctx)
	}
	return out
}

func (l *live) block(b *ast.Block, out set, ctx *loopCtx) set {
	if b == nil {
		return out
	}
	return l.stmts(b.Stmts, out, ctx)
}

func (l *live) stmt(st ast.Stmt, out set, ctx *loopCtx) set {
	switch st := st.(type) {
	case *ast.LetStmt:
		return l.expr(st.Value, l.def(st.Name, out))
	case *ast.UnpackStmt:
		for i := len(st.Names) - 1; i >= 0; i-- {
			out = l.def(st.Names[i], out)
		}
		return l.expr(st.Value, out)
	case *ast.AssignStmt:
		if m, ok := st.Value.(*ast.MutateExpr); ok && m.Plain {
			return l.expr(m.Call, out) // the call alone: nothing assigned
		}
		if st.Op == "=" {
			return l.expr(st.Value, l.def(st.Target, out))
		}
		// x op= v reads x (keeping it: the evaluator holds its own
		// reference while v is evaluated), evaluates v, then writes x.
		in := l.expr(st.Value, l.def(st.Target, out))
		if i, ok := l.idx[st.Target.Binding]; ok {
			in = in.with(i)
		}
		return in
	case *ast.FnStmt:
		return l.params(st.Fn, l.def(st.Name, out))
	case *ast.ReturnStmt:
		return l.expr(st.Value, nil)
	case *ast.IfStmt:
		thenIn := l.block(st.Then, out, ctx)
		elseIn := out
		if st.Else != nil {
			elseIn = l.stmt(st.Else, out, ctx)
		}
		setDrops(l, l.out.Then, st, elseIn.minus(thenIn))
		setDrops(l, l.out.Else, st, thenIn.minus(elseIn))
		return l.expr(st.Cond, thenIn.union(elseIn))
	case *ast.ForStmt:
		var v = -1
		if st.Var != nil && st.Var.Binding != nil {
			if i, ok := l.idx[st.Var.Binding]; ok {
				v = i
			}
		}
		head := out
		var bodyIn set
		for {
			bodyIn = l.block(st.Body, head, &loopCtx{brk: out, cont: head})
			next := bodyIn
			if v >= 0 {
				next = next.without(v)
			}
			next = next.union(out)
			if next.equal(head) {
				break
			}
			head = next
		}
		if st.Var != nil {
			st.Var.LastUse = v >= 0 && !bodyIn.has(v)
		}
		setDrops(l, l.out.Exit, ast.Stmt(st), head.minus(out))
		return l.expr(st.Iter, head)
	case *ast.WhileStmt:
		head := l.expr(st.Cond, out)
		var bodyIn set
		for {
			bodyIn = l.block(st.Body, head, &loopCtx{brk: out, cont: head})
			next := l.expr(st.Cond, bodyIn.union(out))
			if next.equal(head) {
				break
			}
			head = next
		}
		setDrops(l, l.out.Exit, ast.Stmt(st), bodyIn.minus(out))
		return head
	case *ast.BranchStmt:
		if ctx == nil {
			return out
		}
		if st.Keyword == "break" {
			return ctx.brk
		}
		return ctx.cont
	case *ast.TestStmt:
		return out // runs separately, after the top level
	case *ast.AssertStmt:
		msgIn := out
		if st.Msg != nil {
			msgIn = l.expr(st.Msg, out)
		}
		return l.expr(st.Cond, out.union(msgIn))
	case *ast.ImportStmt:
		return l.def(st.Name, out)
	case *ast.DelStmt:
		if st.Name != nil && st.Name.Binding != nil {
			if i, ok := l.idx[st.Name.Binding]; ok {
				return out.without(i)
			}
		}
		return out
	case *ast.ExprStmt:
		return l.expr(st.X, out)
	case *ast.Block:
		return l.block(st, out, ctx)
	}
	return out
}

// setDrops records the variables of s as the drops of one edge of the
// construct k (a branch of an if or a conditional expression, a skipped
// right operand of and/or, a loop's exit).
func setDrops[K comparable](l *live, m map[K][]*ast.Binding, k K, s set) {
	if bs := l.list(s); len(bs) > 0 {
		m[k] = bs
	} else {
		delete(m, k)
	}
}

// params handles the default values a function literal evaluates where it
// is defined, in order.
func (l *live) params(fn *ast.FnExpr, out set) set {
	if fn == nil {
		return out
	}
	for i := len(fn.Params) - 1; i >= 0; i-- {
		out = l.expr(fn.Params[i].Default, out)
	}
	return out
}

// expr walks e in reverse evaluation order: out is the live set after e
// has been evaluated, the result the live set before.
func (l *live) expr(e ast.Expr, out set) set {
	switch e := e.(type) {
	case *ast.Ident:
		if e.Binding == nil {
			return out
		}
		i, ok := l.idx[e.Binding]
		if !ok {
			e.LastUse = false
			return out
		}
		e.LastUse = !out.has(i)
		return out.with(i)
	case *ast.ListExpr:
		for i := len(e.Elems) - 1; i >= 0; i-- {
			out = l.expr(e.Elems[i], out)
		}
		return out
	case *ast.FStringExpr:
		// Backwards: a field's value, then its spec's fields, in order.
		for i := len(e.Parts) - 1; i >= 0; i-- {
			p := e.Parts[i]
			for k := len(p.SpecParts) - 1; k >= 0; k-- {
				if x := p.SpecParts[k].X; x != nil {
					out = l.expr(x, out)
				}
			}
			if p.X != nil {
				out = l.expr(p.X, out)
			}
		}
		return out
	case *ast.RecordExpr:
		for i := len(e.Fields) - 1; i >= 0; i-- {
			out = l.expr(e.Fields[i].Value, out)
			out = l.expr(e.Fields[i].KeyExpr, out) // nil for a fixed key
		}
		return out
	case *ast.FnExpr:
		return l.params(e, out)
	case *ast.BinaryExpr:
		if e.Op == "and" || e.Op == "or" {
			yIn := l.expr(e.Y, out)
			setDrops(l, l.out.Short, e, yIn.minus(out))
			return l.expr(e.X, yIn.union(out))
		}
		return l.expr(e.X, l.expr(e.Y, out))
	case *ast.UnaryExpr:
		return l.expr(e.X, out)
	case *ast.StarExpr:
		return l.expr(e.X, out)
	case *ast.CondExpr:
		thenIn, elseIn := l.expr(e.Then, out), l.expr(e.Else, out)
		setDrops(l, l.out.CondThen, e, elseIn.minus(thenIn))
		setDrops(l, l.out.CondElse, e, thenIn.minus(elseIn))
		return l.expr(e.Cond, thenIn.union(elseIn))
	case *ast.CallExpr:
		for i := len(e.Args) - 1; i >= 0; i-- {
			out = l.expr(e.Args[i].Value, out)
		}
		return l.expr(e.Fn, out)
	case *ast.SliceExpr:
		out = l.expr(e.Step, out)
		out = l.expr(e.Hi, out)
		return l.expr(e.Lo, out)
	case *ast.IndexExpr:
		for i := len(e.Indices) - 1; i >= 0; i-- {
			out = l.expr(e.Indices[i], out)
		}
		return l.expr(e.X, out)
	case *ast.IndexSetExpr:
		// x, the indices, then the value: read in that order.
		return l.expr(e.Index, l.expr(e.Value, out))
	case *ast.MutateExpr:
		return l.expr(e.Call, out)
	case *ast.FieldExpr:
		return l.expr(e.X, out)
	case *ast.ParenExpr:
		return l.expr(e.X, out)
	}
	return out
}
