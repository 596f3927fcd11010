package stdlib

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// quantile, nanquantile and kthvalue: order statistics read from a sort
// (argsort and gather), with torch 1.13's ranks and interpolation, so the
// gradient reaches the elements they read.

func init() {
	register("quantile", `quantile(input, q, dim=none, keepdim=false, interpolation="linear"): the q-th quantiles of float32 or float64 input along dim (all of input when none), q a number or a 1-d tensor in [0, 1] (which adds a first dimension): the sorted values at rank q·(n - 1), "linear" (interpolated), "lower", "higher", "midpoint" or "nearest" (half to even); a slice holding NaN gives NaN, as torch.quantile`, quantileBuiltin(false))
	register("nanquantile", `nanquantile(input, q, dim=none, keepdim=false, interpolation="linear"): quantile over the values that are not NaN (NaN where all are), as torch.nanquantile`, quantileBuiltin(true))
	register("kthvalue", "kthvalue(input, k, dim=-1, keepdim=false): {values, indices} of the k-th smallest element along dim (k from 1; NaN is the largest); among equal elements the first in input's order, where torch's choice is unspecified, as torch.kthvalue", kthvalueBuiltin)
}

// quantileModes are the interpolations of quantile.
var quantileModes = []string{"linear", "lower", "higher", "midpoint", "nearest"}

func quantileBuiltin(ignoreNaN bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		var qv eval.Value
		dimv := eval.Value(eval.None)
		keepdim, mode := false, "linear"
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "q", &qv, "dim?", &dimv, "keepdim?", &keepdim, "interpolation?", &mode); err != nil {
			return nil, err
		}
		if dt := x.DType(); dt != tensor.Float32 && dt != tensor.Float64 {
			return nil, fmt.Errorf("%s: the input must be float32 or float64, got %s", b.Name, dt)
		}
		if x.Shape().Numel() == 0 {
			return nil, fmt.Errorf("%s: the input must not be empty", b.Name)
		}
		if !slices.Contains(quantileModes, mode) {
			return nil, fmt.Errorf("%s: interpolation must be one of %q, got %q", b.Name, quantileModes, mode)
		}
		qs, scalarQ, err := quantileLevels(th, b.Name, qv, x.DType())
		if err != nil {
			return nil, err
		}
		shape := x.Shape()
		c := newChain(th)
		// sorted: x's values in order along the last dimension, [..., n].
		var sorted *refs.Ref
		var outShape tensor.Shape // without q's dimension
		if _, isNone := dimv.(eval.NoneType); isNone {
			sorted = c.Reshape(x, tensor.Shape{shape.Numel()})
			if keepdim {
				outShape = make(tensor.Shape, len(shape))
				for i := range outShape {
					outShape[i] = 1
				}
			}
		} else {
			d, ok := th.AsInt(dimv)
			if !ok {
				return c.Abort(fmt.Errorf("%s: dim must be an int or none, got %s", b.Name, eval.Describe(dimv)))
			}
			dim, err := tensor.NormDim(d, max(len(shape), 1))
			if err != nil {
				return c.Abort(fmt.Errorf("%s: %v", b.Name, err))
			}
			moved := c.Op(ops.Permute, ops.PermuteAttrs{Dims: moveLast(max(len(shape), 1), dim)}, c.Reshape(x, rankAtLeast1(shape)))
			sorted = moved
			outShape = rankAtLeast1(shape).Clone()
			if keepdim {
				outShape[dim] = 1
			} else {
				outShape = append(outShape[:dim:dim], outShape[dim+1:]...)
			}
			if len(shape) == 0 {
				outShape = tensor.Shape{}
			}
		}
		if sorted == nil {
			return c.Result(nil)
		}
		ss := sorted.Shape()
		n := ss[len(ss)-1]
		idx := c.Op(ops.Argsort, ops.SortAttrs{Dim: -1}, sorted)
		sorted = c.Op(ops.Gather, ops.DimAttrs{Dim: -1}, sorted, idx)
		dt := x.DType()
		batch := ss[:len(ss)-1]
		// q as [1, ..., 1, Q]: one rank per slice and level, [..., Q],
		// gathered from the slice's sorted values.
		nq := len(qs)
		qShape := make(tensor.Shape, len(ss))
		for i := range qShape {
			qShape[i] = 1
		}
		qShape[len(ss)-1] = nq
		// A tensor q stays in the graph: linear interpolation's weights
		// differentiate by it, as torch's do.
		q := c.Host(qs.dense(dt))
		if t, ok := qv.(eval.Tensor); ok && t.Ref.DType() == dt {
			q = t.Ref
		}
		q = c.Reshape(q, qShape)
		rankShape := append(batch.Clone(), nq)
		var ranks *refs.Ref
		if ignoreNaN {
			// (count of non-NaN values - 1)·q, 0 where every value is NaN.
			valid := c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{-1}, Keepdim: true}, c.Op(ops.LogicalNot, nil, c.Op(ops.Isnan, nil, sorted)))
			ranks = c.Op(ops.Mul, nil, q, c.Op(ops.Sub, nil, c.Cast(valid, dt), c.scalar(1, dt)))
			ranks = c.Op(ops.Where, nil, c.Op(ops.Lt, nil, ranks, c.scalar(0, dt)), c.scalar(0, dt), ranks)
		} else {
			// q·(n - 1), the last rank where a NaN is: NaN sorts last.
			last := c.scalar(float64(n-1), dt)
			hasNaN := c.Op(ops.Any, ops.ReduceAttrs{Dims: []int{-1}, Keepdim: true}, c.Op(ops.Isnan, nil, sorted))
			ranks = c.Op(ops.Where, nil, hasNaN, last, c.Op(ops.Mul, nil, q, last))
		}
		ranks = c.Expand(ranks, rankShape)
		switch mode {
		case "lower":
			ranks = c.Op(ops.Floor, nil, ranks)
		case "higher":
			ranks = c.Op(ops.Ceil, nil, ranks)
		case "nearest":
			ranks = c.Op(ops.Round, ops.RoundAttrs{}, ranks)
		}
		values := sorted
		below := c.Cast(ranks, tensor.Int64) // ranks are >= 0: truncation is floor
		out := c.Op(ops.Gather, ops.DimAttrs{Dim: -1}, values, below)
		if mode == "linear" || mode == "midpoint" {
			var w *refs.Ref
			if mode == "midpoint" {
				w = c.Expand(c.scalar(0.5, dt), rankShape)
			} else {
				w = c.Op(ops.Sub, nil, ranks, c.Cast(below, dt))
			}
			above := c.Op(ops.Gather, ops.DimAttrs{Dim: -1}, values, c.Cast(c.Op(ops.Ceil, nil, ranks), tensor.Int64))
			out = lerpTensor(c, out, above, w)
		}
		if len(batch) > 0 {
			// [..., Q] to [Q, ...]
			out = c.Op(ops.Permute, ops.PermuteAttrs{Dims: append([]int{len(batch)}, moveLast(len(batch)+1, len(batch))[:len(batch)]...)}, out)
		}
		final := outShape
		if !scalarQ {
			final = append(tensor.Shape{nq}, outShape...)
		}
		return c.Result(c.Reshape(out, final))
	}
}

// levels are quantile's q values, read on the host (torch checks them
// there too).
type levels []float64

func (l levels) dense(dt tensor.DType) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{len(l)}, DType: dt})
	for i, v := range l {
		d.Set(i, v)
	}
	return d
}

// quantileLevels reads q: a number (scalar) or a 0-d or 1-d tensor of
// input's dtype, every value in [0, 1].
func quantileLevels(th *eval.Thread, name string, qv eval.Value, dt tensor.DType) (levels, bool, error) {
	var qs levels
	scalar := true
	if t, ok := qv.(eval.Tensor); ok && (len(t.Ref.Shape()) > 0 || t.Ref.DType().IsFloat() && t.Ref.DType() != tensor.Float32) {
		if len(t.Ref.Shape()) > 1 {
			return nil, false, fmt.Errorf("%s: q must be a number or a 0-d or 1-d tensor, got shape %v", name, t.Ref.Shape())
		}
		if t.Ref.DType() != dt {
			return nil, false, fmt.Errorf("%s: q is %v but the input is %v: they must have one dtype", name, t.Ref.DType(), dt)
		}
		d, err := th.RT.Read(t.Ref)
		if err != nil {
			return nil, false, err
		}
		for i := range d.Numel() {
			qs = append(qs, d.At(i))
		}
		scalar = len(t.Ref.Shape()) == 0
	} else {
		f, ok := th.AsFloat(qv)
		if !ok {
			return nil, false, fmt.Errorf("%s: q must be a number or a tensor, got %s", name, eval.Describe(qv))
		}
		qs = levels{f}
	}
	for _, v := range qs {
		if !(v >= 0 && v <= 1) {
			return nil, false, fmt.Errorf("%s: q must be in [0, 1], got %v", name, v)
		}
	}
	return qs, scalar, nil
}

// rankAtLeast1 is s, or [1] for a 0-d shape.
func rankAtLeast1(s tensor.Shape) tensor.Shape {
	if len(s) == 0 {
		return tensor.Shape{1}
	}
	return s
}

// moveLast is the permutation of rank dimensions that moves dim last.
func moveLast(rank, dim int) []int {
	p := make([]int, 0, rank)
	for i := range rank {
		if i != dim {
			p = append(p, i)
		}
	}
	return append(p, dim)
}

func kthvalueBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var k int
	dim, keepdim := -1, false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "k", &k, "dim?", &dim, "keepdim?", &keepdim); err != nil {
		return nil, err
	}
	shape := rankAtLeast1(x.Shape())
	d, err := tensor.NormDim(dim, len(shape))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	if k < 1 || k > shape[d] {
		return nil, fmt.Errorf("%s: k = %d is out of range for a dimension of size %d", b.Name, k, shape[d])
	}
	c := newChain(th)
	xr := c.Reshape(x, shape)
	order := c.Op(ops.Argsort, ops.SortAttrs{Dim: d}, xr)
	idx := c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, k-1, k)}, order)
	vals := c.Op(ops.Gather, ops.DimAttrs{Dim: d}, xr, idx)
	if !keepdim || len(x.Shape()) == 0 {
		out := append(shape[:d:d], shape[d+1:]...)
		if len(x.Shape()) == 0 {
			out = tensor.Shape{}
		}
		idx, vals = c.Reshape(idx, out), c.Reshape(vals, out)
	}
	return c.Record([]string{"values", "indices"}, vals, idx)
}
