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

// More of torch's shape and product functions, composed of reshape,
// expand, index, index_select and matmul ops (so they differentiate as
// those do), and torch's predicates on tensors, answered on the host.
// The embeddings (slice_scatter and kin), index_put, put and
// unique_consecutive are in shape_port_index.go.
func init() {
	register("mm", "mm(input, mat2): the matrix product of the 2-d tensors input [n, m] and mat2 [m, p], of shape [n, p], in their one dtype (other ranks are an error: matmul takes them), as torch.mm", mmBuiltin)
	register("inner", "inner(input, other): the sums of products over the last dimensions of input and other (of one size and one dtype), of shape input.shape[:-1] + other.shape[:-1]; a 0-d operand multiplies the other, as torch.inner", innerBuiltin)
	register("equal", "equal(input, other): true when input and other have the same shape and equal elements (compared as input == other compares them: NaN equals nothing), a bool read on the host, as torch.equal", equalBuiltin)
	register("ravel", "ravel(input): input flattened to 1-d in row-major order, as torch.ravel", ravelBuiltin)
	register("select", "select(input, dim, index): the slice of input at index (negative from the end) along dim, that dimension removed, as torch.select", selectBuiltin)
	register("broadcast_tensors", "broadcast_tensors(*tensors): the list of the tensors (as separate arguments or one list) expanded to their common broadcast shape, as torch.broadcast_tensors", broadcastTensorsBuiltin)
	register("broadcast_shapes", "broadcast_shapes(*shapes): the broadcast shape of the shapes (lists of ints, or ints for 1-d shapes) as a list of ints, [] for none, as torch.broadcast_shapes", broadcastShapesBuiltin)
	register("diagflat", "diagflat(input, offset=0): the 2-d tensor with input flattened on its diagonal offset (above the main one when positive, below when negative), zeros elsewhere, as torch.diagflat", diagflatBuiltin)
	register("combinations", "combinations(input, r=2, with_replacement=false): the [k, r] rows of r elements of the 1-d input taken at increasing positions (non-decreasing with with_replacement), in lexicographic order of the positions; r = 0 gives an empty 1-d tensor, r beyond the length without replacement a [0, r] one, as torch.combinations", combinationsBuiltin)
	register("chain_matmul", "chain_matmul(*matrices): the product of one or more 2-d tensors of one dtype (as separate arguments or one list) in the cheapest order, multi_dot's; one matrix is returned as it is, as torch.chain_matmul (deprecated in torch for torch.linalg.multi_dot)", chainMatmulBuiltin)
	register("trapz", "trapz(y, x=none, dx=1, dim=-1): trapezoid(y, x, dx, dim), the integral of y along dim by the trapezoidal rule at spacing dx or at the sample points x, as torch.trapz", trapezoidBuiltin(false))
	register("is_tensor", "is_tensor(obj): whether obj is a tensor; tref's numbers are 0-d tensors, so is_tensor(1) is true where torch.is_tensor says false for a Python number, as torch.is_tensor", isTensorBuiltin)
	register("is_floating_point", "is_floating_point(input): whether input's dtype is a floating-point one (float16, bfloat16, float32, float64); a number is a 0-d tensor (so is_floating_point(1.5) is true where torch refuses a Python number), as torch.is_floating_point", metaQuery(func(m tensor.Meta) eval.Value { return eval.Bool(m.DType.IsFloat()) }))
	register("is_signed", "is_signed(input): whether input's dtype holds negative values (the floating-point and signed integer dtypes; not bool or the unsigned ones), as torch's x.is_signed()", metaQuery(func(m tensor.Meta) eval.Value {
		return eval.Bool(m.DType.IsFloat() || (m.DType.IsInt() && !m.DType.IsUnsigned()))
	}))
	register("is_complex", "is_complex(input): false: tref has no complex dtype, as torch.is_complex of a real tensor", metaQuery(func(tensor.Meta) eval.Value { return eval.Bool(false) }))
	register("is_contiguous", "is_contiguous(input): true: tref's tensors are always contiguous (see contiguous), as torch's x.is_contiguous()", metaQuery(func(tensor.Meta) eval.Value { return eval.Bool(true) }))
	register("element_size", "element_size(input): the bytes of one element of input's dtype, as torch's x.element_size() (x.itemsize too)", metaQuery(func(m tensor.Meta) eval.Value { return eval.Int(m.DType.Size()) }))
	register("is_same_size", "is_same_size(input, other): whether the two have the same shape, as torch's x.is_same_size(other)", isSameSizeBuiltin)
	register("is_nonzero", "is_nonzero(input): whether the one element of input is nonzero (NaN is), read on the host; no element or more than one is an error; a number is a 0-d tensor (so is_nonzero(2) is true where torch refuses a Python number), as torch.is_nonzero", isNonzeroBuiltin)
	register("isreal", "isreal(input): a bool tensor of input's shape, true everywhere (tref has no complex dtype, so every element is real), as torch.isreal", isrealBuiltin)
}

// list is the list of rs (intermediates of the chain, or inputs), each
// an owned value, or the chain's error; the intermediates are released.
func (c *chain) list(rs []*refs.Ref) (eval.Value, error) {
	if err := c.Err(); err != nil {
		c.Release()
		return nil, err
	}
	out := make([]eval.Value, len(rs))
	for i, r := range rs {
		c.Thread().RT.Retain(r)
		out[i] = eval.Tensor{Ref: r}
	}
	c.Release()
	return eval.NewList(out), nil
}

func mmBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "mat2", &y); err != nil {
		return nil, err
	}
	xs, ys := x.Shape(), y.Shape()
	if len(xs) != 2 || len(ys) != 2 {
		return nil, fmt.Errorf("%s: expected two 2-d tensors, got shapes %v and %v (matmul takes other ranks)", b.Name, xs, ys)
	}
	if xs[1] != ys[0] {
		return nil, fmt.Errorf("%s: shapes %v and %v cannot be multiplied (%d != %d)", b.Name, xs, ys, xs[1], ys[0])
	}
	if err := sameDType(b.Name, "input", "mat2", x, y); err != nil {
		return nil, err
	}
	return named(b.Name)(th.Submit(ops.Matmul, nil, x, y))
}

func innerBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "other", &y); err != nil {
		return nil, err
	}
	xs, ys := x.Shape(), y.Shape()
	c := newChain(th)
	if len(xs) == 0 || len(ys) == 0 {
		return named(b.Name)(c.Result(c.Op(ops.Mul, nil, x, y)))
	}
	k := xs[len(xs)-1]
	if ys[len(ys)-1] != k {
		return nil, fmt.Errorf("%s: the last dimensions must match, got shapes %v and %v", b.Name, xs, ys)
	}
	if err := sameDType(b.Name, "input", "other", x, y); err != nil {
		return nil, err
	}
	// [m, k] @ [k, n], m and n the other dimensions flattened.
	xo, yo := xs[:len(xs)-1], ys[:len(ys)-1]
	a := c.Reshape(x, tensor.Shape{xo.Numel(), k})
	bt := c.Transpose(c.Reshape(y, tensor.Shape{yo.Numel(), k}))
	out := c.Op(ops.Matmul, nil, a, bt)
	return named(b.Name)(c.Result(c.Reshape(out, slices.Concat(xo, yo))))
}

func equalBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "other", &y); err != nil {
		return nil, err
	}
	if !x.Shape().Equal(y.Shape()) {
		return eval.Bool(false), nil
	}
	c := newChain(th)
	defer c.Release()
	eq := c.Op(ops.Eq, nil, x, y)
	if err := c.Err(); err != nil {
		return named(b.Name)(nil, err)
	}
	d, err := th.RT.Read(eq)
	if err != nil {
		return nil, err
	}
	for i := range d.Numel() {
		if d.Buf[i] == 0 {
			return eval.Bool(false), nil
		}
	}
	return eval.Bool(true), nil
}

func ravelBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x); err != nil {
		return nil, err
	}
	c := newChain(th)
	return c.Result(c.Reshape(x, tensor.Shape{x.Shape().Numel()}))
}

// selectAt checks dim and index of select and select_scatter on a tensor
// of shape s: the items of the index at index along dim (wrapped).
func selectAt(fname string, s tensor.Shape, dim, index int) ([]ops.IndexItem, error) {
	if len(s) == 0 {
		return nil, fmt.Errorf("%s: cannot select from a 0-d tensor", fname)
	}
	d, err := dimOf(fname, dim, s)
	if err != nil {
		return nil, err
	}
	if index < -s[d] || index >= s[d] {
		return nil, fmt.Errorf("%s: index %d is out of range for dimension %d of size %d (shape %v)", fname, index, d, s[d], s)
	}
	if index < 0 {
		index += s[d]
	}
	return ops.AtAlong(d, index), nil
}

func selectBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var dim, index int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "dim", &dim, "index", &index); err != nil {
		return nil, err
	}
	items, err := selectAt(b.Name, x.Shape(), dim, index)
	if err != nil {
		return nil, err
	}
	return named(b.Name)(th.Submit(ops.Index, &ops.IndexAttrs{Items: items}, x))
}

// broadcastAll is the common broadcast shape of shapes, which the
// builtin fname broadcasts.
func broadcastAll(fname string, shapes []tensor.Shape) (tensor.Shape, error) {
	out := tensor.Shape{}
	for i, s := range shapes {
		b, err := tensor.Broadcast(out, s)
		if err != nil {
			return nil, fmt.Errorf("%s: shape %v (argument %d) does not broadcast with %v, the shape of the arguments before it", fname, s, i+1, out)
		}
		out = b
	}
	return out, nil
}

func broadcastTensorsBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	xs, _, err := tensorArgs(th, b.Name, args, kwargs)
	if err != nil {
		return nil, err
	}
	shapes := make([]tensor.Shape, len(xs))
	for i, x := range xs {
		shapes[i] = x.Shape()
	}
	s, err := broadcastAll(b.Name, shapes)
	if err != nil {
		return nil, err
	}
	if _, err := tensor.CheckedNumel(s); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	c := newChain(th)
	out := make([]*refs.Ref, len(xs))
	for i, x := range xs {
		out[i] = c.Expand(x, s)
	}
	return c.list(out)
}

func broadcastShapesBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("%s: unexpected keyword argument %q", b.Name, kwargs[0].Name)
	}
	shapes := make([]tensor.Shape, len(args))
	for i, a := range args {
		if n, ok := th.AsInt(a); ok {
			shapes[i] = tensor.Shape{n}
		} else if l, ok := a.(*eval.List); ok {
			shapes[i] = make(tensor.Shape, len(l.Elems))
			for j, e := range l.Elems {
				if shapes[i][j], ok = th.AsInt(e); !ok {
					return nil, fmt.Errorf("%s: element %d of shape %d must be an int, not %s", b.Name, j, i+1, eval.Describe(e))
				}
			}
		} else {
			return nil, fmt.Errorf("%s: shape %d must be a list of ints or an int, not %s", b.Name, i+1, eval.Describe(a))
		}
		if slices.ContainsFunc(shapes[i], func(n int) bool { return n < 0 }) {
			return nil, fmt.Errorf("%s: shape %v (argument %d) has a negative dimension", b.Name, shapes[i], i+1)
		}
	}
	s, err := broadcastAll(b.Name, shapes)
	if err != nil {
		return nil, err
	}
	out := make([]eval.Value, len(s))
	for i, n := range s {
		out[i] = eval.Int(n)
	}
	return eval.NewList(out), nil
}

func diagflatBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	offset := 0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "offset?", &offset); err != nil {
		return nil, err
	}
	// diag_embed of input flattened.
	c := newChain(th)
	defer c.Release()
	flat := c.Reshape(x, tensor.Shape{x.Shape().Numel()})
	if err := c.Err(); err != nil {
		return nil, err
	}
	return diagEmbedBuiltin(th, b, []eval.Value{eval.Tensor{Ref: flat}, eval.Int(offset)}, nil)
}

// combinationCount is the number of combinations of r of n elements
// (with repetition: of r of n + r - 1), failing beyond
// tensor.MaxElements.
func combinationCount(fname string, n, r int, repeat bool) (int, error) {
	if r > tensor.MaxElements {
		return 0, fmt.Errorf("%s: r = %d is too large", fname, r)
	}
	top := n
	if repeat {
		if n == 0 {
			return 0, nil
		}
		top = n + r - 1
	}
	if r > top {
		return 0, nil
	}
	// C(top, k) for k = min(r, top - r), whose partial products
	// C(top, i), i <= k, grow with i: stop at the first beyond the limit.
	k := min(r, top-r)
	limit := big.NewInt(tensor.MaxElements)
	count := big.NewInt(1)
	for i := range k {
		count.Mul(count, big.NewInt(int64(top-i)))
		count.Quo(count, big.NewInt(int64(i+1)))
		if count.Cmp(limit) > 0 {
			return 0, fmt.Errorf("%s: %d elements taken %d at a time make more than %d combinations", fname, n, r, tensor.MaxElements)
		}
	}
	return int(count.Int64()), nil
}

func combinationsBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	r, repeat := 2, false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "r?", &r, "with_replacement?", &repeat); err != nil {
		return nil, err
	}
	if len(x.Shape()) != 1 {
		return nil, fmt.Errorf("%s: expected a 1-d tensor, got shape %v", b.Name, x.Shape())
	}
	if r < 0 {
		return nil, fmt.Errorf("%s: r must not be negative, got %d", b.Name, r)
	}
	n := x.Shape()[0]
	count, err := combinationCount(b.Name, n, r, repeat)
	if err != nil {
		return nil, err
	}
	out := tensor.Shape{count, r}
	if r == 0 {
		out = tensor.Shape{0} // torch: an empty 1-d tensor
	}
	if _, err := tensor.CheckedNumel(out); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	idx, err := newHost(th, b.Name, tensor.Shape{out.Numel()}, tensor.Int64)
	if err != nil {
		return nil, err
	}
	if count > 0 && r > 0 {
		// The positions of each row, lexicographically: the first
		// (0, 1, ..., r-1), or (0, ..., 0) with repetition; the next one
		// advances the last position that can and resets those after it.
		pos := make([]int64, r)
		for j := range pos {
			if !repeat {
				pos[j] = int64(j)
			}
		}
		p := idx.I64()
		for row := range count {
			copy(p[row*r:], pos)
			i := r - 1
			for i >= 0 && (!repeat && pos[i] == int64(n-r+i) || repeat && pos[i] == int64(n-1)) {
				i--
			}
			if i < 0 {
				break
			}
			pos[i]++
			for j := i + 1; j < r; j++ {
				pos[j] = pos[j-1]
				if !repeat {
					pos[j]++
				}
			}
		}
	}
	c := newChain(th)
	sel := c.Op(ops.IndexSelect, ops.DimAttrs{Dim: 0}, x, c.Host(idx))
	return named(b.Name)(c.Result(c.Reshape(sel, out)))
}

func chainMatmulBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	xs, _, err := tensorArgs(th, b.Name, args, kwargs)
	if err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		return nil, fmt.Errorf("%s: expected one or more matrices", b.Name)
	}
	for i, x := range xs {
		if len(x.Shape()) != 2 {
			return nil, fmt.Errorf("%s: tensor %d has shape %v: expected a matrix", b.Name, i, x.Shape())
		}
	}
	if len(xs) == 1 {
		th.RT.Retain(xs[0])
		return eval.Tensor{Ref: xs[0]}, nil
	}
	return multiDot(th, b.Name, xs)
}

func isTensorBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var v eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "obj", &v); err != nil {
		return nil, err
	}
	switch v.(type) {
	case eval.Tensor, eval.Bool, eval.Int, eval.Float32, eval.Float64:
		return eval.Bool(true), nil
	}
	return eval.Bool(false), nil
}

// metaQuery is a builtin that answers a question about its input's meta
// (a number is a 0-d tensor of its dtype), nothing read or computed.
func metaQuery(f func(m tensor.Meta) eval.Value) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x); err != nil {
			return nil, err
		}
		return f(x.Meta()), nil
	}
}

func isSameSizeBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "other", &y); err != nil {
		return nil, err
	}
	return eval.Bool(x.Shape().Equal(y.Shape())), nil
}

func isNonzeroBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x); err != nil {
		return nil, err
	}
	switch n := x.Shape().Numel(); {
	case n == 0:
		return nil, fmt.Errorf("%s: the truth value of a tensor with no elements is ambiguous (shape %v)", b.Name, x.Shape())
	case n > 1:
		return nil, fmt.Errorf("%s: the truth value of a tensor of more than one element is ambiguous (shape %v)", b.Name, x.Shape())
	}
	d, err := th.RT.Read(x)
	if err != nil {
		return nil, err
	}
	return eval.Bool(d.At(0) != 0), nil
}

func isrealBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x); err != nil {
		return nil, err
	}
	c := newChain(th)
	return c.Result(c.Expand(c.scalar(1, tensor.Bool), x.Shape()))
}
