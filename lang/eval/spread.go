package eval

import (
	"strconv"
	"unsafe"

	"github.com/tref-lang/tref/lang/ast"
)

// Spreads: *x among a list's elements or a call's positional arguments
// (the values a for loop over x takes), **r among a call's keyword
// arguments or a record's fields (r's fields, in order). The parser
// places them (parser.checkStars).

// spreadItem is one element of a list literal or one argument of a call
// that may be a spread.
type spreadItem struct {
	f      exprFn
	spread bool
	pos    ast.Pos
}

// hasSpread says whether a *x stands among xs.
func hasSpread(xs []ast.Expr) bool {
	for _, x := range xs {
		if _, ok := x.(*ast.StarExpr); ok {
			return true
		}
	}
	return false
}

// spreadItems compiles xs, marking the *x among them.
func (c *compiler) spreadItems(xs []ast.Expr) []spreadItem {
	items := make([]spreadItem, len(xs))
	for i, x := range xs {
		if s, ok := x.(*ast.StarExpr); ok {
			items[i] = spreadItem{f: c.expr(s.X), spread: true, pos: s.At}
			continue
		}
		items[i] = spreadItem{f: c.expr(x), pos: x.Span()}
	}
	return items
}

// Collect lists the owned values a for loop over it takes (Each, with
// index ops submitted at pos), checking the list against the host memory
// limit as it grows; on failure nothing is left owned.
func Collect(th *Thread, it Value, pos ast.Pos) ([]Value, error) {
	var out []Value
	var grow error
	err := Each(th, it, pos, func(v Value) bool {
		if len(out) == cap(out) {
			if grow = th.RT.HostPool().CheckValue(int64(2*len(out)+8) * int64(unsafe.Sizeof(v))); grow != nil {
				Release(th.RT, v)
				return false
			}
		}
		out = append(out, v)
		return true
	})
	if err == nil {
		err = grow
	}
	if err != nil {
		releaseAll(th.RT, out)
		return nil, err
	}
	return out, nil
}

// spreadValues evaluates one item: its value, or a spread's values.
func (fr *frame) spreadValues(it spreadItem) ([]Value, error) {
	v, err := it.f(fr)
	if err != nil || !it.spread {
		return []Value{v}, err
	}
	vs, err := Collect(fr.th, v, it.pos)
	Release(fr.th.RT, v)
	return vs, fr.wrap(it.pos, err)
}

// spreadList compiles a list literal with spreads.
func (c *compiler) spreadList(items []spreadItem) exprFn {
	return func(fr *frame) (Value, error) {
		var out []Value
		for _, it := range items {
			vs, err := fr.spreadValues(it)
			if err != nil {
				releaseAll(fr.th.RT, out)
				return nil, err
			}
			out = append(out, vs...)
		}
		return NewList(out), nil
	}
}

// dynamicRecord compiles a record literal with a **r or a computed key
// among its fields: the fields in order (a computed key before its
// value), a later key replacing an earlier one's value in place.
func (c *compiler) dynamicRecord(e *ast.RecordExpr) exprFn {
	type field struct {
		key    Value  // a fixed key: a String or an Int
		keyFn  exprFn // a computed key
		f      exprFn
		pos    ast.Pos
		spread bool // a **r
	}
	fields := make([]field, len(e.Fields))
	for i, fl := range e.Fields {
		switch {
		case fl.Spread:
			fields[i] = field{f: c.expr(fl.Value.(*ast.StarExpr).X), pos: fl.At, spread: true}
		case fl.KeyExpr != nil:
			fields[i] = field{keyFn: c.expr(fl.KeyExpr), f: c.expr(fl.Value), pos: fl.KeyExpr.Span()}
		default:
			fields[i] = field{key: fieldKey(fl), f: c.expr(fl.Value), pos: fl.At}
		}
	}
	return func(fr *frame) (Value, error) {
		rt := fr.th.RT
		out := NewRecord(nil, nil)
		fail := func(err error, vs ...Value) (Value, error) {
			releaseAll(rt, vs)
			Release(rt, out)
			return nil, err
		}
		for _, fl := range fields {
			key := fl.key
			if fl.keyFn != nil {
				k, err := fl.keyFn(fr)
				if err != nil {
					return fail(err)
				}
				if _, _, ok := RecordKey(k); !ok {
					return fail(fr.errorf(fl.pos, "record keys are strings or ints, not %s%s", Describe(k), keyHint(k)), k)
				}
				key = k
			}
			v, err := fl.f(fr)
			if err != nil {
				return fail(err)
			}
			if !fl.spread {
				if err := rt.HostPool().CheckValue(int64(len(out.Keys)+1) * RecordFieldBytes); err != nil {
					return fail(fr.errorf(fl.pos, "cannot build the record: %v", err), v)
				}
				out.PutKey(rt, key, v)
				continue
			}
			src, ok := v.(*Record)
			if !ok {
				return fail(fr.errorf(fl.pos, "** spreads a record's fields, not %s", Describe(v)), v)
			}
			if err := rt.HostPool().CheckValue(int64(len(out.Keys)+len(src.Keys)) * RecordFieldBytes); err != nil {
				return fail(fr.errorf(fl.pos, "cannot build the record: %v", err), v)
			}
			for i := range src.Keys {
				Retain(rt, src.Values[i])
				out.PutKey(rt, src.Key(i), src.Values[i])
			}
			Release(rt, v)
		}
		return out, nil
	}
}

// RecordFieldBytes is what a record's field takes beside its value: the
// value's slot, the key's string header and its int mark.
const RecordFieldBytes = int64(unsafe.Sizeof(Value(nil)) + unsafe.Sizeof("") + 1)

// spreadKwargs adds r's fields to kw as keyword arguments (**r in a call).
func (fr *frame) spreadKwargs(kw []Kwarg, v Value, pos ast.Pos) ([]Kwarg, error) {
	r, ok := v.(*Record)
	if !ok {
		err := fr.errorf(pos, "** spreads a record's fields as keyword arguments, not %s", Describe(v))
		Release(fr.th.RT, v)
		return kw, err
	}
	for i, k := range r.Keys {
		if r.IsIntKey(i) {
			Release(fr.th.RT, v)
			return kw, fr.errorf(pos, "** passes a record's keys as keyword names, and %s is an int", k)
		}
		Retain(fr.th.RT, r.Values[i])
		kw = append(kw, Kwarg{Name: k, Value: r.Values[i]})
	}
	Release(fr.th.RT, v)
	return kw, nil
}

// pushSpread pushes the positional arguments of items on the thread's
// argument stack (above base), a spread's values one by one; on error the
// stack is popped to base.
func (fr *frame) pushSpread(items []spreadItem, base int) error {
	th := fr.th
	for _, it := range items {
		// The values are gathered apart, then pushed: evaluating an item
		// may itself call functions, which use the stack above.
		vs, err := fr.spreadValues(it)
		if err != nil {
			th.popArgs(base)
			return err
		}
		th.args = append(th.args, vs...)
	}
	return nil
}

// fieldKey is a record literal's key as a value.
func fieldKey(f *ast.Field) Value {
	if f.IntKey {
		n, _ := strconv.ParseInt(f.Key, 10, 64)
		return Int(n)
	}
	return String(f.Key)
}
