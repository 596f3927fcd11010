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
