package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
)

// Pointwise builtins beyond the arithmetic set: rounding, sign, erf, the
// trigonometric and hyperbolic functions, log1p, expm1, log2, log10 and
// reciprocal, the activations of torch.nn.functional with torch's
// argument names and defaults, NaN/inf tests and nan_to_num. Dtype rules
// are the ops' (runtime/ops/pointwise.go, trig.go, logexp.go).

var pointwiseDocs = map[ops.Op]string{
	ops.Floor:       "floor(x): the largest integer <= x (integer tensors are copied)",
	ops.Ceil:        "ceil(x): the smallest integer >= x (integer tensors are copied)",
	ops.Trunc:       "trunc(x): x rounded toward zero (integer tensors are copied)",
	ops.Sign:        "sign(x): -1, 0 or 1 by the sign of x, in x's dtype (sign(NaN) is 0, as torch)",
	ops.Erf:         "erf(x): the error function (integers give float32)",
	ops.Tan:         "tan(x): tangent (integers give float32)",
	ops.Asin:        "asin(x): arcsine, NaN outside [-1, 1] (integers give float32)",
	ops.Acos:        "acos(x): arccosine, NaN outside [-1, 1] (integers give float32)",
	ops.Atan:        "atan(x): arctangent (integers give float32)",
	ops.Sinh:        "sinh(x): hyperbolic sine (integers give float32)",
	ops.Cosh:        "cosh(x): hyperbolic cosine (integers give float32)",
	ops.Asinh:       "asinh(x): inverse hyperbolic sine (integers give float32)",
	ops.Acosh:       "acosh(x): inverse hyperbolic cosine, NaN below 1 (integers give float32)",
	ops.Atanh:       "atanh(x): inverse hyperbolic tangent, NaN outside [-1, 1] (integers give float32)",
	ops.Log1p:       "log1p(x): log(1 + x), precise near 0 (integers give float32)",
	ops.Expm1:       "expm1(x): exp(x) - 1, precise near 0 (integers give float32)",
	ops.Log2:        "log2(x): base-2 logarithm (integers give float32)",
	ops.Log10:       "log10(x): base-10 logarithm (integers give float32)",
	ops.Reciprocal:  "reciprocal(x): 1 / x (integers give float32)",
	ops.Isnan:       "isnan(x): true where x is NaN, a bool tensor",
	ops.Isinf:       "isinf(x): true where x is +inf or -inf, a bool tensor",
	ops.Hardsigmoid: "hardsigmoid(x): clamp(x + 3, 0, 6) / 6 (float tensors), as F.hardsigmoid",
	ops.Hardswish:   "hardswish(x): x * clamp(x + 3, 0, 6) / 6 (float tensors), as F.hardswish",
}

func init() {
	for op, doc := range pointwiseDocs {
		register(op.Name(), doc, unaryBuiltin(op))
	}
	register("round", "round(x, decimals=0): x rounded half to even at decimals places (torch.round)", roundBuiltin)
	register("nan_to_num", "nan_to_num(x, nan=0.0, posinf=none, neginf=none): NaN, +inf and -inf replaced (infinities by the dtype's largest and lowest finite values unless given)", nanToNumBuiltin)
	register("leaky_relu", "leaky_relu(x, negative_slope=0.01): x where x > 0, else negative_slope * x", leakyReluBuiltin)
	register("elu", "elu(x, alpha=1.0): x where x > 0, else alpha * (exp(x) - 1)", eluBuiltin)
	register("softplus", "softplus(x, beta=1, threshold=20): log(1 + exp(beta * x)) / beta, and x where beta * x > threshold", softplusBuiltin)
	register("gelu", `gelu(x, approximate="none"): x * Phi(x), the exact (erf) form; approximate="tanh" is 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`, geluBuiltin)
}

// unaryWith is a builtin of one tensor and float parameters (params, with
// their defaults); attrs builds the op's attributes from their values.
func unaryWith(op ops.Op, params []string, defaults []float64, attrs func(v []float64) any) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		vals := append([]float64(nil), defaults...)
		pairs := []any{"x|input", &x}
		for i, p := range params {
			pairs = append(pairs, p+"?", &vals[i])
		}
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, pairs...); err != nil {
			return nil, err
		}
		return th.Submit(op, attrs(vals), x)
	}
}

var (
	leakyReluBuiltin = unaryWith(ops.LeakyRelu, []string{"negative_slope"}, []float64{0.01},
		func(v []float64) any { return ops.LeakyReluAttrs{NegativeSlope: v[0]} })
	eluBuiltin = unaryWith(ops.Elu, []string{"alpha"}, []float64{1},
		func(v []float64) any { return ops.EluAttrs{Alpha: v[0]} })
	softplusBuiltin = unaryWith(ops.Softplus, []string{"beta", "threshold"}, []float64{1, 20},
		func(v []float64) any { return ops.SoftplusAttrs{Beta: v[0], Threshold: v[1]} })
)

func roundBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	decimals := 0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "decimals?", &decimals); err != nil {
		return nil, err
	}
	return th.Submit(ops.Round, ops.RoundAttrs{Decimals: decimals}, x)
}

func nanToNumBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	nan := 0.0
	posinf, neginf := eval.None, eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "nan?", &nan, "posinf?", &posinf, "neginf?", &neginf); err != nil {
		return nil, err
	}
	a := ops.NanToNumAttrs{Nan: nan}
	var err error
	if a.PosInf, a.HasPosInf, err = optFloat(th, b.Name, "posinf", posinf); err != nil {
		return nil, err
	}
	if a.NegInf, a.HasNegInf, err = optFloat(th, b.Name, "neginf", neginf); err != nil {
		return nil, err
	}
	return th.Submit(ops.NanToNum, a, x)
}

// optFloat reads a number-or-none argument.
func optFloat(th *eval.Thread, fname, param string, v eval.Value) (float64, bool, error) {
	if _, none := v.(eval.NoneType); none {
		return 0, false, nil
	}
	f, ok := th.AsFloat(v)
	if !ok {
		return 0, false, fmt.Errorf("%s: argument %q must be a number or none, not %s", fname, param, eval.Describe(v))
	}
	return f, true, nil
}

func geluBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	approximate := "none"
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "approximate?", &approximate); err != nil {
		return nil, err
	}
	switch approximate {
	case "none":
		return th.Submit(ops.Gelu, nil, x)
	case "tanh":
		return th.Submit(ops.GeluTanh, nil, x)
	}
	return nil, fmt.Errorf("%s: approximate must be \"none\" or \"tanh\", not %q", b.Name, approximate)
}
