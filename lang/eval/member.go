package eval

import (
	"math"
	"reflect"
	"strings"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/runtime/ops"
)

// member is `a in b` (Python's membership), consuming both operands: an
// element of a list (one equal to a as == inside lists compares, which
// counts a value as equal to itself), a key of a record, a substring of a string, a value of a
// range, or, as torch's `a in t`, a value some element of a tensor equals.
func (fr *frame) member(a, b Value, site *callSite) (bool, error) {
	defer Release(fr.th.RT, a)
	defer Release(fr.th.RT, b)
	switch c := b.(type) {
	case *List:
		for _, e := range c.Elems {
			if eq, err := fr.equal(a, e, site.pos); eq || err != nil {
				return eq, err
			}
		}
		return false, nil
	case *Record:
		return c.Find(a) >= 0, nil
	case String:
		s, ok := a.(String)
		if !ok {
			return false, fr.errorf(site.pos, "'in <string>' needs a string on the left, not %s", Describe(a))
		}
		return strings.Contains(string(c), string(s)), nil
	case Range:
		return rangeHas(c, fr.th, a), nil
	case Bool, Int, Float32, Float64, Tensor:
		// torch's a in t: some element of t equals a (a number is a 0-d
		// tensor, so a in 5 is a == 5).
		if _, ok := a.(Tensor); !ok && !isScalar(a) {
			return false, fr.errorf(site.pos, "'in <tensor>' needs a number or a tensor on the left, not %s", Describe(a))
		}
		Retain(fr.th.RT, a)
		Retain(fr.th.RT, b)
		eq, err := fr.binop(opEq, a, b, site)
		if err != nil {
			return false, err
		}
		if t, ok := eq.(Tensor); ok {
			eq, err = fr.submit(site, ops.Any, ops.ReduceAttrs{}, t.Ref)
			fr.th.RT.Release(t.Ref)
			if err != nil {
				return false, err
			}
		}
		return fr.truth(eq, site.pos)
	}
	return false, fr.errorf(site.pos, "'in' needs a list, record, string, range or tensor on the right, not %s", Describe(b))
}

// rangeHas reports whether the number v is one of r's values; anything
// else is in no range.
func rangeHas(r Range, th *Thread, v Value) bool {
	if _, ok := v.(Tensor); !ok && !isScalar(v) {
		return false
	}
	f, ok := th.AsFloat(v)
	var x int64
	if n, isInt := v.(Int); isInt {
		x = int64(n)
	} else if !ok || f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return false
	} else {
		x = int64(f)
	}
	switch {
	case r.Step > 0 && r.Start <= x && x < r.Stop:
		return (uint64(x)-uint64(r.Start))%uint64(r.Step) == 0
	case r.Step < 0 && r.Stop < x && x <= r.Start:
		return (uint64(r.Start)-uint64(x))%(-uint64(r.Step)) == 0
	}
	return false
}

// membership compiles `x in y` and `x not in y`.
func (c *compiler) membership(e *ast.BinaryExpr) exprFn {
	negate := e.Op == "not in"
	site := newSite(e.At)
	return c.comparison(e, func(fr *frame, a, b Value) (bool, error) {
		has, err := fr.member(a, b, site)
		return has != negate, err
	})
}

// identity compiles a is b and a is not b, Python's identity test: the
// same tensor, list, record or function, or equal plain values (none,
// bools, numbers of one type, strings), which tref does not tell apart
// by identity. x is None is the usual use.
func (c *compiler) identity(e *ast.BinaryExpr) exprFn {
	negate := e.Op == "is not"
	return c.comparison(e, func(fr *frame, a, b Value) (bool, error) {
		is := identical(a, b)
		Release(fr.th.RT, a)
		Release(fr.th.RT, b)
		return is != negate, nil
	})
}

// comparison compiles a test of e's two operands, evaluated left to
// right; test consumes them.
func (c *compiler) comparison(e *ast.BinaryExpr, test func(fr *frame, a, b Value) (bool, error)) exprFn {
	x, y := c.expr(e.X), c.expr(e.Y)
	return func(fr *frame) (Value, error) {
		a, err := x(fr)
		if err != nil {
			return nil, err
		}
		b, err := y(fr)
		if err != nil {
			Release(fr.th.RT, a)
			return nil, err
		}
		t, err := test(fr, a, b)
		if err != nil {
			return nil, err
		}
		return Bool(t), nil
	}
}

// identical reports whether a and b are one value, as is sees them.
func identical(a, b Value) bool {
	switch a.(type) {
	case Tensor, *List, *Record:
		return same(a, b)
	case NoneType, Bool, Int, Float32, Float64, String, Range:
		return a == b
	}
	// Functions, modules, objects: the same one (a value of a type that
	// Go cannot compare is only itself, which is not asked here).
	if ta, tb := reflect.TypeOf(a), reflect.TypeOf(b); ta != tb || !ta.Comparable() {
		return false
	}
	return a == b
}
