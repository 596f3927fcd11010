package stdlib

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch's out-of-place embeddings and puts, and unique_consecutive.
// slice_scatter and select_scatter are the index_assign op of x[...] = v
// (src cast to input's dtype, as torch copies it); diagonal_scatter is a
// scatter into input with the diagonal's dimensions moved last and
// merged; index_put and put read and check their indices on the host
// (index_more.go's way) and become a scatter, or a scatter_add with
// accumulate, over input's rows. The gradients are those ops': input gets
// the gradient where it was kept (everywhere with accumulate), src and
// values where they were written (every write of a repeated index, as in
// torch). unique_consecutive is unique's host code without the sort.

func init() {
	register("unique_consecutive", "unique_consecutive(input, return_inverse=false, return_counts=false, dim=none): input with each run of equal consecutive elements (or slices along dim) kept once, with the run of each element and the runs' lengths when asked (then a list); NaNs are never equal, as torch.unique_consecutive", uniqueConsecutiveBuiltin)
	register("slice_scatter", "slice_scatter(input, src, dim=0, start=none, end=none, step=1): input with the slice start:end:step along dim (Python's bounds; step positive) replaced by src, of that slice's shape, cast to input's dtype, as torch.slice_scatter", sliceScatterBuiltin)
	register("select_scatter", "select_scatter(input, src, dim, index): input with the slice at index (negative from the end) along dim replaced by src, of select(input, dim, index)'s shape, cast to input's dtype, as torch.select_scatter", selectScatterBuiltin)
	register("diagonal_scatter", "diagonal_scatter(input, src, offset=0, dim1=0, dim2=1): input with its diagonal (diagonal(input, offset, dim1, dim2)) replaced by src, of that diagonal's shape, cast to input's dtype, as torch.diagonal_scatter", diagonalScatterBuiltin)
	register("index_put", "index_put(input, indices, values, accumulate=false): input with input[indices] set to values (added to it with accumulate), indices a list of int64 tensors (negative from the end) and bool masks over input's leading dimensions, broadcast together (a 0-d bool mask, which torch takes, is an error); values has input's dtype and broadcasts to the indexed shape; a repeated index keeps its last value (torch leaves that unspecified; its CPU kernel also keeps the last) or, with accumulate, adds them all, as torch.index_put", indexPutBuiltin)
	register("put", "put(input, index, source, accumulate=false): input with the elements at the int64 positions index holds (counted in input flattened row-major, negative from the end) set to source's elements in order (added to them with accumulate); source has input's dtype and as many elements as index, a repeated index keeping its last value (torch leaves that unspecified; its CPU kernel also keeps the last), as torch.put", putBuiltin)
}

func uniqueConsecutiveBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	inverse, counts := false, false
	var dimV eval.Value = eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "return_inverse?", &inverse, "return_counts?", &counts, "dim?", &dimV); err != nil {
		return nil, err
	}
	return uniqueOf(th, b.Name, x, dimV, inverse, counts, true)
}

// embed is x with x[items] (basic indexing) replaced by src, which must
// have that part's shape and is cast to x's dtype.
func (c *chain) embed(fname string, x, src *refs.Ref, items []ops.IndexItem) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	rs, err := ops.ResolveIndex(x.Shape(), items)
	if err != nil {
		c.Fail(fmt.Errorf("%s: %v", fname, err))
		return nil
	}
	part := tensor.Shape{}
	for _, r := range rs {
		if r.Keep {
			part = append(part, r.Len)
		}
	}
	if !src.Shape().Equal(part) {
		c.Fail(fmt.Errorf("%s: src of shape %v does not match the shape of the part of input it replaces, %v", fname, src.Shape(), part))
		return nil
	}
	if part.Numel() == 0 {
		return x
	}
	return c.Op(ops.IndexAssign, &ops.IndexAttrs{Items: items}, x, c.Cast(src, x.DType()))
}

func sliceScatterBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, src *refs.Ref
	dim, step := 0, 1
	var start, end eval.OptInt
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "src", &src, "dim?", &dim, "start?", &start, "end?", &end, "step?", &step); err != nil {
		return nil, err
	}
	s := x.Shape()
	if len(s) == 0 {
		return nil, fmt.Errorf("%s: cannot slice a 0-d tensor", b.Name)
	}
	d, err := dimOf(b.Name, dim, s)
	if err != nil {
		return nil, err
	}
	if step <= 0 {
		return nil, fmt.Errorf("%s: step must be positive, got %d", b.Name, step)
	}
	items := ops.FullSlices(d + 1)
	items[d] = ops.IndexItem{Kind: ops.IndexSlice, Start: start.V, HasStart: start.Set, Stop: end.V, HasStop: end.Set, Step: step}
	c := newChain(th)
	return named(b.Name)(c.Result(c.embed(b.Name, x, src, items)))
}

func selectScatterBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, src *refs.Ref
	var dim, index int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "src", &src, "dim", &dim, "index", &index); err != nil {
		return nil, err
	}
	items, err := selectAt(b.Name, x.Shape(), dim, index)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	return named(b.Name)(c.Result(c.embed(b.Name, x, src, items)))
}

func diagonalScatterBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, src *refs.Ref
	offset, dim1, dim2 := 0, 0, 1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "src", &src, "offset?", &offset, "dim1?", &dim1, "dim2?", &dim2); err != nil {
		return nil, err
	}
	l, err := diagonalLayout(b.Name, x.Shape(), dim1, dim2)
	if err != nil {
		return nil, err
	}
	pos := diagonalPositions(l.rows, l.cols, offset)
	k := pos.Numel()
	want := slices.Concat(l.outer, tensor.Shape{k})
	if !src.Shape().Equal(want) {
		return nil, fmt.Errorf("%s: src of shape %v does not match the shape of the diagonal it replaces, %v", b.Name, src.Shape(), want)
	}
	c := newChain(th)
	if want.Numel() == 0 {
		return c.Result(x)
	}
	// src scattered along the merged last dimension at the diagonal's
	// positions, then the dimensions put back.
	moved := c.Op(ops.Permute, ops.PermuteAttrs{Dims: l.perm}, x)
	flat := c.Reshape(moved, slices.Concat(l.outer, tensor.Shape{l.rows * l.cols}))
	lay := slices.Concat(slices.Repeat(tensor.Shape{1}, len(l.outer)), tensor.Shape{k})
	idx := c.Expand(c.Reshape(c.Host(pos), lay), want)
	out := c.Op(ops.Scatter, ops.DimAttrs{Dim: len(l.outer)}, flat, idx, c.Cast(src, x.DType()))
	out = c.Reshape(out, slices.Concat(l.outer, tensor.Shape{l.rows, l.cols}))
	back := make([]int, len(l.perm))
	for i, p := range l.perm {
		back[p] = i
	}
	return named(b.Name)(c.Result(c.Op(ops.Permute, ops.PermuteAttrs{Dims: back}, out)))
}

// putRows writes src into x along dimension 0 at the rows index names
// (scatter's layout): a scatter, or with accumulate a scatter_add (bools
// added as integers, any nonzero sum true, as torch).
func (c *chain) putRows(x, index, src *refs.Ref, accumulate bool) *refs.Ref {
	dt := x.DType()
	if !accumulate {
		return c.Op(ops.Scatter, ops.DimAttrs{Dim: 0}, x, index, src)
	}
	if dt == tensor.Bool {
		x, src = c.Cast(x, tensor.Int64), c.Cast(src, tensor.Int64)
	}
	return c.Cast(c.Op(ops.ScatterAdd, ops.DimAttrs{Dim: 0}, x, index, src), dt)
}

// putIndex is one index of index_put, over one dimension of input: its
// shape and its positions, checked and wrapped (a mask of k dimensions
// gives k of them, each the coordinates of its true elements).
type putIndex struct {
	shape tensor.Shape
	pos   []int64
}

// putIndices checks index_put's indices against input shape s and reads
// them on the host.
func putIndices(th *eval.Thread, fname string, s tensor.Shape, indices []*refs.Ref) ([]putIndex, error) {
	if len(indices) == 0 {
		return nil, fmt.Errorf("%s: indices must hold at least one tensor", fname)
	}
	covered := 0
	for i, ix := range indices {
		switch dt := ix.DType(); {
		case dt == tensor.Bool || dt == tensor.Uint8:
			if len(ix.Shape()) == 0 {
				return nil, fmt.Errorf("%s: a 0-d bool index (index %d) is not supported; use where()", fname, i)
			}
			covered += len(ix.Shape())
		case dt == tensor.Int64:
			covered++
		default:
			return nil, fmt.Errorf("%s: index %d must be an int64 tensor or a bool mask, got %v", fname, i, ix.Meta())
		}
	}
	if covered > len(s) {
		return nil, fmt.Errorf("%s: too many indices for a tensor of shape %v: they cover %d dimensions", fname, s, covered)
	}
	var out []putIndex
	at := 0
	for i, ix := range indices {
		if dt := ix.DType(); dt == tensor.Int64 {
			pos, err := readInts(th, ix)
			if err != nil {
				return nil, err
			}
			if err := wrapDim(fname, pos, at, int64(s[at]), true); err != nil {
				return nil, err
			}
			out = append(out, putIndex{shape: ix.Shape(), pos: pos})
			at++
			continue
		}
		ms := ix.Shape()
		if !ms.Equal(s[at : at+len(ms)]) {
			return nil, fmt.Errorf("%s: the mask of shape %v (index %d) does not match the dimensions it indexes, %v of the input's shape %v", fname, ms, i, s[at:at+len(ms)], s)
		}
		m, err := th.RT.Read(ix)
		if err != nil {
			return nil, err
		}
		var trues []int
		for p := range m.Numel() {
			if m.Buf[p] != 0 {
				trues = append(trues, p)
			}
		}
		if err := th.RT.HostPool().CheckValue(int64(len(trues)) * 8 * int64(len(ms))); err != nil {
			return nil, fmt.Errorf("%s: the positions of mask %d: %v", fname, i, err)
		}
		strides := ms.Strides()
		for k := range ms {
			pos := make([]int64, len(trues))
			for j, p := range trues {
				pos[j] = int64(p / strides[k] % ms[k])
			}
			out = append(out, putIndex{shape: tensor.Shape{len(trues)}, pos: pos})
		}
		at += len(ms)
	}
	return out, nil
}

func indexPutBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, values *refs.Ref
	var indices []*refs.Ref
	accumulate := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "indices", &indices, "values", &values, "accumulate?", &accumulate); err != nil {
		return nil, err
	}
	if values.DType() != x.DType() {
		return nil, fmt.Errorf("%s: values (%s) must have the input's dtype %s", b.Name, values.DType(), x.DType())
	}
	s := x.Shape()
	ixs, err := putIndices(th, b.Name, s, indices)
	if err != nil {
		return nil, err
	}
	// The indices broadcast together; the indexed part is that shape
	// followed by the dimensions they leave.
	shapes := make([]tensor.Shape, len(ixs))
	for i, ix := range ixs {
		shapes[i] = ix.shape
	}
	bs, err := broadcastAll(b.Name, shapes)
	if err != nil {
		list := make([]string, len(shapes))
		for i, s := range shapes {
			list[i] = s.String()
		}
		return nil, fmt.Errorf("%s: indices of shapes %s do not broadcast together", b.Name, strings.Join(list, ", "))
	}
	lead, rest := s[:len(ixs)], s[len(ixs):]
	part := slices.Concat(bs, rest)
	if _, err := tensor.CheckedNumel(part); err != nil {
		return nil, fmt.Errorf("%s: the indexed part: %v", b.Name, err)
	}
	if vs, err := ops.BroadcastShapes(part, values.Shape()); err != nil || !vs.Equal(part) {
		return nil, fmt.Errorf("%s: values of shape %v do not broadcast to the indexed shape %v", b.Name, values.Shape(), part)
	}
	n, width := bs.Numel(), rest.Numel()
	if n == 0 || width == 0 {
		th.RT.Retain(x)
		return eval.Tensor{Ref: x}, nil
	}
	// Each indexed row's position among input's rows (its leading
	// dimensions flattened).
	rows, err := newHost(th, b.Name, tensor.Shape{n, 1}, tensor.Int64)
	if err != nil {
		return nil, err
	}
	p := rows.I64()
	strides := lead.Strides()
	for k, ix := range ixs {
		at := broadcastIndex(ix.shape, bs)
		for i := range p {
			p[i] += ix.pos[at(i)] * int64(strides[k])
		}
	}
	c := newChain(th)
	xw := c.Reshape(x, tensor.Shape{lead.Numel(), width})
	vw := c.Reshape(c.Expand(values, part), tensor.Shape{n, width})
	out := c.putRows(xw, c.Expand(c.Host(rows), tensor.Shape{n, width}), vw, accumulate)
	return named(b.Name)(c.Result(c.Reshape(out, s)))
}

func putBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, index, src *refs.Ref
	accumulate := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "index", &index, "source", &src, "accumulate?", &accumulate); err != nil {
		return nil, err
	}
	if index.DType() != tensor.Int64 {
		return nil, fmt.Errorf("%s: the index must be an int64 tensor, got %v", b.Name, index.Meta())
	}
	if src.DType() != x.DType() {
		return nil, fmt.Errorf("%s: source (%s) must have the input's dtype %s", b.Name, src.DType(), x.DType())
	}
	m := index.Shape().Numel()
	if src.Shape().Numel() != m {
		return nil, fmt.Errorf("%s: index and source must have as many elements, got %d and %d", b.Name, m, src.Shape().Numel())
	}
	n := int64(x.Shape().Numel())
	if n == 0 && m > 0 {
		return nil, fmt.Errorf("%s: cannot put elements into an empty tensor", b.Name)
	}
	pos, err := readInts(th, index)
	if err != nil {
		return nil, err
	}
	if err := wrapFlat(b.Name, pos, n); err != nil {
		return nil, err
	}
	c := newChain(th)
	if m == 0 {
		return c.Result(x)
	}
	flat := c.Reshape(x, tensor.Shape{int(n)})
	out := c.putRows(flat, c.hostInts(pos, tensor.Shape{m}), c.Reshape(src, tensor.Shape{m}), accumulate)
	return named(b.Name)(c.Result(c.Reshape(out, x.Shape())))
}
