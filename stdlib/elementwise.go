package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Elementwise builtins: the named forms of the arithmetic and comparison
// operators, unary math, clamp, astype and where. Broadcasting, promotion
// and the scalar semantics are the ops' (runtime/ops/elementwise.go).

var binaryDocs = map[ops.Op]string{
	ops.Add:      "add(a, b, alpha=1): a + alpha * b, broadcasting (alpha an int for integer tensors), as torch.add",
	ops.Sub:      "sub(a, b, alpha=1): a - alpha * b, broadcasting (alpha an int for integer tensors), as torch.sub",
	ops.Mul:      "mul(a, b): a * b, broadcasting",
	ops.Div:      "div(a, b, rounding_mode=none): true division a / b (integers give float32); rounding_mode \"trunc\" rounds toward zero and \"floor\" down, integers staying integers, as torch.div",
	ops.FloorDiv: "floordiv(a, b): a // b, rounded toward negative infinity",
	ops.Mod:      "mod(a, b): a % b, with the sign of b",
	ops.Pow:      "pow(a, b): a ** b",
	ops.Maximum:  "maximum(a, b): the larger element of a and b (NaN wins)",
	ops.Minimum:  "minimum(a, b): the smaller element of a and b (NaN wins)",
	ops.Atan2:    "atan2(a, b): the angle of the point (b, a) in (-pi, pi], by the signs of both (integers give float32), as torch.atan2(input, other)",
	ops.Fmod:     "fmod(a, b): the remainder of a / b rounded toward zero, with the sign of a (C's fmod; mod and remainder take b's sign), as torch.fmod",
	ops.Hypot:    "hypot(a, b): sqrt(a² + b²) without overflow or underflow (floating point only), as torch.hypot",
	ops.Copysign: "copysign(a, b): |a| with the sign of b, -0.0 and the sign of NaN included (integers give float32), as torch.copysign",
	ops.Eq:       "eq(a, b): a == b elementwise, a bool tensor",
	ops.Ne:       "ne(a, b): a != b elementwise, a bool tensor",
	ops.Lt:       "lt(a, b): a < b elementwise, a bool tensor",
	ops.Le:       "le(a, b): a <= b elementwise, a bool tensor",
	ops.Gt:       "gt(a, b): a > b elementwise, a bool tensor",
	ops.Ge:       "ge(a, b): a >= b elementwise, a bool tensor",
}

var unaryDocs = map[ops.Op]string{
	ops.Neg:        "neg(x): -x",
	ops.Abs:        "abs(x): |x|",
	ops.Exp:        "exp(x): e ** x",
	ops.Log:        "log(x): natural logarithm",
	ops.Sqrt:       "sqrt(x): square root",
	ops.Rsqrt:      "rsqrt(x): 1 / sqrt(x)",
	ops.Sin:        "sin(x): sine",
	ops.Cos:        "cos(x): cosine",
	ops.Tanh:       "tanh(x): hyperbolic tangent",
	ops.Sigmoid:    "sigmoid(x): 1 / (1 + exp(-x))",
	ops.Relu:       "relu(x): max(x, 0)",
	ops.Silu:       "silu(x): x * sigmoid(x)",
	ops.LogicalNot: "logical_not(x): true where x is zero, a bool tensor",
}

func init() {
	for op, doc := range binaryDocs {
		register(op.Name(), doc, binaryBuiltin(op))
	}
	for op, doc := range unaryDocs {
		register(op.Name(), doc, unaryBuiltin(op))
	}
	register("remainder", "remainder(a, b): mod(a, b), a % b with the sign of b, as torch.remainder", binaryBuiltin(ops.Mod))
	register("clamp", "clamp(x, min=none, max=none): x limited to [min, max]", clampBuiltin)
	register("astype", `astype(x, dtype): x converted to dtype ("float32", "int64", ...)`, astypeBuiltin)
	register("where", "where(cond, a, b): a where cond is true, else b, broadcasting all three (on a tensor, x.where(condition, other) is torch's method: where(condition, x, other))", whereBuiltin)
	method("tensor", "where", "x.where(condition, other): x where condition is true, else other, as torch's Tensor.where (where(condition, x, other))", tensorWhere)
}

func binaryBuiltin(op ops.Op) eval.BuiltinFunc {
	switch op {
	case ops.Add, ops.Sub:
		return alphaBuiltin(op)
	case ops.Div:
		return divBuiltin
	}
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x, y *refs.Ref
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "a|input", &x, "b|other|exponent", &y); err != nil {
			return nil, err
		}
		if op == ops.Pow {
			if err := CheckPow(x, y); err != nil {
				return nil, err
			}
		}
		return th.Submit(op, nil, x, y)
	}
}

// CheckPow reports the error of an integer base raised to a negative
// integer exponent when the exponent is already known (a 0-d ready value,
// such as a literal), so that it points at the call rather than surfacing
// when the result is used. Other negative exponents fail at execution.
func CheckPow(base, exp *refs.Ref) error {
	if base.DType().IsFloat() || exp.DType().IsFloat() || exp.DType() == tensor.Bool || len(exp.Shape()) != 0 {
		return nil
	}
	if h := exp.Host(); h != nil && h.At(0) < 0 {
		return ops.ErrIntNegPow
	}
	return nil
}

func unaryBuiltin(op ops.Op) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x); err != nil {
			return nil, err
		}
		return th.Submit(op, nil, x)
	}
}

func clampBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	lo, hi := eval.None, eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "min?", &lo, "max?", &hi); err != nil {
		return nil, err
	}
	var a ops.ClampAttrs
	var err error
	if a.Min, a.HasMin, a.MinFloat, err = clampBound(th, b.Name, "min", lo); err != nil {
		return nil, err
	}
	if a.Max, a.HasMax, a.MaxFloat, err = clampBound(th, b.Name, "max", hi); err != nil {
		return nil, err
	}
	return th.Submit(ops.Clamp, a, x)
}

// clampBound reads a clamp bound: none, or a number (a 0-d tensor).
func clampBound(th *eval.Thread, fname, param string, v eval.Value) (val float64, has, isFloat bool, err error) {
	if _, none := v.(eval.NoneType); none {
		return 0, false, false, nil
	}
	f, ok := th.AsFloat(v)
	if !ok {
		return 0, false, false, fmt.Errorf("%s: argument %q must be a number or none, not %s", fname, param, eval.Describe(v))
	}
	dt := eval.ScalarDType(v)
	if t, isT := v.(eval.Tensor); isT {
		dt = t.Ref.DType()
	}
	return f, true, dt.IsFloat(), nil
}

func astypeBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var dt tensor.DType
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "dtype", &dt); err != nil {
		return nil, err
	}
	if x.DType() == dt {
		th.RT.Retain(x)
		return eval.Tensor{Ref: x}, nil
	}
	return th.Submit(ops.Astype, ops.CastAttrs{To: dt}, x)
}

func whereBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var c, x, y *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "cond|condition", &c, "a|input", &x, "b|other", &y); err != nil {
		return nil, err
	}
	return th.Submit(ops.Where, nil, c, x, y)
}

// tensorWhere is torch's method x.where(condition, other):
// where(condition, x, other).
func tensorWhere(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, c, y *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "self", &x, "condition", &c, "other|y", &y); err != nil {
		return nil, err
	}
	return th.Submit(ops.Where, nil, c, x, y)
}

// alphaBuiltin is add or sub with torch's alpha: a ± alpha·b, alpha
// multiplying b in b's dtype (an int for integer tensors, as torch).
func alphaBuiltin(op ops.Op) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x, y *refs.Ref
		alpha := eval.Value(eval.Int(1))
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "a|input", &x, "b|other", &y, "alpha?", &alpha); err != nil {
			return nil, err
		}
		a, ok := th.AsFloat(alpha)
		if !ok {
			return nil, fmt.Errorf("%s: alpha must be a number, got %s", b.Name, eval.Describe(alpha))
		}
		if a == 1 {
			return th.Submit(op, nil, x, y)
		}
		dt, err := ops.BinaryDType(op, x.Meta(), y.Meta())
		if err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name, err)
		}
		if !dt.IsFloat() && a != math.Trunc(a) {
			return nil, fmt.Errorf("%s: alpha must be an int for %s tensors, got %v", b.Name, dt, a)
		}
		c := newChain(th)
		scaled := c.Op(ops.Mul, nil, c.Cast(y, dt), c.scalar(a, dt))
		return c.Result(c.Op(op, nil, x, scaled))
	}
}

// divBuiltin is div with torch's rounding_mode: none (true division),
// "trunc" (toward zero) or "floor" (floordiv).
func divBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y *refs.Ref
	mode := eval.Value(eval.None)
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "a|input", &x, "b|other", &y, "rounding_mode?", &mode); err != nil {
		return nil, err
	}
	switch m := mode.(type) {
	case eval.NoneType:
		return th.Submit(ops.Div, nil, x, y)
	case eval.String:
		switch m {
		case "floor":
			return th.Submit(ops.FloorDiv, nil, x, y)
		case "trunc":
			c := newChain(th)
			dt, err := ops.BinaryDType(ops.FloorDiv, x.Meta(), y.Meta())
			if err != nil {
				return c.Abort(fmt.Errorf("%s: %v", b.Name, err))
			}
			if dt.IsFloat() {
				return c.Result(c.Op(ops.Trunc, nil, c.Op(ops.Div, nil, x, y)))
			}
			// (a - fmod(a, b)) is a multiple of b: its floor division is
			// the quotient rounded toward zero, exactly.
			return c.Result(c.Op(ops.FloorDiv, nil, c.Op(ops.Sub, nil, x, c.Op(ops.Fmod, nil, x, y)), y))
		}
	}
	return nil, fmt.Errorf(`%s: rounding_mode must be none, "trunc" or "floor", got %s`, b.Name, eval.Describe(mode))
}
