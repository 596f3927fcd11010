package eval

import "github.com/tref-lang/tref/lang/ast"

// This file runs `let [a, b] = v` and `[a, b] = v`: v is a list or a
// result with positional fields (topk, sort, max over a dim), and it must
// have exactly one item per name.

// unpackStmt compiles an UnpackStmt: the value is evaluated once, checked,
// and its items are bound to the names left to right.
func (c *compiler) unpackStmt(s *ast.UnpackStmt) stmtFn {
	val := c.expr(s.Value)
	binds := make([]func(fr *frame, v Value) error, len(s.Names))
	for i, id := range s.Names {
		binds[i] = c.binder(id, s.Let)
	}
	n := len(s.Names)
	at := s.Value.Span()
	return func(fr *frame) (ctl, error) {
		v, err := val(fr)
		if err != nil {
			return ctlNext, err
		}
		items, ok := unpackItems(v)
		if !ok {
			err := fr.errorf(at, "cannot unpack %s into %d names: only a list or a result with positional fields (topk, sort, max over a dim) can be unpacked", Describe(v), n)
			Release(fr.th.RT, v)
			return ctlNext, err
		}
		if len(items) != n {
			err := fr.errorf(at, "cannot unpack %d items into %d names", len(items), n)
			Release(fr.th.RT, v)
			return ctlNext, err
		}
		for _, it := range items {
			Retain(fr.th.RT, it)
		}
		Release(fr.th.RT, v)
		for i, it := range items {
			if err := binds[i](fr, it); err != nil {
				for _, rest := range items[i+1:] {
					Release(fr.th.RT, rest)
				}
				return ctlNext, err
			}
		}
		return ctlNext, nil
	}
}

// unpackItems returns the items of a list or a positional result.
func unpackItems(v Value) ([]Value, bool) {
	switch v := v.(type) {
	case *List:
		return v.Elems, true
	case *Record:
		if v.Positional {
			return v.Values, true
		}
	}
	return nil, false
}

// binder returns the function that binds an owned value to id: declared
// by let, stored by an assignment, released when the name is never read.
func (c *compiler) binder(id *ast.Ident, let bool) func(fr *frame, v Value) error {
	l := c.loc(id.Binding)
	switch {
	case id.LastUse && let:
		return func(fr *frame, v Value) error {
			Release(fr.th.RT, v)
			return nil
		}
	case id.LastUse:
		return func(fr *frame, v Value) error {
			Release(fr.th.RT, v)
			fr.clear(l)
			return nil
		}
	case let:
		return func(fr *frame, v Value) error {
			fr.declare(l, v)
			return nil
		}
	}
	pos := id.At
	return func(fr *frame, v Value) error {
		return fr.store(l, v, pos)
	}
}
