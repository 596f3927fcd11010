package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Pointwise functions of torch composed of tref's ops: frac, exp2 and
// logit (gradients from the ops; trunc is a constant to them).
func init() {
	register("frac", "frac(input): input - trunc(input), the fractional part with input's sign (floating point; NaN for the infinities), as torch.frac", fracBuiltin)
	register("exp2", "exp2(input): 2 ** input (integers give float32), as torch.exp2", unaryChain(exp2))
	register("logit", "logit(input, eps=none): log(z / (1 - z)) with z = input clamped to [eps, 1 - eps] when eps is given (integers give float32), as torch.logit", logitBuiltin)
}

func fracBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x); err != nil {
		return nil, err
	}
	c := newChain(th)
	if !c.floatInput(b.Name, x) {
		return c.Result(nil)
	}
	return c.Result(c.Op(ops.Sub, nil, x, c.Op(ops.Trunc, nil, x)))
}

// floatOrF32 is x, converted to float32 unless floating point.
func (c *chain) floatOrF32(x *refs.Ref) *refs.Ref {
	if x == nil || x.DType().IsFloat() {
		return x
	}
	return c.Cast(x, tensor.Float32)
}

func exp2(c *chain, x *refs.Ref) *refs.Ref {
	x = c.floatOrF32(x)
	if c.Err() != nil {
		return nil
	}
	return c.Op(ops.Pow, nil, c.scalar(2, x.DType()), x)
}

func logitBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	eps := eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "eps?", &eps); err != nil {
		return nil, err
	}
	c := newChain(th)
	z := c.floatOrF32(x)
	if _, none := eps.(eval.NoneType); !none {
		e, ok := th.AsFloat(eps)
		if !ok {
			return c.Abort(fmt.Errorf("%s: argument \"eps\" must be a number or none, not %s", b.Name, eval.Describe(eps)))
		}
		z = c.Op(ops.Clamp, ops.ClampAttrs{Min: e, Max: 1 - e, HasMin: true, HasMax: true, MinFloat: true, MaxFloat: true}, z)
	}
	if c.Err() != nil {
		return c.Result(nil)
	}
	one := c.scalar(1, z.DType())
	return c.Result(c.Op(ops.Log, nil, c.Op(ops.Div, nil, z, c.Op(ops.Sub, nil, one, z))))
}
