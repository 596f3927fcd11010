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
