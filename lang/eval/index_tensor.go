package eval

import (
	"slices"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Tensor indexing beyond ints and slices, as in torch:
//
//   - `...` stands for as many whole dimensions as the other indices leave;
//   - `none` inserts a dimension of size 1;
//   - one tensor index selects along its dimension(s): a bool mask of k
//     dimensions (equal to the k it covers) the elements where it is
//     true, those dimensions becoming one of that count; an integer tensor
//     the positions it lists (negative ones count from the end), its shape
//     replacing the dimension. Int indices are applied first and remove
//     their dimensions, so the tensor index's dimensions always stay in
//     place (torch's rule; NumPy would move them first in x[0, :, idx]).
//
// The basic part (ints and slices) is one index op; a mask is read on the
// host (its count is the result's shape) and becomes the positions of an
// index_select.

type partKind uint8

const (
	partInt partKind = iota
	partSlice
	partNone
	partTensor
)

// part is one index of x[...] after evaluation, `...` expanded.
type part struct {
	kind partKind
	item ops.IndexItem
	ref  *refs.Ref // partTensor
	dims int       // dimensions of x it covers
}

// specialIndex says whether x[...] has more than ints and slices: `...`,
// none, or a tensor index (a bool tensor, or one of at least 1 dimension).
func specialIndex(items []indexItem, vals []Value) bool {
	k := 0
	for _, it := range items {
		switch {
		case it.ellipsis:
			return true
		case it.slice:
			k += 3
		default:
			if isTensorIndex(vals[k]) {
				return true
			}
			if _, none := vals[k].(NoneType); none {
				return true
			}
			k++
		}
	}
	return false
}

// listIndices turns each list among the index values of x[...] into
// the tensor index torch makes of it (x[[0, 2]] is x[tensor([0, 2])],
// an empty list an empty int64 index), in place in vals.
func (fr *frame) listIndices(items []indexItem, vals []Value, site *callSite) error {
	k := 0
	for _, it := range items {
		switch {
		case it.ellipsis:
			continue
		case it.slice:
			k += 3
			continue
		}
		l, ok := vals[k].(*List)
		if !ok {
			k++
			continue
		}
		mk := fr.th.builtin("tensor")
		if mk == nil {
			return fr.errorf(site.pos, "a list index needs the tensor builtin")
		}
		var kw []Kwarg
		if len(l.Elems) == 0 {
			kw = []Kwarg{{Name: "dtype", Value: String("int64")}}
		}
		vals[k] = nil // the call consumes the list
		t, err := fr.th.callBuiltin(fr, mk, []Value{l}, kw, site)
		if err != nil {
			return err
		}
		vals[k] = t
		k++
	}
	return nil
}

func isTensorIndex(v Value) bool {
	t, ok := v.(Tensor)
	return ok && (len(t.Ref.Shape()) > 0 || t.Ref.DType() == tensor.Bool)
}

// indexParts evaluates the parts of x[...] for a tensor of shape s.
func (fr *frame) indexParts(s tensor.Shape, items []indexItem, vals []Value, site *callSite) ([]part, error) {
	pos := site.pos
	var parts []part
	ell, covered, k := -1, 0, 0
	for _, it := range items {
		switch {
		case it.ellipsis:
			if ell >= 0 {
				return nil, fr.errorf(it.loPos, "an index can have only one '...'")
			}
			ell = len(parts)
			parts = append(parts, part{})
		case it.slice:
			item, err := fr.sliceItem(it, vals[k], vals[k+1], vals[k+2])
			if err != nil {
				return nil, err
			}
			k += 3
			parts = append(parts, part{kind: partSlice, item: item, dims: 1})
			covered++
		default:
			v := vals[k]
			k++
			if _, none := v.(NoneType); none {
				parts = append(parts, part{kind: partNone})
				continue
			}
			if isTensorIndex(v) {
				r := v.(Tensor).Ref
				dt, n := r.DType(), 1
				switch {
				case dt == tensor.Bool:
					n = len(r.Shape())
					if n == 0 {
						return nil, fr.errorf(pos, "a 0-d bool index is not supported; use where()")
					}
				case !dt.IsInt() || dt == tensor.Uint8:
					return nil, fr.errorf(pos, "a tensor index must hold integers (int64) or be a bool mask, not %v", r.Meta())
				}
				parts = append(parts, part{kind: partTensor, ref: r, dims: n})
				covered += n
				continue
			}
			n, err := fr.intIndex(v, pos, "an index")
			if err != nil {
				return nil, err
			}
			parts = append(parts, part{kind: partInt, item: ops.IndexItem{Kind: ops.IndexAt, At: n}, dims: 1})
			covered++
		}
	}
	if covered > len(s) {
		return nil, fr.errorf(pos, "too many indices for a tensor of shape %v: they cover %d dimensions, the tensor has %d", s, covered, len(s))
	}
	if ell >= 0 {
		fill := make([]part, len(s)-covered)
		for i := range fill {
			fill[i] = part{kind: partSlice, item: ops.FullSlice, dims: 1}
		}
		parts = slices.Concat(parts[:ell], fill, parts[ell+1:])
	}
	return parts, nil
}

// indexTensor is x[...] with `...`, none or a tensor index.
func (fr *frame) indexTensor(x *refs.Ref, items []indexItem, vals []Value, site *callSite) (Value, error) {
	parts, err := fr.indexParts(x.Shape(), items, vals, site)
	if err != nil {
		return nil, err
	}
	bi := basicOf(parts)
	switch {
	case bi.tensors > 1:
		return nil, fr.errorf(site.pos, "only one tensor index is supported in x[...]; index in several steps")
	case bi.tensors == 1 && bi.nones > 0:
		return nil, fr.errorf(site.pos, "none together with a tensor index is not supported; index in two steps")
	}
	ix := &tensorIndexer{fr.chain(site)}
	defer ix.Release()
	basic, trivial, at := bi.items, bi.trivial, bi.at
	cur := x
	if !trivial {
		if cur = ix.Op(ops.Index, &ops.IndexAttrs{Items: basic}, cur); cur == nil {
			return nil, ix.err
		}
	}
	if bi.tp == nil {
		// Insert the size-1 dimensions of none.
		rs, final := cur.Shape(), tensor.Shape{}
		i := 0
		for _, p := range parts {
			switch p.kind {
			case partSlice:
				final = append(final, rs[i])
				i++
			case partNone:
				final = append(final, 1)
			}
		}
		final = append(final, rs[i:]...)
		return ix.Result(ix.Reshape(cur, final))
	}
	return ix.Result(ix.selectBy(cur, at, *bi.tp))
}

// basicIndex is the basic part of an index's parts: its ints and slices
// (items), a tensor index's dimensions taken whole, as one index op;
// trivial when that op would take x whole. tp is the (last) tensor
// index, at the first dimension of the basic part's result it covers;
// tensors and nones count the tensor indices and nones.
type basicIndex struct {
	items          []ops.IndexItem
	trivial        bool
	at             int
	tp             *part
	tensors, nones int
}

func basicOf(parts []part) basicIndex {
	bi := basicIndex{trivial: true, at: -1}
	kept := 0
	for i, p := range parts {
		switch p.kind {
		case partNone:
			bi.nones++
		case partInt:
			bi.items, bi.trivial = append(bi.items, p.item), false
		case partSlice:
			bi.items = append(bi.items, p.item)
			bi.trivial = bi.trivial && !p.item.HasStart && !p.item.HasStop && p.item.Step == 1
			kept++
		case partTensor:
			bi.tensors++
			bi.tp, bi.at = &parts[i], kept
			for range p.dims {
				bi.items = append(bi.items, ops.FullSlice)
			}
			kept += p.dims
		}
	}
	return bi
}

// tensorIndexer submits the ops of one index expression: a chain whose
// ops report the expression's position.
type tensorIndexer struct{ Chain }

// selectBy applies tensor index tp to dimension at of x.
func (ix *tensorIndexer) selectBy(x *refs.Ref, at int, tp part) *refs.Ref {
	s := x.Shape()
	if tp.ref.DType() == tensor.Bool {
		merged, pos := ix.maskPositions(s, at, tp)
		if pos == nil {
			return nil
		}
		return ix.Op(ops.IndexSelect, ops.DimAttrs{Dim: at}, ix.Reshape(x, merged), pos)
	}
	idx := ix.positions(tp.ref, at, s[at])
	if idx == nil {
		return nil
	}
	is := idx.Shape()
	flat := ix.Reshape(idx, tensor.Shape{is.Numel()})
	out := ix.Op(ops.IndexSelect, ops.DimAttrs{Dim: at}, x, flat)
	return ix.Reshape(out, slices.Concat(s[:at], is, s[at+1:]))
}

// maskPositions reads the bool mask tp, which covers dimensions at.. of
// a tensor of shape s, on the host: the shape with those dimensions
// merged into one, and the int64 positions of its true elements along
// it (nil on failure).
func (ix *tensorIndexer) maskPositions(s tensor.Shape, at int, tp part) (tensor.Shape, *refs.Ref) {
	fr, ms := ix.fr, tp.ref.Shape()
	if !s[at : at+tp.dims].Equal(ms) {
		ix.err = fr.errorf(ix.site.pos, "the mask's shape %v does not match the dimensions it indexes, %v (of shape %v)", ms, s[at:at+tp.dims], s)
		return nil, nil
	}
	m, err := fr.th.RT.Read(tp.ref)
	if err != nil {
		ix.err = fr.wrap(ix.site.pos, err)
		return nil, nil
	}
	var pos []int64
	for i := range m.Numel() {
		if m.Buf[i] != 0 {
			pos = append(pos, int64(i))
		}
	}
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{len(pos)}, DType: tensor.Int64})
	copy(d.I64(), pos)
	return slices.Concat(s[:at], tensor.Shape{ms.Numel()}, s[at+tp.dims:]), ix.Host(d)
}

// positions is the integer index idx into dimension at, of size n, as
// int64 positions from 0 (negative ones count from the end); a ready
// index is checked first, so that the error names the position written.
func (ix *tensorIndexer) positions(idx *refs.Ref, at, n int) *refs.Ref {
	if h := idx.Host(); h != nil && idx.DType() == tensor.Int64 {
		for _, v := range h.I64() {
			if v < -int64(n) || v >= int64(n) {
				ix.err = ix.fr.errorf(ix.site.pos, "index %d is out of bounds for dimension %d with size %d", v, at, n)
				return nil
			}
		}
	}
	idx = ix.Cast(idx, tensor.Int64)
	return ix.Op(ops.Where, nil, ix.Op(ops.Lt, nil, idx, ix.Constant(ops.IntScalar(0))), ix.Op(ops.Add, nil, idx, ix.Constant(ops.IntScalar(int64(n)))), idx)
}
