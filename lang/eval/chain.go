package eval

import (
	"slices"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Chain submits the ops of one computation made of several (a builtin, an
// index expression) as straight-line code: the first failure sticks, the
// calls after it submit nothing and return nil, and every ref the chain
// makes is an intermediate that lives until Result, Abort or Release.
type Chain struct {
	th    *Thread
	fr    *frame    // within eval: the frame whose errors carry site's position
	site  *callSite // within eval: the position the chain's ops report
	temps []*refs.Ref
	err   error
}

// NewChain starts a chain of ops on th, reported at th's current site.
func NewChain(th *Thread) *Chain { return &Chain{th: th} }

// chain starts a chain of ops of an expression at site.
func (fr *frame) chain(site *callSite) Chain { return Chain{th: fr.th, fr: fr, site: site} }

// Thread is the thread the chain submits on.
func (c *Chain) Thread() *Thread { return c.th }

// Err is the chain's failure, nil while it has none.
func (c *Chain) Err() error { return c.err }

// Fail records err as the chain's failure unless it already has one.
func (c *Chain) Fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Keep makes r, made outside the chain, one of its intermediates.
func (c *Chain) Keep(r *refs.Ref) *refs.Ref {
	c.temps = append(c.temps, r)
	return r
}

// locate points the thread's site at the chain's position, if it has one.
func (c *Chain) locate() {
	if c.site != nil {
		c.th.sitePos = c.site.pos
	}
}

// Op submits one op (nil after a failure).
func (c *Chain) Op(op ops.Op, attrs any, ins ...*refs.Ref) *refs.Ref {
	if c.err != nil {
		return nil
	}
	c.locate()
	r, err := c.th.RT.Submit(c.th.Site(), op, attrs, ins...)
	if err != nil {
		if c.fr != nil {
			err = c.fr.wrap(c.site.pos, err)
		}
		c.err = err
		return nil
	}
	return c.Keep(r)
}

// Constant is the 0-d constant s (an op with a scalar form takes it as its
// argument: refs.Runtime.Constant).
func (c *Chain) Constant(s ops.Scalar) *refs.Ref {
	if c.err != nil {
		return nil
	}
	c.locate()
	return c.Keep(c.th.RT.Constant(c.th.Site(), s))
}

// Host is a ref holding d, which the runtime takes over.
func (c *Chain) Host(d *tensor.Dense) *refs.Ref {
	c.locate()
	return c.Keep(c.th.RT.FromHost(c.th.Site(), d))
}

// Cast converts x to dt (x itself when it has dt).
func (c *Chain) Cast(x *refs.Ref, dt tensor.DType) *refs.Ref {
	if x == nil || x.DType() == dt {
		return x
	}
	return c.Op(ops.Astype, ops.CastAttrs{To: dt}, x)
}

// Expand broadcasts x to s (x itself when it has that shape).
func (c *Chain) Expand(x *refs.Ref, s tensor.Shape) *refs.Ref {
	if x == nil || x.Shape().Equal(s) {
		return x
	}
	return c.Op(ops.Expand, ops.ExpandAttrs{Shape: s}, x)
}

// Reshape gives x shape s (x itself when it has that shape).
func (c *Chain) Reshape(x *refs.Ref, s tensor.Shape) *refs.Ref {
	if x == nil || x.Shape().Equal(s) {
		return x
	}
	return c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: s}, x)
}

// Result releases the intermediates and returns r (one of them, or an
// input) as an owned value, or the chain's failure.
func (c *Chain) Result(r *refs.Ref) (Value, error) {
	if c.err != nil || r == nil {
		c.Release()
		return nil, c.err
	}
	c.th.RT.Retain(r)
	c.Release()
	return Tensor{Ref: r}, nil
}

// Record is Result for several refs: the record {keys[i]: rs[i]} (a
// script reads it positionally too) holding a reference to each, or the
// chain's error (nil, nil where a ref is nil without one).
func (c *Chain) Record(keys []string, rs ...*refs.Ref) (Value, error) {
	if c.err != nil || slices.Contains(rs, nil) {
		c.Release()
		return nil, c.err
	}
	vals := make([]Value, len(rs))
	for i, r := range rs {
		c.th.RT.Retain(r)
		vals[i] = Tensor{Ref: r}
	}
	c.Release()
	return NewResult(keys, vals), nil
}

// Abort releases the intermediates and returns err.
func (c *Chain) Abort(err error) (Value, error) {
	c.Release()
	return nil, err
}

// Release drops every intermediate.
func (c *Chain) Release() {
	for _, r := range c.temps {
		c.th.RT.Release(r)
	}
	c.temps = nil
}
