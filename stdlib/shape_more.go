package stdlib

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Shape functions of torch composed of index (slices, reversed ones),
// reshape, expand, permute, pad, cat, stack and where ops, so they
// differentiate and place like those; triu_indices and tril_indices are
// built on the host.
func init() {
	register("rot90", "rot90(input, k=1, dims=[0, 1]): input rotated by k quarter turns in the plane of dims, from the first towards the second, as torch.rot90", rot90Builtin)
	register("fliplr", "fliplr(input): input with the order of its columns (dimension 1) reversed; input must be at least 2-d, as torch.fliplr", flipDimBuiltin(1))
	register("flipud", "flipud(input): input with the order of its rows (dimension 0) reversed; input must be at least 1-d, as torch.flipud", flipDimBuiltin(0))
	register("tensor_split", "tensor_split(input, indices_or_sections, dim=0): the list of views of input along dim: an int n gives n pieces, the first size % n of them one longer; a list (or 1-d int64 tensor) of indices cuts before each index (slices as in Python, so pieces may be empty), as torch.tensor_split", tensorSplitBuiltin)
	register("hsplit", "hsplit(input, indices_or_sections): tensor_split along dimension 1 (0 for a 1-d input); an int must divide the dimension, as torch.hsplit", dimSplitBuiltin(1, 1))
	register("vsplit", "vsplit(input, indices_or_sections): tensor_split along dimension 0 of an input of at least 2 dimensions; an int must divide the dimension, as torch.vsplit", dimSplitBuiltin(2, 0))
	register("dsplit", "dsplit(input, indices_or_sections): tensor_split along dimension 2 of an input of at least 3 dimensions; an int must divide the dimension, as torch.dsplit", dimSplitBuiltin(3, 2))
	register("column_stack", "column_stack(tensors): the tensors joined along dimension 1 after making 0-d and 1-d tensors columns [n, 1], as torch.column_stack", columnStackBuiltin)
	register("row_stack", "row_stack(tensors): vstack(tensors), as torch.row_stack", stackingBuiltin(2))
	register("atleast_1d", "atleast_1d(*tensors): each tensor with at least 1 dimension (0-d becomes [1]); a tensor gives a tensor, a list or several tensors a list, as torch.atleast_1d", atLeastBuiltin(1))
	register("atleast_2d", "atleast_2d(*tensors): each tensor with at least 2 dimensions (0-d becomes [1, 1], [n] becomes [1, n]); a tensor gives a tensor, a list or several tensors a list, as torch.atleast_2d", atLeastBuiltin(2))
	register("atleast_3d", "atleast_3d(*tensors): each tensor with at least 3 dimensions (0-d becomes [1, 1, 1], [n] [1, n, 1], [m, n] [m, n, 1]); a tensor gives a tensor, a list or several tensors a list, as torch.atleast_3d", atLeastBuiltin(3))
	register("block_diag", "block_diag(*tensors): the block diagonal matrix of the tensors (0-d is [1, 1], 1-d [n] is [1, n]), zeros elsewhere, in their promoted dtype, as torch.block_diag", blockDiagBuiltin)
	register("cartesian_prod", "cartesian_prod(*tensors): the cartesian product of 1-d tensors of one dtype, [N, k] rows in lexicographic order (one tensor: itself), as torch.cartesian_prod", cartesianProdBuiltin)
	register("diag_embed", "diag_embed(input, offset=0, dim1=-2, dim2=-1): a tensor with the last dimension of input on the diagonals (offset above the main one, below when negative) of the planes of the new dimensions dim1 and dim2, zeros elsewhere, as torch.diag_embed", diagEmbedBuiltin)
	takesDevice["triu_indices"], takesDevice["tril_indices"] = true, true
	register("triu_indices", "triu_indices(row, col, offset=0, dtype=\"int64\"): the [2, n] row and column indices of the upper triangle (j - i >= offset) of a row x col matrix, row by row; dtype is int64 or int32, as torch.triu_indices", triIndicesBuiltin(true))
	register("tril_indices", "tril_indices(row, col, offset=0, dtype=\"int64\"): the [2, n] row and column indices of the lower triangle (j - i <= offset) of a row x col matrix, row by row; dtype is int64 or int32, as torch.tril_indices", triIndicesBuiltin(false))
}

// flipped is x reversed along each of dims (normalised).
func (c *chain) flipped(x *refs.Ref, dims ...int) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	items := ops.FullSlices(len(x.Shape()))
	for _, d := range dims {
		items[d].Step = -1
	}
	return c.Op(ops.Index, &ops.IndexAttrs{Items: items}, x)
}

// swapped is x with dimensions a and b exchanged.
func (c *chain) swapped(x *refs.Ref, a, b int) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	perm := make([]int, len(x.Shape()))
	for i := range perm {
		perm[i] = i
	}
	perm[a], perm[b] = b, a
	return c.Op(ops.Permute, ops.PermuteAttrs{Dims: perm}, x)
}

func rot90Builtin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	k := 1
	dims := []int{0, 1}
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "k?", &k, "dims?", &dims); err != nil {
		return nil, err
	}
	r := len(x.Shape())
	switch {
	case len(dims) != 2:
		return nil, fmt.Errorf("%s: dims must name 2 dimensions, got %v", b.Name, tensor.Shape(dims))
	case r < 2:
		return nil, fmt.Errorf("%s: the input must have at least 2 dimensions, got shape %v", b.Name, x.Shape())
	case dims[0] == dims[1] || dims[0]-dims[1] == r || dims[1]-dims[0] == r:
		return nil, fmt.Errorf("%s: the rotation dims must differ, got %d and %d", b.Name, dims[0], dims[1])
	}
	d0, err0 := tensor.NormDim(dims[0], r)
	d1, err1 := tensor.NormDim(dims[1], r)
	if err0 != nil || err1 != nil {
		return nil, fmt.Errorf("%s: dims %v are out of range for a tensor of shape %v", b.Name, tensor.Shape(dims), x.Shape())
	}
	c := newChain(th)
	switch (k%4 + 4) % 4 {
	case 1:
		return c.Result(c.swapped(c.flipped(x, d1), d0, d1))
	case 2:
		return c.Result(c.flipped(x, d0, d1))
	case 3:
		return c.Result(c.swapped(c.flipped(x, d0), d0, d1))
	}
	return c.Result(x)
}

// flipDimBuiltin is fliplr (dim 1) and flipud (dim 0).
func flipDimBuiltin(dim int) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x); err != nil {
			return nil, err
		}
		if len(x.Shape()) <= dim {
			return nil, fmt.Errorf("%s: the input must have at least %d dimensions, got shape %v", b.Name, dim+1, x.Shape())
		}
		c := newChain(th)
		return c.Result(c.flipped(x, dim))
	}
}

// pieceBytes is the host memory one piece of a split takes: its ref, its
// tensor value and its slot in the list (about 650 bytes measured), with
// room for the garbage made on the way.
const pieceBytes = 1 << 10

// checkPieces fails when a list of n pieces would not fit in memory
// (before their bounds are made).
func checkPieces(th *eval.Thread, fname string, n int) error {
	if n > 1<<31 {
		return fmt.Errorf("%s: %d pieces are too many", fname, n)
	}
	if err := th.RT.HostPool().CheckValue(int64(n) * pieceBytes); err != nil {
		return fmt.Errorf("%s: %d pieces: %v", fname, n, err)
	}
	return nil
}

// slicePieces is the list of x[..., start:stop] along dim for each bound,
// with one "index" op each.
func slicePieces(th *eval.Thread, x *refs.Ref, dim int, bounds [][2]int) (eval.Value, error) {
	out := make([]eval.Value, 0, len(bounds))
	for _, bd := range bounds {
		v, err := th.Submit(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(dim, bd[0], bd[1])}, x)
		if err != nil {
			eval.Release(th.RT, eval.NewList(out))
			return nil, err
		}
		out = append(out, v)
	}
	return eval.NewList(out), nil
}

// sectionBounds cuts n into sections pieces, the first n % sections one
// longer (torch.tensor_split with an int).
func sectionBounds(n, sections int) [][2]int {
	bounds := make([][2]int, sections)
	size, extra, at := n/sections, n%sections, 0
	for i := range bounds {
		l := size
		if i < extra {
			l++
		}
		bounds[i] = [2]int{at, at + l}
		at += l
	}
	return bounds
}

// indexBounds are the pieces of a dimension of size n cut before each of
// indices: torch slices from each index to the next, Python's way
// (negative ones count from the end, and a stop before its start gives an
// empty piece).
func indexBounds(n int, indices []int) [][2]int {
	norm := func(i int) int {
		if i < 0 {
			i += n
		}
		return min(max(i, 0), n)
	}
	bounds := make([][2]int, 0, len(indices)+1)
	start := 0
	for _, end := range append(slices.Clone(indices), n) {
		s := norm(start)
		bounds = append(bounds, [2]int{s, max(norm(end), s)})
		start = end
	}
	return bounds
}

// splitSpec reads tensor_split's indices_or_sections: sections (> 0) from
// an int or a 0-d integer tensor, or indices from a list of ints or a 1-d
// int64 tensor (read on the host).
func splitSpec(th *eval.Thread, fname string, v eval.Value) (sections int, indices []int, err error) {
	if t, ok := v.(eval.Tensor); ok {
		switch s := t.Ref.Shape(); {
		case t.Ref.DType() != tensor.Int64:
			return 0, nil, fmt.Errorf("%s: a tensor indices_or_sections must be int64, got %s", fname, t.Ref.DType())
		case len(s) > 1:
			return 0, nil, fmt.Errorf("%s: a tensor indices_or_sections must be 0-d or 1-d, got shape %v", fname, s)
		case len(s) == 1:
			d, err := th.RT.Read(t.Ref)
			if err != nil {
				return 0, nil, err
			}
			indices = make([]int, 0, d.Numel())
			for _, i := range d.I64() {
				indices = append(indices, int(i))
			}
			return 0, indices, nil
		}
	}
	if n, ok := th.AsInt(v); ok {
		if n <= 0 {
			return 0, nil, fmt.Errorf("%s: the number of sections must be positive, got %d", fname, n)
		}
		return n, nil, nil
	}
	if _, ok := v.(*eval.List); !ok {
		return 0, nil, fmt.Errorf("%s: indices_or_sections must be an int, a list of ints or an int64 tensor, not %s", fname, eval.Describe(v))
	}
	if err := eval.UnpackArgs(th, fname, []eval.Value{v}, nil, "indices_or_sections", &indices); err != nil {
		return 0, nil, err
	}
	if indices == nil {
		indices = []int{}
	}
	return 0, indices, nil
}

func tensorSplitBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var how eval.Value
	dim := 0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "indices_or_sections|sections|indices|tensor_indices_or_sections", &how, "dim?", &dim); err != nil {
		return nil, err
	}
	s := x.Shape()
	if len(s) == 0 {
		return nil, fmt.Errorf("%s: expected a tensor with at least 1 dimension, got a 0-d tensor", b.Name)
	}
	d, err := dimOf(b.Name, dim, s)
	if err != nil {
		return nil, err
	}
	sections, indices, err := splitSpec(th, b.Name, how)
	if err != nil {
		return nil, err
	}
	if indices != nil {
		if err := checkPieces(th, b.Name, len(indices)+1); err != nil {
			return nil, err
		}
		return slicePieces(th, x, d, indexBounds(s[d], indices))
	}
	if err := checkPieces(th, b.Name, sections); err != nil {
		return nil, err
	}
	return slicePieces(th, x, d, sectionBounds(s[d], sections))
}

// dimSplitBuiltin is hsplit (rank 1, dim 1), vsplit (2, 0) and dsplit
// (3, 2): the input needs rank dimensions and splits along dim (hsplit:
// 0 for a 1-d input).
func dimSplitBuiltin(rank, dim int) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		var how eval.Value
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "indices_or_sections|sections|indices", &how); err != nil {
			return nil, err
		}
		s := x.Shape()
		if len(s) < rank {
			return nil, fmt.Errorf("%s: the input must have at least %d dimensions, got shape %v", b.Name, rank, s)
		}
		d := dim
		if len(s) == 1 {
			d = 0
		}
		if _, isList := how.(*eval.List); isList {
			var indices []int
			if err := eval.UnpackArgs(th, b.Name, []eval.Value{how}, nil, "indices_or_sections", &indices); err != nil {
				return nil, err
			}
			if err := checkPieces(th, b.Name, len(indices)+1); err != nil {
				return nil, err
			}
			return slicePieces(th, x, d, indexBounds(s[d], indices))
		}
		n, ok := th.AsInt(how)
		if !ok {
			return nil, fmt.Errorf("%s: indices_or_sections must be an int or a list of ints, not %s", b.Name, eval.Describe(how))
		}
		if n <= 0 || s[d]%n != 0 {
			return nil, fmt.Errorf("%s: dimension %d of size %d does not split into %d equal sections", b.Name, d, s[d], n)
		}
		if err := checkPieces(th, b.Name, n); err != nil {
			return nil, err
		}
		return slicePieces(th, x, d, sectionBounds(s[d], n))
	}
}

func columnStackBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var xs []*refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensors", &xs); err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		return nil, fmt.Errorf("%s: expects a non-empty list of tensors", b.Name)
	}
	c := newChain(th)
	cols := make([]*refs.Ref, len(xs))
	for i, x := range xs {
		cols[i] = x
		if s := x.Shape(); len(s) < 2 {
			cols[i] = c.Reshape(x, tensor.Shape{s.Numel(), 1})
		}
	}
	return named(b.Name)(c.Result(c.Op(ops.Cat, ops.CatAttrs{Dim: 1}, cols...)))
}

// tensorArgs reads the *tensors of a builtin: tensors as separate
// arguments, or one list of them (list is then true).
func tensorArgs(th *eval.Thread, fname string, args []eval.Value, kwargs []eval.Kwarg) (xs []*refs.Ref, list bool, err error) {
	if len(kwargs) > 0 {
		return nil, false, fmt.Errorf("%s: unexpected keyword argument %q", fname, kwargs[0].Name)
	}
	if len(args) == 1 {
		if l, ok := args[0].(*eval.List); ok {
			args, list = l.Elems, true
		}
	}
	xs = make([]*refs.Ref, len(args))
	for i, a := range args {
		t, ok := a.(eval.Tensor)
		if !ok {
			return nil, false, fmt.Errorf("%s: argument %d must be a tensor, not %s", fname, i+1, eval.Describe(a))
		}
		xs[i] = t.Ref
	}
	return xs, list, nil
}

// atLeastBuiltin is atleast_1d, _2d and _3d.
func atLeastBuiltin(rank int) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		xs, list, err := tensorArgs(th, b.Name, args, kwargs)
		if err != nil {
			return nil, err
		}
		if len(xs) == 1 && !list {
			c := newChain(th)
			return c.Result(c.Reshape(xs[0], atLeast(rank, xs[0].Shape())))
		}
		out := make([]eval.Value, 0, len(xs))
		for _, x := range xs {
			v, err := th.Submit(ops.Reshape, ops.ReshapeAttrs{Shape: atLeast(rank, x.Shape())}, x)
			if err != nil {
				eval.Release(th.RT, eval.NewList(out))
				return nil, err
			}
			out = append(out, v)
		}
		return eval.NewList(out), nil
	}
}

func blockDiagBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	xs, _, err := tensorArgs(th, b.Name, args, kwargs)
	if err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		// torch gives an empty float32 [1, 0]. (An UnpackArgs of no
		// parameters first, so that describing the builtin makes none.)
		if err := eval.UnpackArgs(th, b.Name, nil, nil); err != nil {
			return nil, err
		}
		d, err := newHost(th, b.Name, tensor.Shape{1, 0}, tensor.Float32)
		if err != nil {
			return nil, err
		}
		return hostResult(th, d), nil
	}
	metas := make([]tensor.Meta, len(xs))
	rows, cols := 0, 0
	for i, x := range xs {
		s := x.Shape()
		if len(s) > 2 {
			return nil, fmt.Errorf("%s: the tensors must have 2 or fewer dimensions, tensor %d has shape %v", b.Name, i, s)
		}
		m := atLeast(2, s)
		rows, cols = rows+m[0], cols+m[1]
		metas[i] = x.Meta()
	}
	if _, err := tensor.CheckedNumel(tensor.Shape{rows, cols}); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	dt := ops.PromoteAll(metas)
	c := newChain(th)
	// Each block padded with zeros to the full width, the blocks stacked.
	parts := make([]*refs.Ref, len(xs))
	at := 0
	for i, x := range xs {
		m := atLeast(2, x.Shape())
		p := c.Cast(c.Reshape(x, m), dt)
		if m[1] != cols {
			p = c.Op(ops.Pad, ops.PadAttrs{Pads: []int{at, cols - at - m[1]}}, p)
		}
		parts[i] = p
		at += m[1]
	}
	if len(parts) == 1 {
		return named(b.Name)(c.Result(parts[0]))
	}
	return named(b.Name)(c.Result(c.Op(ops.Cat, ops.CatAttrs{Dim: 0}, parts...)))
}

func cartesianProdBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	xs, _, err := tensorArgs(th, b.Name, args, kwargs)
	if err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		return nil, fmt.Errorf("%s: expects at least one tensor", b.Name)
	}
	grid := make(tensor.Shape, len(xs))
	for i, x := range xs {
		if len(x.Shape()) != 1 {
			return nil, fmt.Errorf("%s: the tensors must be 1-d, tensor %d has shape %v", b.Name, i, x.Shape())
		}
		if x.DType() != xs[0].DType() {
			return nil, fmt.Errorf("%s: the tensors must have one dtype, got %s and %s", b.Name, xs[0].DType(), x.DType())
		}
		grid[i] = x.Shape()[0]
	}
	if len(xs) == 1 {
		th.RT.Retain(xs[0])
		return eval.Tensor{Ref: xs[0]}, nil
	}
	if _, err := tensor.CheckedNumel(append(grid.Clone(), len(xs))); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	n := grid.Numel()
	c := newChain(th)
	cols := make([]*refs.Ref, len(xs))
	for i, x := range xs {
		lay := make(tensor.Shape, len(grid))
		for k := range lay {
			lay[k] = 1
		}
		lay[i] = grid[i]
		cols[i] = c.Reshape(c.Expand(c.Reshape(x, lay), grid), tensor.Shape{n})
	}
	return named(b.Name)(c.Result(c.Op(ops.Stack, ops.CatAttrs{Dim: 1}, cols...)))
}

func diagEmbedBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	offset, dim1, dim2 := 0, -2, -1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "offset?", &offset, "dim1?", &dim1, "dim2?", &dim2); err != nil {
		return nil, err
	}
	s := x.Shape()
	r := len(s) + 1
	d1, err1 := tensor.NormDim(dim1, r)
	d2, err2 := tensor.NormDim(dim2, r)
	switch {
	case err1 != nil || err2 != nil || len(s) == 0:
		return nil, fmt.Errorf("%s: dim1 %d and dim2 %d must be dimensions of the %d-d result", b.Name, dim1, dim2, r)
	case d1 == d2:
		return nil, fmt.Errorf("%s: dim1 and dim2 are both dimension %d; they must differ", b.Name, d1)
	}
	n := s[len(s)-1]
	m := n + max(offset, -offset)
	batch := s[:len(s)-1]
	full := slices.Concat(batch, tensor.Shape{m, m})
	if _, err := tensor.CheckedNumel(full); err != nil || m < n {
		return nil, fmt.Errorf("%s: a result of %v with offset %d is too large", b.Name, s, offset)
	}
	// Rows go to dim1, columns to dim2, the batch dimensions in order to
	// the rest.
	perm := make([]int, r)
	shape := make(tensor.Shape, r)
	next := 0
	identity := true
	for k := range perm {
		switch k {
		case d1:
			perm[k] = r - 2
		case d2:
			perm[k] = r - 1
		default:
			perm[k] = next
			next++
		}
		shape[k] = full[perm[k]]
		identity = identity && perm[k] == k
	}
	c := newChain(th)
	if shape.Numel() == 0 { // x is empty too: no mask to build
		return named(b.Name)(c.Result(c.Reshape(x, shape)))
	}
	mask, err := newHost(th, b.Name, tensor.Shape{m, m}, tensor.Bool)
	if err != nil {
		return nil, err
	}
	for i := range m {
		if j := i + offset; j >= 0 && j < m {
			mask.Buf[i*m+j] = 1
		}
	}
	maskRef := c.Host(mask)
	// The value of (i, i + offset) is x[i] above the main diagonal, or
	// x[i + offset] (that is, x at the column) below it: x padded to m
	// laid along the rows or the columns, the rest masked out (a NaN in x
	// cannot reach the zeros).
	padded := x
	if m != n {
		padded = c.Op(ops.Pad, ops.PadAttrs{Pads: []int{0, m - n}}, x)
	}
	lay := slices.Concat(batch, tensor.Shape{m, 1})
	if offset < 0 {
		lay = slices.Concat(batch, tensor.Shape{1, m})
	}
	vals := c.Expand(c.Reshape(padded, lay), full)
	out := c.Op(ops.Where, nil, maskRef, vals, c.scalar(0, x.DType()))
	if !identity {
		out = c.Op(ops.Permute, ops.PermuteAttrs{Dims: perm}, out)
	}
	return named(b.Name)(c.Result(out))
}

// triCount is Σ_{i<rows} clamp(a + i, 0, cols): the number of elements of
// a triangle whose row i holds clamp(a + i, 0, cols) of them, computed
// exactly (the arguments may be near the int64 limits).
func triCount(a, rows, cols *big.Int) *big.Int {
	clamp := func(v, lo, hi *big.Int) *big.Int {
		switch {
		case v.Cmp(lo) < 0:
			return lo
		case v.Cmp(hi) > 0:
			return hi
		}
		return v
	}
	// Rows [0, i0) hold none, [i0, i1) hold a + i, [i1, rows) all cols.
	i0 := clamp(new(big.Int).Neg(a), big.NewInt(0), rows)
	i1 := clamp(new(big.Int).Sub(cols, a), i0, rows)
	span := new(big.Int).Sub(i1, i0)
	// Σ_{i0 <= i < i1} (a + i) = span·a + span·(i0 + i1 - 1)/2.
	lin := new(big.Int).Mul(span, a)
	tri := new(big.Int).Add(i0, i1)
	tri.Mul(span, tri.Sub(tri, big.NewInt(1)))
	lin.Add(lin, tri.Quo(tri, big.NewInt(2)))
	full := new(big.Int).Sub(rows, i1)
	return lin.Add(lin, full.Mul(full, cols))
}

// triIndicesBuiltin is triu_indices (upper) and tril_indices.
func triIndicesBuiltin(upper bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var rows, cols, offset int
		var dtv eval.Value = eval.None
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "row", &rows, "col", &cols, "offset?", &offset, "dtype?", &dtv); err != nil {
			return nil, err
		}
		dt, err := dtypeOr(b.Name, dtv, tensor.Int64)
		if err != nil {
			return nil, err
		}
		if dt != tensor.Int64 && dt != tensor.Int32 {
			return nil, fmt.Errorf("%s: dtype must be an integer type, got %s (int64 or int32, as torch)", b.Name, dt)
		}
		if rows < 0 || cols < 0 {
			return nil, fmt.Errorf("%s: row and col must not be negative, got %d and %d", b.Name, rows, cols)
		}
		// Offsets beyond -row and col select all or nothing, as those do.
		offset = min(max(offset, -rows), cols)
		// Row i of the lower triangle holds clamp(i + offset + 1, 0, col)
		// elements; read bottom up (i' = row - 1 - i), the upper one's
		// hold clamp(col - offset - row + 1 + i', 0, col).
		r, cl := big.NewInt(int64(rows)), big.NewInt(int64(cols))
		off := big.NewInt(int64(offset))
		a := new(big.Int).Add(off, big.NewInt(1))
		if upper {
			a.Sub(new(big.Int).Sub(cl, r), off)
			a.Add(a, big.NewInt(1))
		}
		count := triCount(a, r, cl)
		if !count.IsInt64() || count.Int64() > 1<<40 {
			return nil, fmt.Errorf("%s: %v indices are too many", b.Name, count)
		}
		n := int(count.Int64())
		d, err := newHost(th, b.Name, tensor.Shape{2, n}, dt)
		if err != nil {
			return nil, err
		}
		k := 0
		put := func(i, j int) {
			if dt == tensor.Int64 { // exact beyond 2^53
				d.I64()[k], d.I64()[n+k] = int64(i), int64(j)
			} else {
				d.Set(k, float64(i))
				d.Set(n+k, float64(j))
			}
			k++
		}
		if upper {
			// Rows from 0 while they hold any: j from max(i + offset, 0).
			for i := 0; i < rows && k < n; i++ {
				for j := max(i+offset, 0); j < cols; j++ {
					put(i, j)
				}
			}
		} else {
			// Rows from max(-offset, 0): j up to min(i + offset, col - 1).
			for i := max(-offset, 0); i < rows && k < n; i++ {
				for j := 0; j <= min(i+offset, cols-1); j++ {
					put(i, j)
				}
			}
		}
		return hostResult(th, d), nil
	}
}
