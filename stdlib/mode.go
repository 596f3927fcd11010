package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	register("mode", "mode(input, dim=-1, keepdim=false): {values, indices} (r[0], r[1] too) of the most frequent value along dim, the smallest of equally frequent ones, and the index of its last occurrence; NaNs count as one value, the largest (as sort orders them); the gradient reaches the element at the index; as torch.mode, whose index is the last occurrence only in rows of up to 16 elements (past that its unstable sort picks any) and whose result with NaN depends on the order of the row", modeBuiltin)
}

func modeBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	dim, keepdim := -1, false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim?", &dim, "keepdim?", &keepdim); err != nil {
		return nil, err
	}
	s := x.Shape()
	shape := rankAtLeast1(s)
	d, err := tensor.NormDim(dim, len(shape))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	if shape[d] == 0 {
		return nil, fmt.Errorf("%s: dimension %d of the input of shape %v is empty; it has no mode", b.Name, dim, s)
	}
	c := newChain(th)
	vals, idx := c.modeAlong(c.Reshape(x, shape), d)
	out := ops.ReduceShape(s, []int{d}, keepdim)
	if len(s) == 0 {
		out = tensor.Shape{}
	}
	return c.Record([]string{"values", "indices"}, c.Reshape(vals, out), c.Reshape(idx, out))
}

// modeAlong is the mode of x along dim and its index, both with dim kept
// as size 1. In x's stable ascending order along dim (NaNs last), a run
// of equal values starts where a value differs from the one before it
// (NaNs count as equal); the first position farthest from its run's
// start ends the first longest run: the smallest most frequent value, at
// its last position in x.
func (c *chain) modeAlong(x *refs.Ref, dim int) (vals, idx *refs.Ref) {
	if c.Err() != nil {
		return nil, nil
	}
	shape := x.Shape()
	n := shape[dim]
	order := c.Op(ops.Argsort, ops.SortAttrs{Dim: dim}, x)
	sorted := c.Op(ops.Gather, ops.DimAttrs{Dim: dim}, x, order)
	prev := c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(dim, 0, n-1)}, sorted)
	cur := c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(dim, 1, n)}, sorted)
	differs := c.Op(ops.Ne, nil, cur, prev)
	if x.DType().IsFloat() {
		bothNaN := c.Op(ops.BitwiseAnd, nil, c.Op(ops.Isnan, nil, cur), c.Op(ops.Isnan, nil, prev))
		differs = c.Op(ops.BitwiseAnd, nil, differs, c.Op(ops.LogicalNot, nil, bothNaN))
	}
	kept := ops.ReduceShape(shape, []int{dim}, true)
	first := c.Expand(c.Constant(ops.FloatScalar(1, tensor.Bool)), kept)
	starts := c.Op(ops.Cat, ops.CatAttrs{Dim: dim}, first, differs)
	// cummax takes the last of equal maxima: the latest start so far.
	runStart := c.Op(ops.CummaxIndices, ops.ScanAttrs{Dim: dim}, starts)
	posShape := make(tensor.Shape, len(shape))
	for i := range posShape {
		posShape[i] = 1
	}
	posShape[dim] = n
	pos := make([]int64, n)
	for i := range pos {
		pos[i] = int64(i)
	}
	fromStart := c.Op(ops.Sub, nil, c.hostInts(pos, posShape), runStart)
	last := c.Op(ops.Argmax, ops.ReduceAttrs{Dims: []int{dim}, Keepdim: true}, fromStart)
	idx = c.Op(ops.Gather, ops.DimAttrs{Dim: dim}, order, last)
	return c.Op(ops.Gather, ops.DimAttrs{Dim: dim}, x, idx), idx
}
