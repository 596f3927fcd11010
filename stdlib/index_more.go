package stdlib

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch's indexing functions, composed of the gather family's ops
// (gather.go) the way the language's x[idx] and x[mask] are (lang/eval's
// index_tensor.go): an index of positions is read on the host, checked
// and wrapped there, and becomes an index_select, a scatter or a
// scatter_add; a mask is read on the host and becomes the positions of
// its true elements. Gradients come from those ops and match torch's:
// take and masked_select add the gradient back at each position read,
// index_add and index_copy give source the gradient at the slices it
// went to (every one, a repeated index too), index_fill gives a 0-d
// value tensor the sum over the filled elements, masked_scatter source
// the gradient at the elements it filled (zeros for its unused tail).

func init() {
	register("take", "take(input, index): input's elements at the int64 positions index holds, counted in input flattened row-major (negative ones from the end), in index's shape, as torch.take", takeBuiltin)
	register("take_along_dim", "take_along_dim(input, indices, dim=none): input's elements at the int64 indices along dim, input and indices broadcast in the other dimensions (dim none: input and indices flattened), as torch.take_along_dim", takeAlongDimBuiltin)
	register("index_add", "index_add(input, dim, index, source, alpha=1): input with alpha times source's slices along dim added to the slices the 1-d int64 (or int32) index names, a repeated index adding each, as torch.index_add", indexAddBuiltin)
	register("index_copy", "index_copy(input, dim, index, source): input with the slices along dim that the 1-d int64 index names replaced by source's slices, as torch.index_copy; where index repeats a position the last of its slices is kept (torch leaves that unspecified; its CPU kernel also keeps the last)", indexCopyBuiltin)
	register("index_fill", "index_fill(input, dim, index, value): input with the slices along dim that the 1-d int64 index names (negative ones from the end) set to value, a number or a 0-d tensor, in input's dtype, as torch.index_fill", indexFillBuiltin)
	register("masked_select", "masked_select(input, mask): the 1-d tensor of input's elements where the bool mask is true, input and mask broadcast together, in row-major order, as torch.masked_select", maskedSelectBuiltin)
	register("masked_scatter", "masked_scatter(input, mask, source): input (broadcast with the bool mask) with the elements where mask is true replaced, in row-major order, by source's first elements, as torch.masked_scatter", maskedScatterBuiltin)
}

// readInts reads an integer tensor on the host (waiting for the ops that
// make it) as int64 values.
func readInts(th *eval.Thread, r *refs.Ref) ([]int64, error) {
	d, err := th.RT.Read(r)
	if err != nil {
		return nil, err
	}
	out := make([]int64, d.Numel())
	for i := range out {
		out[i] = d.IntAt(i)
	}
	return out, nil
}

// hostInts is a ref holding the int64 values vs in shape s.
func (c *chain) hostInts(vs []int64, s tensor.Shape) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	d := tensor.NewDense(tensor.Meta{Shape: s.Clone(), DType: tensor.Int64})
	copy(d.I64(), vs)
	return c.Host(d)
}

func takeBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, index *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "index", &index); err != nil {
		return nil, err
	}
	if index.DType() != tensor.Int64 {
		return nil, fmt.Errorf("%s: the index must be an int64 tensor, got %v", b.Name, index.Meta())
	}
	pos, err := readInts(th, index)
	if err != nil {
		return nil, err
	}
	n := int64(x.Shape().Numel())
	if n == 0 && len(pos) > 0 {
		return nil, fmt.Errorf("%s: cannot take index %d from an empty tensor", b.Name, pos[0])
	}
	if err := wrapFlat(b.Name, pos, n); err != nil {
		return nil, err
	}
	c := newChain(th)
	flat := c.Reshape(x, tensor.Shape{int(n)})
	out := c.Op(ops.IndexSelect, ops.DimAttrs{Dim: 0}, flat, c.hostInts(pos, tensor.Shape{len(pos)}))
	return c.Result(c.Reshape(out, index.Shape()))
}

// wrapFlat checks positions into a tensor of n elements, counted
// row-major, against [-n, n) and wraps the negative ones, in place.
func wrapFlat(fname string, pos []int64, n int64) error {
	for i, v := range pos {
		if v < -n || v >= n {
			return fmt.Errorf("%s: index %d is out of range for a tensor of %d elements", fname, v, n)
		}
		if v < 0 {
			pos[i] = v + n
		}
	}
	return nil
}

// wrapDim checks positions along dimension dim of size n against [0, n),
// or [-n, n) with wrap, and wraps the negative ones, in place.
func wrapDim(fname string, pos []int64, dim int, n int64, wrap bool) error {
	lo := int64(0)
	if wrap {
		lo = -n
	}
	for i, v := range pos {
		if v < lo || v >= n {
			return fmt.Errorf("%s: index %d is out of bounds for dimension %d with size %d", fname, v, dim, n)
		}
		if v < 0 {
			pos[i] = v + n
		}
	}
	return nil
}

// checkReadyIndex checks the values of an index that is already on the
// host against [0, n) (one still being computed is checked by its op).
func checkReadyIndex(fname string, idx *refs.Ref, dim, n int) error {
	h := idx.Host()
	if h == nil || idx.DType() != tensor.Int64 {
		return nil
	}
	for _, v := range h.I64() {
		if v < 0 || v >= int64(n) {
			return fmt.Errorf("%s: index %d is out of bounds for dimension %d with size %d", fname, v, dim, n)
		}
	}
	return nil
}

func takeAlongDimBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, idx *refs.Ref
	var dimV eval.Value = eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "indices", &idx, "dim?", &dimV); err != nil {
		return nil, err
	}
	if idx.DType() != tensor.Int64 {
		return nil, fmt.Errorf("%s: the indices must be an int64 tensor, got %v", b.Name, idx.Meta())
	}
	xs, is := x.Shape(), idx.Shape()
	c := newChain(th)
	if _, none := dimV.(eval.NoneType); none {
		// torch: input.view(-1).gather(0, indices.view(-1)).
		if err := checkReadyIndex(b.Name, idx, 0, xs.Numel()); err != nil {
			return nil, err
		}
		flat := c.Reshape(x, tensor.Shape{xs.Numel()})
		return named(b.Name)(c.Result(c.Op(ops.Gather, ops.DimAttrs{Dim: 0}, flat, c.Reshape(idx, tensor.Shape{is.Numel()}))))
	}
	dim, ok := th.AsInt(dimV)
	if !ok {
		return nil, fmt.Errorf("%s: dim must be an int or none, not %s", b.Name, eval.Describe(dimV))
	}
	if len(xs) != len(is) {
		return nil, fmt.Errorf("%s: input and indices must have the same number of dimensions, got shapes %v and %v", b.Name, xs, is)
	}
	d, err := dimOf(b.Name, dim, xs)
	if err != nil {
		return nil, err
	}
	// torch broadcasts every dimension but dim: indices to the common
	// shape, input to it with its own size along dim.
	xd := slices.Clone(xs)
	xd[d] = is[d]
	bs, err := ops.BroadcastShapes(xd, is)
	if err != nil {
		return nil, fmt.Errorf("%s: input of shape %v and indices of shape %v do not broadcast outside dimension %d", b.Name, xs, is, d)
	}
	if err := checkReadyIndex(b.Name, idx, d, xs[d]); err != nil {
		return nil, err
	}
	xb := slices.Clone(bs)
	xb[d] = xs[d]
	out := c.Op(ops.Gather, ops.DimAttrs{Dim: d}, c.Expand(x, xb), c.Expand(idx, bs))
	return named(b.Name)(c.Result(out))
}

// indexed is what index_add, index_copy and index_fill read: the
// dimension, the shape worked on (a 0-d input as [1]) and the checked
// positions along dim (negative ones wrapped where torch wraps them).
type indexed struct {
	dim   int
	shape tensor.Shape
	pos   []int64
}

// readIndexed checks dim and the 0-d or 1-d index of a torch index_*
// function on input x and reads the index; int32 is taken where torch
// takes it (index_add), negative positions where it wraps them
// (index_fill).
func readIndexed(th *eval.Thread, fname string, x *refs.Ref, dim int, index *refs.Ref, int32ok, wrap bool) (*indexed, error) {
	ws := x.Shape()
	if len(ws) == 0 {
		ws = tensor.Shape{1}
	}
	d, err := dimOf(fname, dim, ws)
	if err != nil {
		return nil, fmt.Errorf("%s: dim %d is out of range for a tensor of shape %v", fname, dim, x.Shape())
	}
	if dt := index.DType(); dt != tensor.Int64 && (!int32ok || dt != tensor.Int32) {
		want := "int64"
		if int32ok {
			want = "int64 or int32"
		}
		return nil, fmt.Errorf("%s: the index must be an %s tensor, got %v", fname, want, index.Meta())
	}
	if len(index.Shape()) > 1 {
		return nil, fmt.Errorf("%s: the index must be 0-d or 1-d, got shape %v", fname, index.Shape())
	}
	pos, err := readInts(th, index)
	if err != nil {
		return nil, err
	}
	if err := wrapDim(fname, pos, d, int64(ws[d]), wrap); err != nil {
		return nil, err
	}
	return &indexed{dim: d, shape: ws, pos: pos}, nil
}

// readIndexedSource is readIndexed for index_add, index_copy and
// index_reduce, which also take a source: it checks the source too and
// returns the shape it is worked on in (sourceShape).
func readIndexedSource(th *eval.Thread, fname string, x *refs.Ref, dim int, index, src *refs.Ref, int32ok bool) (*indexed, tensor.Shape, error) {
	ix, err := readIndexed(th, fname, x, dim, index, int32ok, false)
	if err != nil {
		return nil, nil, err
	}
	ws, err := ix.sourceShape(fname, x, src)
	if err != nil {
		return nil, nil, err
	}
	return ix, ws, nil
}

// sourceShape checks source against the input of index_add and
// index_copy and returns the shape it is worked on in: the input's with
// dim of the index's length. As torch, a 0-d input takes a 0-d or 1-d
// source of one element per index and a 1-d input a 0-d source for one
// index.
func (ix *indexed) sourceShape(fname string, x, src *refs.Ref) (tensor.Shape, error) {
	k := len(ix.pos)
	ss := src.Shape()
	want := slices.Clone(ix.shape)
	want[ix.dim] = k
	switch {
	case src.DType() != x.DType():
		return nil, fmt.Errorf("%s: source (%s) must have the input's dtype %s", fname, src.DType(), x.DType())
	case len(x.Shape()) == 0 && len(ss) <= 1 && ss.Numel() == k:
	case len(x.Shape()) == 1 && len(ss) == 0 && k == 1:
	case !ss.Equal(want):
		return nil, fmt.Errorf("%s: source of shape %v does not match the input's shape %v with dimension %d of size %d (one slice per index)", fname, ss, x.Shape(), ix.dim, k)
	}
	return want, nil
}

// slicesIndex is the positions as an index of shape s for scatter along
// the dimension: each position repeated over its slice.
func (c *chain) slicesIndex(ix *indexed, s tensor.Shape) *refs.Ref {
	at := make(tensor.Shape, len(s))
	for i := range at {
		at[i] = 1
	}
	at[ix.dim] = len(ix.pos)
	return c.Expand(c.hostInts(ix.pos, at), s)
}

func indexAddBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, index, src *refs.Ref
	var dim int
	var alphaV eval.Value = eval.Int(1)
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim", &dim, "index", &index, "source", &src, "alpha?", &alphaV); err != nil {
		return nil, err
	}
	alpha, ok := th.AsFloat(alphaV)
	if !ok {
		return nil, fmt.Errorf("%s: alpha must be a number, not %s", b.Name, eval.Describe(alphaV))
	}
	dt := x.DType()
	if !dt.IsFloat() && !isIntValue(alphaV) {
		return nil, fmt.Errorf("%s: alpha must be an integer for an input of dtype %s, got %v", b.Name, dt, alpha)
	}
	ix, ws, err := readIndexedSource(th, b.Name, x, dim, index, src, true)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	if len(ix.pos) == 0 {
		return c.Result(x)
	}
	xw, sw := c.Reshape(x, ix.shape), c.Reshape(src, ws)
	if dt == tensor.Bool {
		// torch adds bools as integers, any nonzero sum true.
		xw, sw = c.Cast(xw, tensor.Int64), c.Cast(sw, tensor.Int64)
	}
	if alpha != 1 {
		sw = c.Op(ops.Mul, nil, sw, c.scalar(alpha, sw.DType()))
	}
	out := c.Op(ops.ScatterAdd, ops.DimAttrs{Dim: ix.dim}, xw, c.slicesIndex(ix, ws), sw)
	return named(b.Name)(c.Result(c.Reshape(c.Cast(out, dt), x.Shape())))
}

func indexCopyBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, index, src *refs.Ref
	var dim int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim", &dim, "index", &index, "source", &src); err != nil {
		return nil, err
	}
	ix, ws, err := readIndexedSource(th, b.Name, x, dim, index, src, false)
	if err != nil {
		return nil, err
	}
	return scatterSlices(th, b.Name, ops.Scatter, ops.DimAttrs{Dim: ix.dim}, x, src, ix, ws)
}

// scatterSlices is op (scatter or scatter_reduce, attrs along ix.dim)
// of src's slices, worked on in shape ws, into x's slices that ix names:
// index_copy and index_reduce. No position leaves x as it is.
func scatterSlices(th *eval.Thread, fname string, op ops.Op, attrs any, x, src *refs.Ref, ix *indexed, ws tensor.Shape) (eval.Value, error) {
	c := newChain(th)
	if len(ix.pos) == 0 {
		return c.Result(x)
	}
	out := c.Op(op, attrs, c.Reshape(x, ix.shape), c.slicesIndex(ix, ws), c.Reshape(src, ws))
	return named(fname)(c.Result(c.Reshape(out, x.Shape())))
}

func indexFillBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, index *refs.Ref
	var dim int
	var value eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim", &dim, "index", &index, "value", &value); err != nil {
		return nil, err
	}
	ix, err := readIndexed(th, b.Name, x, dim, index, false, true)
	if err != nil {
		return nil, err
	}
	v, err := scalarArg(th, b.Name, "value", value, x.DType())
	if err != nil {
		return nil, err
	}
	defer eval.Release(th.RT, v)
	// A bool mask along dim, true at the filled positions, then a where:
	// a 0-d value's gradient is the sum over the filled elements, each
	// counted once however often the index names it (torch's rule).
	ms := make(tensor.Shape, len(ix.shape))
	for i := range ms {
		ms[i] = 1
	}
	ms[ix.dim] = ix.shape[ix.dim]
	mask := tensor.NewDense(tensor.Meta{Shape: ms, DType: tensor.Bool})
	for _, p := range ix.pos {
		mask.Buf[p] = 1
	}
	c := newChain(th)
	out := c.Op(ops.Where, nil, c.Host(mask), v.(eval.Tensor).Ref, c.Reshape(x, ix.shape))
	return named(b.Name)(c.Result(c.Reshape(out, x.Shape())))
}

// maskPositions broadcasts x and the bool mask together and reads the
// mask's true positions in the broadcast shape, returned with it: the mask
// itself is read, and its positions are expanded on the host.
func maskPositions(c *chain, fname string, x, mask *refs.Ref) (tensor.Shape, []int64, error) {
	if dt := mask.DType(); dt != tensor.Bool && dt != tensor.Uint8 {
		return nil, nil, fmt.Errorf("%s: the mask must be a bool tensor, got %v", fname, mask.Meta())
	}
	s, err := ops.BroadcastShapes(x.Shape(), mask.Shape())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: a mask of shape %v does not broadcast with the input's shape %v", fname, mask.Shape(), x.Shape())
	}
	if _, err := tensor.CheckedNumel(s); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", fname, err)
	}
	d, err := c.Thread().RT.Read(mask)
	if err != nil {
		return nil, nil, err
	}
	return s, broadcastTrue(d, s), nil
}

// broadcastTrue lists, row-major, the positions in shape s of the true
// elements of the mask d broadcast to s, visiting only the parts of s
// where the mask has some true element.
func broadcastTrue(d *tensor.Dense, s tensor.Shape) []int64 {
	var trues []int64 // the mask's true elements, flat
	for i := range d.Numel() {
		if d.Buf[i] != 0 {
			trues = append(trues, int64(i))
		}
	}
	if d.Numel() == s.Numel() || len(trues) == 0 { // nothing broadcast
		return trues
	}
	// The mask's shape with leading ones to s's rank, the sizes of the
	// blocks of dimensions k on in both (the strides of dimension k - 1),
	// and the trailing dimensions (from tail) the mask does not
	// broadcast, where its layout is s's.
	r := len(s)
	ms := slices.Concat(slices.Repeat(tensor.Shape{1}, r-len(d.Shape)), d.Shape)
	sst, mst := make([]int64, r+1), make([]int64, r+1)
	sst[r], mst[r] = 1, 1
	tail := r
	for k := r - 1; k >= 0; k-- {
		sst[k], mst[k] = sst[k+1]*int64(s[k]), mst[k+1]*int64(ms[k])
		if tail == k+1 && ms[k] == s[k] {
			tail = k
		}
	}
	// first is the index of the first true element at or after mask
	// position m.
	first := func(m int64) int {
		i, _ := slices.BinarySearch(trues, m)
		return i
	}
	var pos []int64
	// walk places the block of s at so (dimensions k on) whose mask
	// block is at mo.
	var walk func(k int, so, mo int64)
	walk = func(k int, so, mo int64) {
		i := first(mo)
		if k == tail {
			for ; i < len(trues) && trues[i] < mo+mst[k]; i++ {
				pos = append(pos, so+trues[i]-mo)
			}
			return
		}
		if i == len(trues) || trues[i] >= mo+mst[k] {
			return // no true element below
		}
		for j := range s[k] {
			mj := j
			if ms[k] == 1 {
				mj = 0
			}
			walk(k+1, so+int64(j)*sst[k+1], mo+int64(mj)*mst[k+1])
		}
	}
	walk(0, 0, 0)
	return pos
}

func maskedSelectBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, mask *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "mask", &mask); err != nil {
		return nil, err
	}
	c := newChain(th)
	s, pos, err := maskPositions(c, b.Name, x, mask)
	if err != nil {
		return c.Abort(err)
	}
	// x's elements at those positions, read from x itself (not x
	// broadcast to the mask's shape)
	xs := x.Shape()
	if !xs.Equal(s) {
		pos = unbroadcast(pos, s, xs)
	}
	flat := c.Reshape(x, tensor.Shape{xs.Numel()})
	return named(b.Name)(c.Result(c.Op(ops.IndexSelect, ops.DimAttrs{Dim: 0}, flat, c.hostInts(pos, tensor.Shape{len(pos)}))))
}

// unbroadcast turns positions in shape s, in place, into those of the
// elements of a tensor of shape xs broadcast to s that they read.
func unbroadcast(pos []int64, s, xs tensor.Shape) []int64 {
	r, off := len(s), len(s)-len(xs)
	for i, p := range pos {
		var q, stride int64 = 0, 1
		for k := r - 1; k >= off; k-- {
			n := int64(s[k])
			if xs[k-off] != 1 {
				q += p % n * stride
				stride *= n
			}
			p /= n
		}
		pos[i] = q
	}
	return pos
}

func maskedScatterBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, mask, src *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "mask", &mask, "source", &src); err != nil {
		return nil, err
	}
	if src.DType() != x.DType() {
		return nil, fmt.Errorf("%s: source (%s) must have the input's dtype %s", b.Name, src.DType(), x.DType())
	}
	c := newChain(th)
	s, pos, err := maskPositions(c, b.Name, x, mask)
	if err != nil {
		return c.Abort(err)
	}
	m := src.Shape().Numel()
	if len(pos) > m {
		return c.Abort(fmt.Errorf("%s: source has %d elements, fewer than the mask's %d true elements", b.Name, m, len(pos)))
	}
	xe := c.Expand(x, s)
	if len(pos) == 0 {
		return named(b.Name)(c.Result(xe))
	}
	// scatter writes source's first len(pos) elements; the rest of
	// source gets a zero gradient, as in torch.
	flat := c.Reshape(xe, tensor.Shape{s.Numel()})
	out := c.Op(ops.Scatter, ops.DimAttrs{Dim: 0}, flat, c.hostInts(pos, tensor.Shape{len(pos)}), c.Reshape(src, tensor.Shape{m}))
	return named(b.Name)(c.Result(c.Reshape(out, s)))
}
