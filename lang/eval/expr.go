package eval

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/runtime/ops"
)

func (c *compiler) expr(e ast.Expr) exprFn {
	switch e := e.(type) {
	case *ast.Ident:
		return c.ident(e)
	case *ast.NumberLit:
		var v Value
		if e.IsInt {
			v = Int(e.Int)
		} else {
			v = Float32(float32(e.Float))
		}
		return func(*frame) (Value, error) { return v, nil }
	case *ast.StringLit:
		v := Value(String(e.Value))
		return func(*frame) (Value, error) { return v, nil }
	case *ast.BoolLit:
		v := Value(Bool(e.Value))
		return func(*frame) (Value, error) { return v, nil }
	case *ast.NoneLit:
		return func(*frame) (Value, error) { return None, nil }
	case *ast.ParenExpr:
		return c.expr(e.X)
	case *ast.ListExpr:
		return c.list(e)
	case *ast.FStringExpr:
		return c.fstring(e)
	case *ast.CondExpr:
		return c.conditional(e)
	case *ast.StarExpr:
		// The parser places spreads; one anywhere else is a bug.
		pos := e.At
		return func(fr *frame) (Value, error) { return nil, fr.errorf(pos, "a spread cannot stand here") }
	case *ast.RecordExpr:
		return c.record(e)
	case *ast.FnExpr:
		return c.closure(e)
	case *ast.BinaryExpr:
		return c.binary(e)
	case *ast.UnaryExpr:
		return c.unary(e)
	case *ast.CallExpr:
		return c.call(e)
	case *ast.IndexExpr:
		return c.index(e)
	case *ast.MutateExpr:
		return c.mutate(e)
	case *ast.IndexSetExpr:
		return c.indexSet(e)
	case *ast.FieldExpr:
		return c.field(e)
	case nil:
		return func(*frame) (Value, error) { return None, nil }
	}
	pos := e.Span()
	return func(fr *frame) (Value, error) {
		return nil, fr.errorf(pos, "internal: cannot evaluate %T", e)
	}
}

// argvName is the predeclared name of the script's arguments
// (Config.Argv): read like a builtin, a list of strings.
const argvName = "argv"

func (c *compiler) ident(id *ast.Ident) exprFn {
	pos := id.At
	if id.Builtin || id.Binding == nil {
		if id.Name == argvName {
			if _, shadowed := c.in.cfg.Universe[argvName]; !shadowed {
				argv := c.in.argv
				return func(fr *frame) (Value, error) {
					Retain(fr.th.RT, argv)
					return argv, nil
				}
			}
		}
		b, ok := c.in.cfg.Universe[id.Name]
		if !ok {
			name := id.Name
			return func(fr *frame) (Value, error) { return nil, fr.errorf(pos, "undefined name %q", name) }
		}
		v := Value(b)
		return func(*frame) (Value, error) { return v, nil }
	}
	l := c.loc(id.Binding)
	i, name := l.idx, l.name
	switch {
	case l.kind == locSlot && id.LastUse:
		return func(fr *frame) (Value, error) {
			v := fr.slots[i]
			if v == nil {
				return nil, fr.unset(pos, name)
			}
			fr.slots[i] = nil
			return v, nil
		}
	case l.kind == locSlot:
		return func(fr *frame) (Value, error) {
			v := fr.slots[i]
			if v == nil {
				return nil, fr.unset(pos, name)
			}
			Retain(fr.th.RT, v)
			return v, nil
		}
	case l.kind == locGlobal && !id.LastUse:
		return func(fr *frame) (Value, error) {
			v := fr.mod.globals[i]
			if v == nil {
				return nil, fr.unset(pos, name)
			}
			Retain(fr.th.RT, v)
			return v, nil
		}
	case id.LastUse:
		return func(fr *frame) (Value, error) { return fr.take(l, pos) }
	}
	return func(fr *frame) (Value, error) { return fr.load(l, pos) }
}

func (c *compiler) exprs(es []ast.Expr) []exprFn {
	out := make([]exprFn, len(es))
	for i, e := range es {
		out[i] = c.expr(e)
	}
	return out
}

// evalAll evaluates fns in order into owned values; on failure it releases
// what it made.
func evalAll(fr *frame, fns []exprFn) ([]Value, error) {
	vs := make([]Value, len(fns))
	for i, f := range fns {
		v, err := f(fr)
		if err != nil {
			releaseAll(fr.th.RT, vs[:i])
			return nil, err
		}
		vs[i] = v
	}
	return vs, nil
}

func (c *compiler) list(e *ast.ListExpr) exprFn {
	if hasSpread(e.Elems) {
		return c.spreadList(c.spreadItems(e.Elems))
	}
	elems := c.exprs(e.Elems)
	return func(fr *frame) (Value, error) {
		vs, err := evalAll(fr, elems)
		if err != nil {
			return nil, err
		}
		return NewList(vs), nil
	}
}

func (c *compiler) record(e *ast.RecordExpr) exprFn {
	for _, f := range e.Fields {
		if f.Spread || f.KeyExpr != nil {
			return c.dynamicRecord(e)
		}
	}
	keys := make([]string, len(e.Fields))
	vals := make([]exprFn, len(e.Fields))
	var intKey []bool // nil unless some key is an int
	for i, f := range e.Fields {
		keys[i] = f.Key
		vals[i] = c.expr(f.Value)
		if f.IntKey {
			if intKey == nil {
				intKey = make([]bool, len(e.Fields))
			}
			intKey[i] = true
		}
	}
	return func(fr *frame) (Value, error) {
		vs, err := evalAll(fr, vals)
		if err != nil {
			return nil, err
		}
		r := NewRecord(slices.Clone(keys), vs)
		r.IntKey = slices.Clone(intKey)
		return r, nil
	}
}

// closure compiles a function literal into the expression that makes a
// closure of it: defaults evaluated now, captured cells shared.
func (c *compiler) closure(fn *ast.FnExpr) exprFn {
	code := c.function(fn)
	free := c.locs(fn.FreeVars)
	defaults := make([]exprFn, len(fn.Params))
	hasDefaults := false
	for i, p := range fn.Params {
		if p.Default != nil {
			defaults[i] = c.expr(p.Default)
			hasDefaults = true
		}
	}
	return func(fr *frame) (Value, error) {
		cl := &Closure{code: code, rc: 1, fast: code.fast + 1}
		if hasDefaults {
			cl.defaults = make([]Value, len(defaults))
			for i, d := range defaults {
				if d == nil {
					continue
				}
				v, err := d(fr)
				if err != nil {
					releaseAll(fr.th.RT, cl.defaults)
					return nil, err
				}
				cl.defaults[i] = v
			}
		}
		if len(free) > 0 {
			cl.cells = make([]*cell, len(free))
			for i, l := range free {
				x := fr.cellAt(l)
				x.incref()
				cl.cells[i] = x
			}
			cl.gc.col = fr.th.col
		} else if col := cyclicIn(cl.defaults); col != nil {
			cl.gc.col = col
		}
		return cl, nil
	}
}

func (c *compiler) binary(e *ast.BinaryExpr) exprFn {
	if e.Op == "in" || e.Op == "not in" {
		return c.membership(e)
	}
	if e.Op == "is" || e.Op == "is not" {
		return c.identity(e)
	}
	x, y := c.expr(e.X), c.expr(e.Y)
	pos := e.At
	switch e.Op {
	case "and", "or":
		isAnd := e.Op == "and"
		short := c.locs(c.live.Short[e])
		xpos, ypos := e.X.Span(), e.Y.Span()
		return func(fr *frame) (Value, error) {
			a, err := x(fr)
			if err != nil {
				return nil, err
			}
			t, err := fr.truth(a, xpos)
			if err != nil {
				return nil, err
			}
			if t != isAnd {
				fr.drop(short)
				return Bool(t), nil
			}
			b, err := y(fr)
			if err != nil {
				return nil, err
			}
			t, err = fr.truth(b, ypos)
			if err != nil {
				return nil, err
			}
			return Bool(t), nil
		}
	}
	op, ok := binaryOps[e.Op]
	if !ok {
		return func(fr *frame) (Value, error) { return nil, fr.errorf(pos, "unknown operator %q", e.Op) }
	}
	site := newSite(pos)
	k, isK := intLiteral(e.Y)
	general := func(fr *frame) (Value, error) {
		a, err := x(fr)
		if err != nil {
			return nil, err
		}
		var b Value
		if isK {
			if ai, ok := a.(Int); ok {
				if v, ok := intFast(op, int64(ai), k); ok {
					return v, nil
				}
			}
			b = Int(k)
		} else if b, err = y(fr); err != nil {
			Release(fr.th.RT, a)
			return nil, err
		}
		if ai, ok := a.(Int); ok {
			if bi, ok := b.(Int); ok {
				if v, ok := intFast(op, int64(ai), int64(bi)); ok {
					return v, nil
				}
				return fr.intBinop(op, int64(ai), int64(bi), site)
			}
		}
		return fr.binop(op, a, b, site)
	}
	if slot, take, ok := c.slotVar(e.X); ok && isK {
		// A variable of this frame and a literal (n - 1): no call to
		// read either when the variable holds an int.
		return func(fr *frame) (Value, error) {
			if a, ok := fr.slots[slot].(Int); ok {
				if v, ok := intFast(op, int64(a), k); ok {
					if take {
						fr.slots[slot] = nil
					}
					return v, nil
				}
			}
			return general(fr)
		}
	}
	return general
}

// slotVar reports whether e is a variable held in a slot of the frame
// being compiled (not a cell, not a global), its slot, and whether e is
// its last use (when reading it moves the value out).
func (c *compiler) slotVar(e ast.Expr) (slot int, take, ok bool) {
	id, isID := unparen(e).(*ast.Ident)
	if !isID || id.Builtin || id.Binding == nil {
		return 0, false, false
	}
	l := c.loc(id.Binding)
	if l.kind != locSlot {
		return 0, false, false
	}
	return l.idx, id.LastUse, true
}

// intLiteral is the value of e when it is an integer literal, whose
// evaluation the compiled code can skip.
func intLiteral(e ast.Expr) (int64, bool) {
	if n, ok := unparen(e).(*ast.NumberLit); ok && n.IsInt {
		return n.Int, true
	}
	return 0, false
}

// unparen is e without the parentheses around it.
func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// cond compiles a condition (of if, while) into its truth. A comparison
// of two ints is decided without boxing its bool; anything else is
// evaluated and judged by truth.
func (c *compiler) cond(e ast.Expr) func(*frame) (bool, error) {
	f, _ := c.condTest(e)
	return f
}

// intTest is a comparison of a frame variable with an int literal (n <
// 2), which a statement can decide in place, without calling its
// compiled condition, when the variable holds an int.
type intTest struct {
	slot int
	take bool
	op   opcode
	k    int64
}

// test decides the comparison; ok=false when the variable does not hold
// an int (then nothing was read).
func (t *intTest) test(fr *frame) (result, ok bool) {
	a, ok := fr.slots[t.slot].(Int)
	if !ok {
		return false, false
	}
	if t.take {
		fr.slots[t.slot] = nil
	}
	return intCompare(t.op, int64(a), t.k), true
}

// condTest is cond, and the condition's intTest when it is one (else
// nil).
func (c *compiler) condTest(e ast.Expr) (func(*frame) (bool, error), *intTest) {
	pos := e.Span()
	if b, ok := unparen(e).(*ast.BinaryExpr); ok {
		if op, ok := binaryOps[b.Op]; ok && isCompare(op) {
			x, y := c.expr(b.X), c.expr(b.Y)
			k, isK := intLiteral(b.Y)
			site := newSite(b.At)
			general := func(fr *frame) (bool, error) {
				a, err := x(fr)
				if err != nil {
					return false, err
				}
				var bv Value
				if isK {
					bv = Int(k)
				} else if bv, err = y(fr); err != nil {
					Release(fr.th.RT, a)
					return false, err
				}
				if ai, ok := a.(Int); ok {
					if bi, ok := bv.(Int); ok {
						return intCompare(op, int64(ai), int64(bi)), nil
					}
				}
				v, err := fr.binop(op, a, bv, site)
				if err != nil {
					return false, err
				}
				return fr.truth(v, pos)
			}
			if slot, take, ok := c.slotVar(b.X); ok && isK {
				it := &intTest{slot: slot, take: take, op: op, k: k}
				return func(fr *frame) (bool, error) {
					if t, ok := it.test(fr); ok {
						return t, nil
					}
					return general(fr)
				}, it
			}
			return general, nil
		}
	}
	x := c.expr(e)
	return func(fr *frame) (bool, error) {
		v, err := x(fr)
		if err != nil {
			return false, err
		}
		return fr.truth(v, pos)
	}, nil
}

func (c *compiler) unary(e *ast.UnaryExpr) exprFn {
	x := c.expr(e.X)
	pos := e.At
	if e.Op == "not" {
		xpos := e.X.Span()
		return func(fr *frame) (Value, error) {
			v, err := x(fr)
			if err != nil {
				return nil, err
			}
			t, err := fr.truth(v, xpos)
			if err != nil {
				return nil, err
			}
			return Bool(!t), nil
		}
	}
	site := newSite(pos)
	return func(fr *frame) (Value, error) {
		v, err := x(fr)
		if err != nil {
			return nil, err
		}
		return fr.neg(v, site)
	}
}

func (c *compiler) forStmt(s *ast.ForStmt) stmtFn {
	iter := c.expr(s.Iter)
	body := c.block(s.Body)
	vl := c.loc(s.Var.Binding)
	dead := s.Var.LastUse
	exit := c.locs(c.live.Exit[s])
	pos := s.Iter.Span()
	site := newSite(pos)
	// step runs one iteration with the loop variable bound to v (owned).
	step := func(fr *frame, v Value) (ctl, error) {
		if fr.th.intr.Load() {
			Release(fr.th.RT, v)
			return ctlNext, fr.errorf(pos, "interrupted")
		}
		if dead {
			Release(fr.th.RT, v)
		} else {
			fr.declare(vl, v)
		}
		return body(fr)
	}
	return func(fr *frame) (ctl, error) {
		it, err := iter(fr)
		if err != nil {
			return ctlNext, err
		}
		k, err := fr.loop(it, step, site)
		Release(fr.th.RT, it)
		if err != nil || k == ctlReturn {
			return k, err
		}
		fr.drop(exit)
		return ctlNext, nil
	}
}

// loop runs step over the values of it; it stops at break (returning
// ctlNext), return or an error.
func (fr *frame) loop(it Value, step func(*frame, Value) (ctl, error), site *callSite) (ctl, error) {
	k := ctlNext
	var stepErr error
	err := Each(fr.th, it, site.pos, func(v Value) bool {
		k, stepErr = step(fr, v)
		if stepErr != nil || k == ctlReturn {
			return false
		}
		if k == ctlBreak {
			k = ctlNext
			return false
		}
		return true
	})
	switch {
	case stepErr != nil:
		return k, stepErr
	case err != nil:
		return ctlNext, fr.wrap(site.pos, err)
	}
	return k, nil
}

// Each calls yield with the values a for loop over it takes, in order,
// until yield returns false: a range's ints, a list's elements, a
// string's characters, a record's keys (an op's result's values), a
// tensor's slices along its first dimension (index ops submitted at pos). yield owns each value. It fails for
// values that cannot be iterated and when an op fails.
func Each(th *Thread, it Value, pos ast.Pos, yield func(Value) bool) error {
	switch it := it.(type) {
	case Range:
		for i, n := it.Start, it.Len(); n > 0; i, n = i+it.Step, n-1 {
			if !yield(Int(i)) {
				return nil
			}
		}
	case *List:
		for _, e := range it.Elems {
			Retain(th.RT, e)
			if !yield(e) {
				return nil
			}
		}
	case String:
		for _, r := range string(it) {
			if !yield(String(string(r))) {
				return nil
			}
		}
	case Tensor:
		shape := it.Ref.Shape()
		if len(shape) == 0 {
			return errors.New("cannot iterate over a 0-d tensor")
		}
		for i := 0; i < shape[0]; i++ {
			th.sitePos = pos
			attrs := &ops.IndexAttrs{Items: []ops.IndexItem{{Kind: ops.IndexAt, At: i}}}
			v, err := th.Submit(ops.Index, attrs, it.Ref)
			if err != nil {
				return err
			}
			if !yield(v) {
				return nil
			}
		}
	case Bool, Int, Float32, Float64:
		return fmt.Errorf("cannot iterate over a 0-d tensor (%s)", Describe(it))
	case *Record:
		if it.Positional {
			// An op's result (max over a dim, topk) is a tuple in
			// torch: its values, in order.
			for _, v := range it.Values {
				Retain(th.RT, v)
				if !yield(v) {
					return nil
				}
			}
			return nil
		}
		// A dict's keys, as Python's for k in d.
		for i := range it.Keys {
			if !yield(it.Key(i)) {
				return nil
			}
		}
	default:
		return fmt.Errorf("cannot iterate over %s", Describe(it))
	}
	return nil
}

// conditional compiles `then if cond else other`: the condition as an if
// statement's, then one branch, dropping the variables only the other
// branch would have read.
func (c *compiler) conditional(e *ast.CondExpr) exprFn {
	cond, _ := c.condTest(e.Cond)
	then, other := c.expr(e.Then), c.expr(e.Else)
	td, ed := c.locs(c.live.CondThen[e]), c.locs(c.live.CondElse[e])
	return func(fr *frame) (Value, error) {
		t, err := cond(fr)
		if err != nil {
			return nil, err
		}
		if t {
			fr.drop(td)
			return then(fr)
		}
		fr.drop(ed)
		return other(fr)
	}
}
