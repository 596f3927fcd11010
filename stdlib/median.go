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
	register("median", "median(input, dim=none, keepdim=false): the lower of the two middle values (NaN when there is a NaN); with an int dim, {values, indices} over dim (r[0], r[1] too), the index that of the ((n-1)/2)-th value in stable sorted order or of the first NaN, as torch.median", medianBuiltin)
}

func medianBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
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
		vals, _ := c.medianAlong(c.Reshape(x, tensor.Shape{s.Numel()}), 0)
		return named(b.Name)(c.Result(c.Reshape(vals, tensor.Shape{})))
	}
	k, err := tensor.NormDim(dims[0], max(len(s), 1))
	if err != nil {
		return c.Abort(fmt.Errorf("%s: dim %d is out of range for a tensor of shape %v", b.Name, dims[0], s))
	}
	if len(s) > 0 && s[k] == 0 {
		return c.Abort(fmt.Errorf("%s: dimension %d of the input of shape %v is empty; it has no median", b.Name, dims[0], s))
	}
	vals, idx := c.medianAlong(c.Reshape(x, atLeast(1, s)), k)
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
// whose NaNs come last, or the first NaN's position when there is one.
func (c *chain) medianAlong(x *refs.Ref, dim int) (vals, idx *refs.Ref) {
	if c.Err() != nil {
		return nil, nil
	}
	n := x.Shape()[dim]
	kept := ops.ReduceShape(x.Shape(), []int{dim}, true)
	order := c.Op(ops.Argsort, ops.SortAttrs{Dim: dim}, x)
	pos := c.Expand(c.Constant(ops.IntScalar(int64((n-1)/2))), kept)
	if x.DType().IsFloat() {
		nans := c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{dim}, Keepdim: true}, c.Op(ops.Isnan, nil, x))
		firstNaN := c.Op(ops.Sub, nil, c.Constant(ops.IntScalar(int64(n))), nans)
		pos = c.Op(ops.Where, nil, c.Op(ops.Gt, nil, nans, c.Constant(ops.IntScalar(0))), firstNaN, pos)
	}
	idx = c.Op(ops.Gather, ops.DimAttrs{Dim: dim}, order, pos)
	return c.Op(ops.Gather, ops.DimAttrs{Dim: dim}, x, idx), idx
}
