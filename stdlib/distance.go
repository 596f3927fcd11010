package stdlib

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Distances of torch composed of norm: gradients come from norm's, which
// is 0 where the distance is 0.
func init() {
	register("pairwise_distance", "pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=false): the p-norm of x1 - x2 + eps over the last dimension (broadcasting), as torch's F.pairwise_distance", pairwiseDistanceBuiltin)
	register("cdist", "cdist(x1, x2, p=2.0): the p-norm distances between the rows of x1 [..., P, M] and of x2 [..., R, M], a [..., P, R] tensor (batch dimensions broadcast; floating point), as torch.cdist", cdistBuiltin)
}

func pairwiseDistanceBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x1, x2 *refs.Ref
	p, eps := 2.0, 1e-6
	keepdim := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x1", &x1, "x2", &x2, "p?", &p, "eps?", &eps, "keepdim?", &keepdim); err != nil {
		return nil, err
	}
	rank := max(len(x1.Shape()), len(x2.Shape()))
	if rank == 0 {
		return nil, fmt.Errorf("%s: x1 and x2 are 0-d; they need a dimension to take the norm over", b.Name)
	}
	c := newChain(th)
	diff := c.Op(ops.Sub, nil, x1, x2)
	if c.Err() != nil {
		return named(b.Name)(c.Result(nil))
	}
	if !diff.DType().IsFloat() {
		return c.Abort(fmt.Errorf("%s: x1 and x2 must be floating point, got %s and %s", b.Name, x1.DType(), x2.DType()))
	}
	shifted := c.Op(ops.Add, nil, diff, c.scalar(eps, diff.DType()))
	return named(b.Name)(c.Result(c.Op(ops.Norm, ops.VectorNormAttrs{P: p, Dims: []int{rank - 1}, Keepdim: keepdim}, shifted)))
}

func cdistBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x1, x2 *refs.Ref
	p := 2.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x1", &x1, "x2", &x2, "p?", &p); err != nil {
		return nil, err
	}
	s1, s2 := x1.Shape(), x2.Shape()
	switch {
	case len(s1) < 2 || len(s2) < 2:
		return nil, fmt.Errorf("%s: x1 and x2 must have at least 2 dimensions, got shapes %v and %v", b.Name, s1, s2)
	case s1[len(s1)-1] != s2[len(s2)-1]:
		return nil, fmt.Errorf("%s: x1 %v and x2 %v must have the same size in the last dimension", b.Name, s1, s2)
	case !x1.DType().IsFloat() || x1.DType() != x2.DType():
		return nil, fmt.Errorf("%s: x1 and x2 must be floating point of one dtype, got %s and %s", b.Name, x1.DType(), x2.DType())
	case p < 0:
		return nil, fmt.Errorf("%s: p must be non-negative, got %v", b.Name, p)
	}
	batch, err := tensor.Broadcast(s1[:len(s1)-2], s2[:len(s2)-2])
	if err != nil {
		return nil, fmt.Errorf("%s: the batch dimensions of %v and %v: %v", b.Name, s1, s2, err)
	}
	rows, cols, m := s1[len(s1)-2], s2[len(s2)-2], s1[len(s1)-1]
	if _, err := tensor.CheckedNumel(slices.Concat(batch, tensor.Shape{rows, cols, m})); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	// x1 [..., P, 1, M] - x2 [..., 1, R, M], normed over M.
	c := newChain(th)
	a := c.Reshape(x1, slices.Concat(s1[:len(s1)-1], tensor.Shape{1, m}))
	z := c.Reshape(x2, slices.Concat(s2[:len(s2)-2], tensor.Shape{1, cols, m}))
	diff := c.Op(ops.Sub, nil, a, z)
	return named(b.Name)(c.Result(c.Op(ops.Norm, ops.VectorNormAttrs{P: p, Dims: []int{-1}}, diff)))
}
