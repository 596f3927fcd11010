package eval

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Index assignment. `x[...] = v` gives x a new value: x with the part
// x[...] reads replaced by v (ast.IndexSetExpr, the value of an
// assignment to x). Values never change under another holder: a name or
// list that held x's old value keeps it. When x held the only reference,
// nothing can tell the difference, and the work is done in place: a
// list's slot is overwritten, and a tensor's index_assign takes x's
// buffer (it dies at the op) and writes only the assigned elements.
//
// On tensors the indices are those of x[...]: ints, slices, `...`, and
// one tensor index (a bool mask, or integer positions); v broadcasts to
// the part's shape (for a tensor index, to torch's: the index's shape in
// place of the dimensions it covers) and takes x's dtype. On lists an
// int replaces one element and a slice a run of them, with Python's
// rules (a slice of step 1 may take a list of any length).

func (c *compiler) indexSet(e *ast.IndexSetExpr) exprFn {
	x := c.expr(e.Index.X)
	items := c.indexItems(e.Index)
	val := c.expr(e.Value)
	site := newSite(e.At)
	compound := e.Op != "="
	var op opcode
	if compound {
		o, ok := binaryOps[strings.TrimSuffix(e.Op, "=")]
		if !ok {
			pos, spelled := e.At, e.Op
			return func(fr *frame) (Value, error) {
				return nil, fr.errorf(pos, "unknown assignment operator %q", spelled)
			}
		}
		op = o
	}
	return func(fr *frame) (Value, error) {
		rt := fr.th.RT
		xv, err := x(fr)
		if err != nil {
			return nil, err
		}
		vals, err := fr.indexVals(items)
		if err != nil {
			Release(rt, xv)
			return nil, err
		}
		defer func() {
			releaseAll(rt, vals)
			Release(rt, xv)
		}()
		var old Value
		if compound {
			if old, err = fr.indexValue(xv, items, vals, site); err != nil {
				return nil, err
			}
		}
		v, err := val(fr)
		if err != nil {
			Release(rt, old)
			return nil, err
		}
		if compound {
			if v, err = fr.binop(op, old, v, site); err != nil {
				return nil, err
			}
		}
		defer Release(rt, v)
		return fr.setIndex(xv, items, vals, v, site)
	}
}

// setIndex is x with x[items] replaced by v; it consumes nothing.
func (fr *frame) setIndex(x Value, items []indexItem, vals []Value, v Value, site *callSite) (Value, error) {
	switch x := x.(type) {
	case Tensor:
		return fr.setTensorIndex(x.Ref, items, vals, v, site)
	case *List:
		return fr.setListIndex(x, items, vals, v, site)
	case *Record:
		return fr.setRecordField(x, items, vals, v, site)
	case Int, Bool, Float32, Float64:
		return nil, fr.errorf(site.pos, "cannot assign into a 0-d tensor (%s); assign the name itself", Describe(x))
	}
	return nil, fr.errorf(site.pos, "cannot assign into %s: only tensors, lists and records take x[...] = v", Describe(x))
}

// setRecordField is r with its field key (r["key"] = v, r.key = v)
// replaced by v, or with the field added at the end when r has none of
// that name: Python's d[key] = v on a record that stays a value (a new
// record; another holder of r keeps the old one).
func (fr *frame) setRecordField(r *Record, items []indexItem, vals []Value, v Value, site *callSite) (Value, error) {
	if len(items) != 1 || items[0].slice || items[0].ellipsis {
		return nil, fr.errorf(site.pos, "a record is indexed by one key (a string or an int)")
	}
	key := vals[0]
	if _, _, ok := RecordKey(key); !ok {
		return nil, fr.errorf(site.pos, "record keys are strings or ints, not %s%s", Describe(key), keyHint(key))
	}
	if _, isInt := key.(Int); isInt && r.Positional {
		return nil, fr.errorf(site.pos, "cannot assign into a result's field by position; name it (r[%q] = v)", r.Keys[0])
	}
	rt := fr.th.RT
	inPlace := r.owned && r.rc == 1
	if n := len(r.Keys); r.Find(key) < 0 && (n == cap(r.Values) || !inPlace) {
		if err := rt.HostPool().CheckValue(int64(n+1) * RecordFieldBytes); err != nil {
			return nil, fr.errorf(site.pos, "cannot add a field to the record: %v", err)
		}
	}
	Retain(rt, v)
	if inPlace {
		// The only reference is the one this assignment consumes (as
		// for a list built by l[i] = v): change the record in place, so
		// that a record built field by field (a comprehension) takes
		// linear time.
		r.PutKey(rt, key, v)
		Retain(rt, r) // the caller releases x
		return r, nil
	}
	out := fr.copyRecord(r)
	out.Positional = r.Positional // an op's result stays readable by position
	out.PutKey(rt, key, v)
	return out, nil
}

// copyRecord is a new record, owned (field assignment may change it in
// place), holding r's keys and values.
func (fr *frame) copyRecord(r *Record) *Record {
	values := make([]Value, len(r.Values), len(r.Values)+1)
	for i, v := range r.Values {
		Retain(fr.th.RT, v)
		values[i] = v
	}
	out := r.WithValues(values)
	out.owned = true
	return out
}

// setListIndex replaces an element (int index) or a run of elements
// (slice) of l.
func (fr *frame) setListIndex(l *List, items []indexItem, vals []Value, v Value, site *callSite) (Value, error) {
	rt := fr.th.RT
	ix, err := fr.indexItems(items, vals, site)
	if err != nil {
		return nil, err
	}
	if len(ix) != 1 {
		return nil, fr.errorf(site.pos, "%s takes one index, got %d", Describe(l), len(ix))
	}
	n := len(l.Elems)
	rs, err := ops.ResolveIndex(tensor.Shape{n}, ix)
	if err != nil {
		return nil, fr.errorf(site.pos, "%s", seqIndexError(l, ix[0], n))
	}
	r := rs[0]
	if it := ix[0]; r.Keep && r.Len == 0 && it.Step == 1 && it.HasStart {
		// An empty run is an insertion at its start (Python's l[i:i] = v).
		r.Start = it.Start
		if r.Start < 0 {
			r.Start += n
		}
		r.Start = min(max(r.Start, 0), n)
	}
	var put []Value // what goes at the selected positions
	if !r.Keep {
		put = []Value{v}
	} else {
		src, ok := v.(*List)
		if !ok {
			return nil, fr.errorf(site.pos, "a slice of a list is assigned a list, not %s", Describe(v))
		}
		put = src.Elems
		if r.Step != 1 && len(put) != r.Len {
			return nil, fr.errorf(site.pos, "cannot assign a list of %d elements to a slice of step %d that selects %d", len(put), r.Step, r.Len)
		}
	}
	for _, e := range put {
		Retain(rt, e)
	}
	if r.Step != 1 || !r.Keep || len(put) == r.Len {
		// The same length: the positions are overwritten.
		out := l
		if l.rc != 1 {
			out = fr.copyList(l)
		}
		for i, e := range put {
			p := r.Start + i*r.Step
			Release(rt, out.Elems[p])
			out.Elems[p] = e
		}
		if out.gc.col == nil {
			out.gc.col = cyclicIn(put)
		}
		if out == l {
			Retain(rt, l) // the caller releases x
		}
		return out, nil
	}
	// A run of step 1 replaced by one of another length.
	m := n - r.Len + len(put)
	if err := rt.HostPool().CheckValue(int64(m) * int64(unsafe.Sizeof(Value(nil)))); err != nil {
		releaseAll(rt, put)
		return nil, fr.errorf(site.pos, "cannot assign into the list: %v", err)
	}
	out := make([]Value, 0, m)
	for _, e := range l.Elems[:r.Start] {
		Retain(rt, e)
		out = append(out, e)
	}
	out = append(out, put...)
	for _, e := range l.Elems[r.Start+r.Len:] {
		Retain(rt, e)
		out = append(out, e)
	}
	return NewList(out), nil
}

// copyList is a new list holding l's elements.
func (fr *frame) copyList(l *List) *List {
	out := make([]Value, len(l.Elems))
	for i, e := range l.Elems {
		Retain(fr.th.RT, e)
		out[i] = e
	}
	return NewList(out)
}

// setTensorIndex is x with x[items] replaced by v.
func (fr *frame) setTensorIndex(x *refs.Ref, items []indexItem, vals []Value, v Value, site *callSite) (Value, error) {
	if err := fr.listIndices(items, vals, site); err != nil {
		return nil, err
	}
	parts, err := fr.indexParts(x.Shape(), items, vals, site)
	if err != nil {
		return nil, err
	}
	bi := basicOf(parts)
	switch {
	case bi.nones > 0:
		return nil, fr.errorf(site.pos, "none in an assigned index is not supported")
	case bi.tensors > 1:
		return nil, fr.errorf(site.pos, "only one tensor index is supported in x[...] = v; assign in several steps")
	}
	ix := &tensorIndexer{fr.chain(site)}
	defer ix.Release()
	basic, trivial, at, tp := bi.items, bi.trivial, bi.at, bi.tp
	val := ix.value(v, x.DType())
	if tp == nil {
		return ix.Result(ix.Op(ops.IndexAssign, &ops.IndexAttrs{Items: basic}, x, val))
	}
	region := x
	if !trivial {
		region = ix.Op(ops.Index, &ops.IndexAttrs{Items: basic}, x)
	}
	updated := ix.assignBy(region, at, *tp, val)
	if trivial || updated == nil {
		return ix.Result(updated)
	}
	return ix.Result(ix.Op(ops.IndexAssign, &ops.IndexAttrs{Items: basic}, x, updated))
}

// value is v as a tensor of dtype dt.
func (ix *tensorIndexer) value(v Value, dt tensor.DType) *refs.Ref {
	if ix.err != nil {
		return nil
	}
	switch v.(type) {
	case Tensor, Int, Bool, Float32, Float64:
	case *List:
		// A nested list of numbers is the tensor tensor(v) makes, as torch.
		mk := ix.fr.th.builtin("tensor")
		if mk == nil {
			ix.err = ix.fr.errorf(ix.site.pos, "assigning a list needs the tensor builtin")
			return nil
		}
		Retain(ix.fr.th.RT, v) // the call consumes it
		t, err := ix.fr.th.callBuiltin(ix.fr, mk, []Value{v}, nil, ix.site)
		if err != nil {
			ix.err = err
			return nil
		}
		tr := t.(Tensor).Ref
		ix.Keep(tr) // released with the other intermediates
		return ix.value(Tensor{Ref: tr}, dt)
	default:
		ix.err = ix.fr.errorf(ix.site.pos, "a tensor's elements are assigned a tensor, a number or a list of numbers, not %s", Describe(v))
		return nil
	}
	r, temp := ix.fr.asRef(v)
	if temp {
		ix.Keep(r)
	}
	return ix.Cast(r, dt)
}

// assignBy is x with the elements that tensor index tp selects along
// dimension at replaced by v: a mask with a value that broadcasts to the
// elements it covers is a where(); positions (a mask's are read on the
// host, as for x[mask]) are a scatter along that dimension.
func (ix *tensorIndexer) assignBy(x *refs.Ref, at int, tp part, v *refs.Ref) *refs.Ref {
	if ix.err != nil || x == nil || v == nil {
		return nil
	}
	fr, s := ix.fr, x.Shape()
	idx := tp.ref
	if idx.DType() == tensor.Bool {
		ms := idx.Shape()
		rest := s[at+tp.dims:]
		if s[at:at+tp.dims].Equal(ms) && len(v.Shape()) <= len(rest) {
			// v broadcasts to each selected element's part: where(mask, v, x).
			if b, err := tensor.Broadcast(v.Shape(), rest); err != nil || !b.Equal(rest) {
				ix.err = fr.errorf(ix.site.pos, "cannot assign a value of shape %v to elements of shape %v", v.Shape(), rest)
				return nil
			}
			ones := make(tensor.Shape, len(rest))
			for i := range ones {
				ones[i] = 1
			}
			mask := ix.Reshape(idx, slices.Concat(ms, ones))
			return ix.Op(ops.Where, nil, mask, v, x)
		}
		// v has the selected count's dimension: scatter at the positions.
		merged, pos := ix.maskPositions(s, at, tp)
		if pos == nil {
			return nil
		}
		return ix.Reshape(ix.scatterAt(ix.Reshape(x, merged), at, pos, v), s)
	}
	if !idx.DType().IsInt() || idx.DType() == tensor.Uint8 {
		ix.err = fr.errorf(ix.site.pos, "a tensor index must hold integers (int64) or be a bool mask, not %v", idx.Meta())
		return nil
	}
	return ix.scatterAt(x, at, ix.positions(idx, at, s[at]), v)
}

// scatterAt is x with x[..., idx[j], ...] (along dimension at) replaced
// by v[..., j, ...] for every position j of idx; v broadcasts to x's
// shape with idx's shape in place of dimension at, as in torch.
func (ix *tensorIndexer) scatterAt(x *refs.Ref, at int, idx, v *refs.Ref) *refs.Ref {
	if ix.err != nil || x == nil || idx == nil {
		return nil
	}
	s, is := x.Shape(), idx.Shape()
	want := slices.Concat(s[:at], is, s[at+1:])
	if b, err := tensor.Broadcast(v.Shape(), want); err != nil || !b.Equal(want) {
		ix.err = ix.fr.errorf(ix.site.pos, "cannot assign a value of shape %v to the %v elements the index selects", v.Shape(), want)
		return nil
	}
	k := is.Numel()
	flat := slices.Concat(s[:at], tensor.Shape{k}, s[at+1:])
	v = ix.Reshape(ix.Expand(v, want), flat)
	lay := make(tensor.Shape, len(s))
	for i := range lay {
		lay[i] = 1
	}
	lay[at] = k
	positions := ix.Expand(ix.Reshape(idx, lay), flat)
	return ix.Op(ops.Scatter, ops.DimAttrs{Dim: at}, x, positions, v)
}
