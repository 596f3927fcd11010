package stdlib

import (
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// chain submits the ops of a builtin that is composed of several, keeps
// the first error (later calls do nothing) and releases every
// intermediate result when the builtin ends.
type chain struct {
	th    *eval.Thread
	temps []*refs.Ref
	err   error
}

// op submits one op; its result lives until release.
func (c *chain) op(op ops.Op, attrs any, ins ...*refs.Ref) *refs.Ref {
	if c.err != nil {
		return nil
	}
	r, err := c.th.RT.Submit(c.th.Site(), op, attrs, ins...)
	if err != nil {
		c.err = err
		return nil
	}
	c.temps = append(c.temps, r)
	return r
}

// scalar is a 0-d constant of dtype dt holding v (an op with a scalar
// form takes it as its argument: refs.Runtime.Constant).
func (c *chain) scalar(v float64, dt tensor.DType) *refs.Ref {
	if c.err != nil {
		return nil
	}
	r := c.th.RT.Constant(c.th.Site(), ops.FloatScalar(v, dt))
	c.temps = append(c.temps, r)
	return r
}

// result releases the intermediates and returns r (one of them, or an
// input) as the builtin's value, or the first error.
func (c *chain) result(r *refs.Ref) (eval.Value, error) {
	if c.err == nil {
		c.th.RT.Retain(r)
	}
	c.release()
	if c.err != nil {
		return nil, c.err
	}
	return eval.Tensor{Ref: r}, nil
}

// fail releases the intermediates and returns err.
func (c *chain) fail(err error) (eval.Value, error) {
	c.release()
	return nil, err
}

// release drops every intermediate result.
func (c *chain) release() {
	for _, r := range c.temps {
		c.th.RT.Release(r)
	}
	c.temps = nil
}
