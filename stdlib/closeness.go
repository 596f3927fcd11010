package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	register("isclose", "isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=false): true where input == other, or both are finite apart and |input - other| <= atol + |rtol * other| (NaNs equal each other with equal_nan; broadcasting; one dtype), as torch.isclose", iscloseBuiltin)
}

func iscloseBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y *refs.Ref
	rtol, atol := 1e-5, 1e-8
	equalNaN := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "other", &y, "rtol?", &rtol, "atol?", &atol, "equal_nan?", &equalNaN); err != nil {
		return nil, err
	}
	if x.DType() != y.DType() {
		return nil, fmt.Errorf("%s: input is %s but other is %s; torch requires one dtype", b.Name, x.DType(), y.DType())
	}
	if rtol < 0 || atol < 0 {
		return nil, fmt.Errorf("%s: rtol (%v) and atol (%v) must not be negative", b.Name, rtol, atol)
	}
	c := newChain(th)
	// torch's formula: equal, or NaN on both sides (equal_nan), or a
	// finite difference within the allowed error.
	close := c.Op(ops.Eq, nil, x, y)
	if equalNaN && x.DType().IsFloat() {
		close = c.Op(ops.BitwiseOr, nil, close, c.Op(ops.BitwiseAnd, nil, c.Op(ops.Isnan, nil, x), c.Op(ops.Isnan, nil, y)))
	}
	if rtol == 0 && atol == 0 {
		return named(b.Name)(c.Result(close))
	}
	dt := x.DType()
	if !dt.IsFloat() {
		dt = tensor.Float32
	}
	xf, yf := c.Cast(x, dt), c.Cast(y, dt)
	allowed := c.Op(ops.Add, nil, c.scalar(atol, dt), c.Op(ops.Abs, nil, c.Op(ops.Mul, nil, c.scalar(rtol, dt), yf)))
	actual := c.Op(ops.Abs, nil, c.Op(ops.Sub, nil, xf, yf))
	if c.Err() != nil {
		return named(b.Name)(c.Result(nil))
	}
	within := c.Op(ops.BitwiseAnd, nil, isfinite(c, actual), c.Op(ops.Le, nil, actual, allowed))
	return named(b.Name)(c.Result(c.Op(ops.BitwiseOr, nil, close, within)))
}
