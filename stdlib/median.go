package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	register("median", "median(input, dim=none, keepdim=false): the lower of the two middle values (NaN when there is a NaN); with an int dim, {values, indices} over dim (r[0], r[1] too), the index that of the ((n-1)/2)-th value in stable sorted order or of the first NaN; without dim the gradient is shared evenly among the elements equal to the median (the NaNs when it is NaN), as torch.median", medianBuiltin(false))
}

// medianBuiltin is median, or with skipNaN nanmedian (the median of the
// values that are not NaN).
func medianBuiltin(skipNaN bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		return median(th, b, args, kwargs, skipNaN)
	}
}

func median(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg, skipNaN bool) (eval.Value, error) {
	var x *refs.Ref
	dim := eval.None
	keepdim := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim?", &dim, "keepdim?", &keepdim); err != nil {
		return nil, err
	}
	dims, err := dimsArg(th, b.Name, dim, false)
	if err != nil {
		return nil, err
	}
	s := x.Shape()
	c := newChain(th)
	if dims == nil { // every element: the values only, 0-d
		if s.Numel() == 0 {
			// torch: NaN for an empty float tensor (an int one has no NaN)
			if !x.DType().IsFloat() {
				return c.Abort(fmt.Errorf("%s: the %s input of shape %v is empty; it has no median", b.Name, x.DType(), s))
			}
			return named(b.Name)(c.Result(c.Constant(ops.FloatScalar(math.NaN(), x.DType()))))
		}
		flat := c.Reshape(x, tensor.Shape{s.Numel()})
		vals := c.detached(func() *refs.Ref { v, _ := c.medianAlong(flat, 0, skipNaN); return v })
		return named(b.Name)(c.Result(c.Reshape(c.spreadEvenly(flat, vals), tensor.Shape{})))
	}
	k, err := tensor.NormDim(dims[0], max(len(s), 1))
	if err != nil {
		return c.Abort(fmt.Errorf("%s: dim %d is out of range for a tensor of shape %v", b.Name, dims[0], s))
	}
	if len(s) > 0 && s[k] == 0 {
		return c.Abort(fmt.Errorf("%s: dimension %d of the input of shape %v is empty; it has no median", b.Name, dims[0], s))
	}
	vals, idx := c.medianAlong(c.Reshape(x, atLeast(1, s)), k, skipNaN)
	out := ops.ReduceShape(s, []int{k}, keepdim)
	if len(s) == 0 {
		out = tensor.Shape{}
	}
	vals, idx = c.Reshape(vals, out), c.Reshape(idx, out)
	if c.Err() != nil {
		return named(b.Name)(c.Result(nil))
	}
	th.RT.Retain(idx) // owned by the result, past the chain's release
	v, err := c.Result(vals)
	if err != nil {
		th.RT.Release(idx)
		return nil, err
	}
	return eval.NewResult([]string{"values", "indices"}, []eval.Value{v, eval.Tensor{Ref: idx}}), nil
}

// medianAlong is the median of x along dim and its index, both with dim
// kept as size 1: the position (n-1)/2 of x's stable ascending order,
// whose NaNs come last, or the first NaN's position when there is one;
// with skipNaN the position (k-1)/2 of the k values that are not NaN (0,
// the first NaN, when all are).
func (c *chain) medianAlong(x *refs.Ref, dim int, skipNaN bool) (vals, idx *refs.Ref) {
	if c.Err() != nil {
		return nil, nil
	}
	n := x.Shape()[dim]
	kept := ops.ReduceShape(x.Shape(), []int{dim}, true)
	order := c.Op(ops.Argsort, ops.SortAttrs{Dim: dim}, x)
	pos := c.Expand(c.Constant(ops.IntScalar(int64((n-1)/2))), kept)
	if x.DType().IsFloat() {
		nans := c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{dim}, Keepdim: true}, c.Op(ops.Isnan, nil, x))
		if skipNaN {
			below := c.Op(ops.Sub, nil, c.Constant(ops.IntScalar(int64(n-1))), nans)
			below = c.Op(ops.Clamp, ops.ClampAttrs{Min: 0, HasMin: true}, below)
			pos = c.Op(ops.FloorDiv, nil, below, c.Constant(ops.IntScalar(2)))
		} else {
			firstNaN := c.Op(ops.Sub, nil, c.Constant(ops.IntScalar(int64(n))), nans)
			pos = c.Op(ops.Where, nil, c.Op(ops.Gt, nil, nans, c.Constant(ops.IntScalar(0))), firstNaN, pos)
		}
	}
	idx = c.Op(ops.Gather, ops.DimAttrs{Dim: dim}, order, pos)
	return c.Op(ops.Gather, ops.DimAttrs{Dim: dim}, x, idx), idx
}

// spreadEvenly is m, a value of x (1-d) computed without gradient, with
// the gradient torch gives a median without dim: shared evenly among the
// k elements of x equal to m, or its NaNs when m is NaN.
func (c *chain) spreadEvenly(x, m *refs.Ref) *refs.Ref {
	if c.Err() != nil || !x.DType().IsFloat() {
		return m
	}
	dt := x.DType()
	both := c.Op(ops.BitwiseAnd, nil, c.Op(ops.Isnan, nil, x), c.Op(ops.Isnan, nil, m))
	at := c.Op(ops.BitwiseOr, nil, c.Op(ops.Eq, nil, x, m), both)
	all := ops.ReduceAttrs{Dims: []int{0}, Keepdim: true}
	k := c.Cast(c.Op(ops.Sum, all, at), dt)
	// A finite m is s·(|m| + s·z/k) with s its sign and z the sum of
	// where(at, x, m) - m: z is +0, so the value is m, -0.0 included, and
	// each element at m gets the gradient s·s/k (nothing negates after the
	// where, so the others get +0).
	s := c.Op(ops.Copysign, nil, c.scalar(1, dt), m)
	z := c.Op(ops.Sum, all, c.Op(ops.Sub, nil, c.Op(ops.Where, nil, at, x, m), m))
	finite := c.Op(ops.Mul, nil, s, c.Op(ops.Add, nil, c.Op(ops.Abs, nil, m), c.Op(ops.Mul, nil, s, c.Op(ops.Div, nil, z, k))))
	// inf and NaN are their own mean over the k elements.
	mean := c.Op(ops.Div, nil, c.Op(ops.Sum, all, c.Op(ops.Where, nil, at, x, c.scalar(0, dt))), k)
	return c.Op(ops.Where, nil, isfinite(c, m), finite, mean)
}
