package eval

import (
	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/lang/resolve"
)

// The evaluator compiles each resolved file once into a tree of Go
// closures: every variable is already a slot index, every literal a
// ready value, every call site a pointer. Running a statement is then a
// chain of direct calls with no lookups by name.

// ctl says how a statement finished.
type ctl uint8

const (
	ctlNext ctl = iota
	ctlBreak
	ctlContinue
	ctlReturn
)

type stmtFn func(fr *frame) (ctl, error)

// exprFn evaluates an expression and returns an owned value.
type exprFn func(fr *frame) (Value, error)

// moduleCode is a compiled file.
type moduleCode struct {
	file    *ast.File
	res     *resolve.Module
	top     stmtFn
	nlocals int
	tests   []testCode
}

type testCode struct {
	name string
	pos  ast.Pos
	body stmtFn
}

// funcCode is a compiled function literal.
type funcCode struct {
	name   string
	pos    ast.Pos
	params []param
	// npos is the number of parameters a positional argument binds (the
	// first ones); rest and kwrest index the *args and **kwargs
	// parameters in params, -1 when there are none.
	npos, rest, kwrest int
	// simple: no parameter is captured (a cell) and the parameters are
	// the first slots, in order, so a call with one positional argument
	// per parameter stores them as they are (callSimple).
	simple bool
	// fast is the number of arguments of a call that positionalCall
	// evaluates on the Go stack and enters by callSimple: len(params) for
	// a simple function of at most maxFastArgs parameters, else -1.
	fast   int32
	nslots int
	body   stmtFn
	mod    *Module
}

type param struct {
	name string
	slot int
	cell bool
	kind ast.ParamKind
}

// named reports whether a keyword of p's name binds p (not *args or
// **kwargs).
func (p param) named() bool { return p.kind == ast.Positional || p.kind == ast.KeywordOnly }

// locKind says where a variable lives at run time.
type locKind uint8

const (
	locSlot   locKind = iota // a value in the current frame's slot
	locCell                  // a *cell in the current frame's slot
	locFree                  // a cell captured by the current closure
	locGlobal                // a module global
)

type varLoc struct {
	kind locKind
	idx  int
	name string
}

// compiler compiles one function body (or a file's top level).
type compiler struct {
	in   *Interpreter
	mod  *Module
	live *resolve.Liveness
	// own are the bindings whose slots are in the frame being compiled;
	// free maps captured bindings to their index in the closure's cells.
	own  map[*ast.Binding]bool
	free map[*ast.Binding]int
	// replLast is the REPL input's final bare expression, whose value
	// is kept instead of dropped.
	replLast ast.Stmt
	imports  map[*ast.ImportStmt]*Module
}

func (c *compiler) loc(b *ast.Binding) varLoc {
	switch {
	case b.Kind == ast.Global:
		return varLoc{kind: locGlobal, idx: b.Index, name: b.Name}
	case c.own[b]:
		if b.Kind == ast.Cell {
			return varLoc{kind: locCell, idx: b.Index, name: b.Name}
		}
		return varLoc{kind: locSlot, idx: b.Index, name: b.Name}
	}
	return varLoc{kind: locFree, idx: c.free[b], name: b.Name}
}

func (c *compiler) locs(bs []*ast.Binding) []varLoc {
	if len(bs) == 0 {
		return nil
	}
	out := make([]varLoc, len(bs))
	for i, b := range bs {
		out[i] = c.loc(b)
	}
	return out
}

// compileModule compiles a resolved file's top level and test blocks.
func (in *Interpreter) compileModule(m *Module, f *ast.File, res *resolve.Module, imports map[*ast.ImportStmt]*Module, replLast ast.Stmt) *moduleCode {
	c := &compiler{in: in, mod: m, live: res.Live, own: map[*ast.Binding]bool{}, free: map[*ast.Binding]int{}, replLast: replLast, imports: imports}
	for _, b := range res.Locals {
		c.own[b] = true
	}
	mc := &moduleCode{file: f, res: res, nlocals: len(res.Locals)}
	mc.top = c.stmts(f.Stmts)
	for _, t := range res.Tests {
		mc.tests = append(mc.tests, testCode{name: t.Name, pos: t.At, body: c.block(t.Body)})
	}
	return mc
}

// function compiles a function literal's body; the result is the code
// shared by every closure made from it.
func (c *compiler) function(fn *ast.FnExpr) *funcCode {
	fc := &compiler{in: c.in, mod: c.mod, live: c.live, own: map[*ast.Binding]bool{}, free: map[*ast.Binding]int{}, imports: c.imports}
	for _, b := range fn.Locals {
		fc.own[b] = true
	}
	for i, b := range fn.FreeVars {
		fc.free[b] = i
	}
	code := &funcCode{name: fn.Name, pos: fn.At, nslots: len(fn.Locals), mod: c.mod, simple: true, rest: -1, kwrest: -1}
	for i, p := range fn.Params {
		b := p.Name.Binding
		code.params = append(code.params, param{name: p.Name.Name, slot: b.Index, cell: b.Kind == ast.Cell, kind: p.Kind})
		code.simple = code.simple && b.Kind != ast.Cell && b.Index == i && p.Kind == ast.Positional
		switch p.Kind {
		case ast.Positional:
			code.npos++
		case ast.VarArgs:
			code.rest = i
		case ast.VarKeywords:
			code.kwrest = i
		}
	}
	code.fast = -1
	if code.simple && len(code.params) <= maxFastArgs {
		code.fast = int32(len(code.params))
	}
	if fn.Body != nil {
		// The frame's pop releases every slot: no per-block cleanup here.
		code.body = fc.stmts(fn.Body.Stmts)
	} else {
		code.body = nop
	}
	return code
}

func nop(*frame) (ctl, error) { return ctlNext, nil }

// Each statement records its position in the thread as it starts, so that
// a Go panic (a bug) is reported at the statement that caused it.
func (c *compiler) stmts(list []ast.Stmt) stmtFn {
	fns := make([]stmtFn, 0, len(list))
	pos := make([]ast.Pos, 0, len(list))
	for _, s := range list {
		if f := c.stmt(s); f != nil {
			fns = append(fns, f)
			pos = append(pos, s.Span())
		}
	}
	switch len(fns) {
	case 0:
		return nop
	case 1:
		f, p := fns[0], &pos[0]
		return func(fr *frame) (ctl, error) {
			fr.th.stmtPos = p
			return f(fr)
		}
	case 2:
		a, b := fns[0], fns[1]
		pa, pb := &pos[0], &pos[1]
		return func(fr *frame) (ctl, error) {
			fr.th.stmtPos = pa
			if k, err := a(fr); k != ctlNext || err != nil {
				return k, err
			}
			fr.th.stmtPos = pb
			return b(fr)
		}
	}
	return func(fr *frame) (ctl, error) {
		for i, f := range fns {
			fr.th.stmtPos = &pos[i]
			if k, err := f(fr); k != ctlNext || err != nil {
				return k, err
			}
		}
		return ctlNext, nil
	}
}

// scopeSlots lists the frame slots a block declares, and whether any is
// a cell.
func (c *compiler) scopeSlots(s *ast.Scope) (slots []int, cells bool) {
	if s == nil {
		return nil, false
	}
	for _, b := range s.Bindings {
		if b.Kind != ast.Global && c.own[b] {
			slots = append(slots, b.Index)
			cells = cells || b.Kind == ast.Cell
		}
	}
	return slots, cells
}

// block compiles a block that releases its variables when it ends, however
// it ends.
func (c *compiler) block(b *ast.Block) stmtFn {
	if b == nil {
		return nop
	}
	body := c.stmts(b.Stmts)
	slots, cells := c.scopeSlots(b.Scope)
	if len(slots) == 0 {
		return body
	}
	return func(fr *frame) (ctl, error) {
		k, err := body(fr)
		fr.clearSlots(slots)
		if cells {
			fr.th.maybeCollect()
		}
		return k, err
	}
}

func (c *compiler) stmt(s ast.Stmt) stmtFn {
	switch s := s.(type) {
	case *ast.LetStmt:
		return c.let(s)
	case *ast.AssignStmt:
		return c.assign(s)
	case *ast.UnpackStmt:
		return c.unpackStmt(s)
	case *ast.FnStmt:
		return c.fnStmt(s)
	case *ast.ReturnStmt:
		if s.Value == nil {
			return func(fr *frame) (ctl, error) {
				fr.ret = None
				return ctlReturn, nil
			}
		}
		val := c.expr(s.Value)
		general := func(fr *frame) (ctl, error) {
			v, err := val(fr)
			if err != nil {
				return ctlNext, err
			}
			fr.ret = v
			return ctlReturn, nil
		}
		if slot, take, ok := c.slotVar(s.Value); ok && take {
			// return x at x's last use: moved out of its slot in place.
			return func(fr *frame) (ctl, error) {
				if v := fr.slots[slot]; v != nil {
					fr.slots[slot] = nil
					fr.ret = v
					return ctlReturn, nil
				}
				return general(fr)
			}
		}
		return general
	case *ast.IfStmt:
		return c.ifStmt(s)
	case *ast.ForStmt:
		return c.forStmt(s)
	case *ast.WhileStmt:
		return c.whileStmt(s)
	case *ast.BranchStmt:
		k := ctlContinue
		if s.Keyword == "break" {
			k = ctlBreak
		}
		return func(*frame) (ctl, error) { return k, nil }
	case *ast.TestStmt:
		return nil // run by RunTests, after the top level
	case *ast.AssertStmt:
		return c.assert(s)
	case *ast.ImportStmt:
		return c.importStmt(s)
	case *ast.DelStmt:
		l := c.loc(s.Name.Binding)
		return func(fr *frame) (ctl, error) {
			fr.clear(l)
			return ctlNext, nil
		}
	case *ast.ExprStmt:
		x := c.expr(s.X)
		if s == c.replLast {
			return func(fr *frame) (ctl, error) {
				v, err := x(fr)
				if err != nil {
					return ctlNext, err
				}
				fr.th.setREPLValue(v)
				return ctlNext, nil
			}
		}
		return func(fr *frame) (ctl, error) {
			v, err := x(fr)
			if err != nil {
				return ctlNext, err
			}
			Release(fr.th.RT, v)
			return ctlNext, nil
		}
	case *ast.Block:
		return c.block(s)
	}
	pos := s.Span()
	return func(fr *frame) (ctl, error) {
		return ctlNext, fr.errorf(pos, "internal: cannot run %T", s)
	}
}

func (c *compiler) let(s *ast.LetStmt) stmtFn {
	val := c.expr(s.Value)
	l := c.loc(s.Name.Binding)
	if s.Name.LastUse {
		return func(fr *frame) (ctl, error) {
			v, err := val(fr)
			if err == nil {
				Release(fr.th.RT, v)
			}
			return ctlNext, err
		}
	}
	if l.kind == locSlot {
		i := l.idx
		return func(fr *frame) (ctl, error) {
			v, err := val(fr)
			if err != nil {
				return ctlNext, err
			}
			if old := fr.slots[i]; old != nil {
				Release(fr.th.RT, old)
			}
			fr.slots[i] = v
			return ctlNext, nil
		}
	}
	return func(fr *frame) (ctl, error) {
		v, err := val(fr)
		if err != nil {
			return ctlNext, err
		}
		fr.declare(l, v)
		return ctlNext, nil
	}
}

func (c *compiler) assign(s *ast.AssignStmt) stmtFn {
	if m, ok := s.Value.(*ast.MutateExpr); ok && m.Plain {
		// helper.update(v) on a module or builtin: the call, as a statement.
		st := &ast.ExprStmt{At: s.At, X: m.Call}
		if c.replLast == s {
			c.replLast = st
		}
		return c.stmt(st)
	}
	val := c.expr(s.Value)
	l := c.loc(s.Target.Binding)
	dead := s.Target.LastUse
	if s.Op == "=" {
		return func(fr *frame) (ctl, error) {
			v, err := val(fr)
			if err != nil {
				return ctlNext, err
			}
			if dead {
				Release(fr.th.RT, v)
				fr.clear(l)
				return ctlNext, nil
			}
			return ctlNext, fr.store(l, v, s.Target.At)
		}
	}
	op, ok := binaryOps[s.Op[:len(s.Op)-1]]
	if !ok {
		pos := s.At
		return func(fr *frame) (ctl, error) {
			return ctlNext, fr.errorf(pos, "unknown assignment operator %q", s.Op)
		}
	}
	site := newSite(s.At)
	pos := s.Target.At
	return func(fr *frame) (ctl, error) {
		old, err := fr.load(l, pos)
		if err != nil {
			return ctlNext, err
		}
		v, err := val(fr)
		if err != nil {
			Release(fr.th.RT, old)
			return ctlNext, err
		}
		nv, err := fr.binop(op, old, v, site)
		if err != nil {
			return ctlNext, err
		}
		if dead {
			Release(fr.th.RT, nv)
			fr.clear(l)
			return ctlNext, nil
		}
		return ctlNext, fr.store(l, nv, pos)
	}
}

func (c *compiler) fnStmt(s *ast.FnStmt) stmtFn {
	mk := c.closure(s.Fn)
	l := c.loc(s.Name.Binding)
	dead := s.Name.LastUse
	if l.kind == locCell {
		// The function may capture its own cell (recursion): make the
		// cell first, then the closure, then fill the cell.
		return func(fr *frame) (ctl, error) {
			fr.declare(l, nil)
			v, err := mk(fr)
			if err != nil {
				return ctlNext, err
			}
			fr.slots[l.idx].(*cell).set(fr.th.RT, v)
			return ctlNext, nil
		}
	}
	return func(fr *frame) (ctl, error) {
		v, err := mk(fr)
		if err != nil {
			return ctlNext, err
		}
		if dead {
			Release(fr.th.RT, v)
			return ctlNext, nil
		}
		fr.declare(l, v)
		return ctlNext, nil
	}
}

func (c *compiler) ifStmt(s *ast.IfStmt) stmtFn {
	cond, it := c.condTest(s.Cond)
	then := c.block(s.Then)
	var els stmtFn
	if s.Else != nil {
		els = c.stmt(s.Else)
	}
	td, ed := c.locs(c.live.Then[s]), c.locs(c.live.Else[s])
	return func(fr *frame) (ctl, error) {
		var t bool
		var err error
		if it != nil {
			var ok bool
			if t, ok = it.test(fr); !ok {
				t, err = cond(fr)
			}
		} else {
			t, err = cond(fr)
		}
		if err != nil {
			return ctlNext, err
		}
		if t {
			if td != nil {
				fr.drop(td)
			}
			return then(fr)
		}
		if ed != nil {
			fr.drop(ed)
		}
		if els != nil {
			return els(fr)
		}
		return ctlNext, nil
	}
}

func (c *compiler) whileStmt(s *ast.WhileStmt) stmtFn {
	cond := c.cond(s.Cond)
	body := c.block(s.Body)
	exit := c.locs(c.live.Exit[s])
	pos := s.Cond.Span()
	return func(fr *frame) (ctl, error) {
		intr := fr.th.intr
		for {
			if intr.Load() {
				return ctlNext, fr.errorf(pos, "interrupted")
			}
			t, err := cond(fr)
			if err != nil {
				return ctlNext, err
			}
			if !t {
				break
			}
			k, err := body(fr)
			if err != nil || k == ctlReturn {
				return k, err
			}
			if k == ctlBreak {
				break
			}
		}
		fr.drop(exit)
		return ctlNext, nil
	}
}

func (c *compiler) assert(s *ast.AssertStmt) stmtFn {
	cond := c.expr(s.Cond)
	var msg exprFn
	if s.Msg != nil {
		msg = c.expr(s.Msg)
	}
	pos := s.Cond.Span()
	at := s.At
	return func(fr *frame) (ctl, error) {
		v, err := cond(fr)
		if err != nil {
			return ctlNext, err
		}
		t, err := fr.truth(v, pos)
		if err != nil || t {
			return ctlNext, err
		}
		if msg == nil {
			return ctlNext, fr.errorf(at, "assertion failed")
		}
		m, err := msg(fr)
		if err != nil {
			return ctlNext, err
		}
		text, err := fr.th.Format(m)
		Release(fr.th.RT, m)
		if err != nil {
			return ctlNext, fr.wrap(at, err)
		}
		return ctlNext, fr.errorf(at, "assertion failed: %s", text)
	}
}

func (c *compiler) importStmt(s *ast.ImportStmt) stmtFn {
	target := c.imports[s]
	l := c.loc(s.Name.Binding)
	pos := s.At
	return func(fr *frame) (ctl, error) {
		if target == nil {
			return ctlNext, fr.errorf(pos, "internal: module %q was not loaded", s.Path)
		}
		if err := fr.th.interp.runModule(fr, target, pos); err != nil {
			return ctlNext, err
		}
		fr.declare(l, target)
		return ctlNext, nil
	}
}
