package stdlib

import (
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// chain is an eval.Chain (the first error sticks, intermediates are
// released when the builtin ends) with the helpers stdlib's composed
// builtins share.
type chain struct{ *eval.Chain }

// newChain starts a chain of ops on th.
func newChain(th *eval.Thread) *chain { return &chain{eval.NewChain(th)} }

// scalar is a 0-d constant of dtype dt holding v (an op with a scalar
// form takes it as its argument: refs.Runtime.Constant).
func (c *chain) scalar(v float64, dt tensor.DType) *refs.Ref {
	return c.Constant(ops.FloatScalar(v, dt))
}

// Transpose swaps the last two dimensions of x (rank 2 or more).
func (c *chain) Transpose(x *refs.Ref) *refs.Ref {
	if x == nil {
		return nil
	}
	n := len(x.Shape())
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	perm[n-1], perm[n-2] = n-2, n-1
	return c.Op(ops.Permute, ops.PermuteAttrs{Dims: perm}, x)
}

// builder is an ops.Builder that submits to the chain, for the
// compositions of runtime/compose: its tensors are the chain's refs, its
// constants host refs the chain releases.
func (c *chain) builder() *ops.Builder {
	return ops.NewBuilder(func(op ops.Op, attrs any, ins []ops.T) (ops.T, error) {
		rs := make([]*refs.Ref, len(ins))
		for i, in := range ins {
			rs[i] = in.(*refs.Ref)
		}
		r := c.Op(op, attrs, rs...)
		if err := c.Err(); err != nil {
			return nil, err
		}
		return r, nil
	}, func(d *tensor.Dense) ops.T { return c.Host(d) })
}
