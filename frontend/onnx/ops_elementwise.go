package onnx

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Elementwise ops: arithmetic, comparisons, logic, unary math and the
// activations, as the runtime's elementwise ops or compositions of them.

func init() {
	binary := map[string]ops.Op{"Add": ops.Add, "Sub": ops.Sub, "Mul": ops.Mul, "Equal": ops.Eq, "Less": ops.Lt, "Greater": ops.Gt, "LessOrEqual": ops.Le, "GreaterOrEqual": ops.Ge, "BitwiseAnd": ops.BitwiseAnd, "BitwiseOr": ops.BitwiseOr, "BitwiseXor": ops.BitwiseXor}
	for onnxName, op := range binary {
		lower([]string{onnxName}, func(c *ctx, ins []*value) ([]*value, error) {
			if err := need(ins, 0, 1); err != nil {
				return nil, err
			}
			return one(c.op(op, nil, ins[0], ins[1]))
		})
	}
	unary := map[string]ops.Op{"Neg": ops.Neg, "Abs": ops.Abs, "Relu": ops.Relu, "Exp": ops.Exp, "Log": ops.Log, "Sqrt": ops.Sqrt, "Sigmoid": ops.Sigmoid, "Tanh": ops.Tanh, "Sin": ops.Sin, "Cos": ops.Cos, "Not": ops.LogicalNot, "BitwiseNot": ops.BitwiseNot}
	for onnxName, op := range unary {
		lower([]string{onnxName}, func(c *ctx, ins []*value) ([]*value, error) {
			if err := need(ins, 0); err != nil {
				return nil, err
			}
			return one(c.op(op, nil, ins[0]))
		})
	}
	lower([]string{"Div"}, lowerDiv)
	lower([]string{"Mod"}, lowerMod)
	lower([]string{"Pow"}, lowerPow)
	lower([]string{"Max", "Min", "Sum", "Mean"}, lowerVariadic)
	lower([]string{"And", "Or", "Xor"}, lowerLogic)
	lower([]string{"Identity"}, func(c *ctx, ins []*value) ([]*value, error) {
		if err := need(ins, 0); err != nil {
			return nil, err
		}
		return []*value{ins[0]}, nil
	})
	lower([]string{"Cast"}, lowerCast)
	lower([]string{"CastLike"}, func(c *ctx, ins []*value) ([]*value, error) {
		if err := need(ins, 0, 1); err != nil {
			return nil, err
		}
		return one(c.cast(ins[0], ins[1].meta.DType))
	})
	lower([]string{"Clip"}, lowerClip)
	lower([]string{"Where"}, func(c *ctx, ins []*value) ([]*value, error) {
		if err := need(ins, 0, 1, 2); err != nil {
			return nil, err
		}
		return one(c.op(ops.Where, nil, ins[0], ins[1], ins[2]))
	})
	lower([]string{"Reciprocal"}, func(c *ctx, ins []*value) ([]*value, error) {
		if err := need(ins, 0); err != nil {
			return nil, err
		}
		return one(c.op(ops.Reciprocal, nil, ins[0]))
	})
	lower([]string{"Softplus", "Softsign", "Elu", "Selu", "LeakyRelu", "HardSigmoid", "HardSwish", "ThresholdedRelu", "Celu", "PRelu", "Shrink"}, lowerActivation)
}

// lowerDiv divides; integer division truncates toward zero, as in C.
func lowerDiv(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	a, b := ins[0], ins[1]
	if a.meta.DType.IsFloat() || b.meta.DType.IsFloat() {
		return one(c.op(ops.Div, nil, a, b))
	}
	// trunc(a/b) = floor(a/b) + 1 where the division is inexact and the
	// signs differ.
	q, err := c.op(ops.FloorDiv, nil, a, b)
	if err != nil {
		return nil, err
	}
	return one(c.towardZero(q, a, b))
}

// towardZero corrects a floored quotient q of a/b to the truncated one.
func (c *ctx) towardZero(q, a, b *value) (*value, error) {
	r, err := c.op(ops.Mod, nil, a, b)
	if err != nil {
		return nil, err
	}
	zero := c.scalar(q.meta.DType, 0)
	inexact, err := c.op(ops.Ne, nil, r, zero)
	if err != nil {
		return nil, err
	}
	an, err := c.op(ops.Lt, nil, a, zero)
	if err != nil {
		return nil, err
	}
	bn, err := c.op(ops.Lt, nil, b, zero)
	if err != nil {
		return nil, err
	}
	differ, err := c.op(ops.Ne, nil, an, bn)
	if err != nil {
		return nil, err
	}
	fix, err := c.and(inexact, differ)
	if err != nil {
		return nil, err
	}
	q1, err := c.op(ops.Add, nil, q, c.scalar(q.meta.DType, 1))
	if err != nil {
		return nil, err
	}
	return c.op(ops.Where, nil, fix, q1, q)
}

// and is the logical and of two bool tensors.
func (c *ctx) and(a, b *value) (*value, error) {
	return c.op(ops.Where, nil, a, b, c.scalar(tensor.Bool, 0))
}

// lowerMod is Python's modulo (the divisor's sign), or with fmod=1 C's
// fmod (the dividend's sign).
func lowerMod(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	op := ops.Mod
	if c.attrInt("fmod", 0) != 0 {
		op = ops.Fmod
	}
	return one(c.op(op, nil, ins[0], ins[1]))
}

// lowerPow raises; the result has the base's type.
func lowerPow(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	a, b := ins[0], ins[1]
	if !a.meta.DType.IsFloat() && b.meta.DType.IsFloat() {
		af, err := c.cast(a, b.meta.DType)
		if err != nil {
			return nil, err
		}
		p, err := c.op(ops.Pow, nil, af, b)
		if err != nil {
			return nil, err
		}
		return one(c.cast(p, a.meta.DType))
	}
	if a.meta.DType.IsFloat() && b.meta.DType != a.meta.DType {
		bc, err := c.cast(b, a.meta.DType)
		if err != nil {
			return nil, err
		}
		b = bc
	}
	return one(c.op(ops.Pow, nil, a, b))
}

// lowerVariadic folds Max, Min, Sum and Mean over their inputs.
func lowerVariadic(c *ctx, ins []*value) ([]*value, error) {
	if len(ins) == 0 {
		return nil, fmt.Errorf("needs at least one input")
	}
	op := map[string]ops.Op{"Max": ops.Maximum, "Min": ops.Minimum, "Sum": ops.Add, "Mean": ops.Add}[c.node.OpType]
	acc := ins[0]
	for _, in := range ins[1:] {
		if in == nil {
			return nil, fmt.Errorf("inputs may not be omitted")
		}
		var err error
		if acc, err = c.op(op, nil, acc, in); err != nil {
			return nil, err
		}
	}
	if c.node.OpType == "Mean" && len(ins) > 1 {
		return one(c.op(ops.Div, nil, acc, c.scalar(acc.meta.DType, float64(len(ins)))))
	}
	if len(ins) == 1 {
		// A copy, so that the output is a value of its own.
		return one(c.op(ops.Reshape, ops.ReshapeAttrs{Shape: acc.meta.Shape}, acc))
	}
	return []*value{acc}, nil
}

// lowerLogic is And, Or and Xor on bool tensors.
func lowerLogic(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	a, b := ins[0], ins[1]
	if a.meta.DType != tensor.Bool || b.meta.DType != tensor.Bool {
		return nil, fmt.Errorf("needs bool inputs, got %s and %s", a.meta, b.meta)
	}
	switch c.node.OpType {
	case "And":
		return one(c.and(a, b))
	case "Or":
		return one(c.op(ops.Where, nil, a, c.scalar(tensor.Bool, 1), b))
	}
	return one(c.op(ops.Ne, nil, a, b))
}

// cast converts v to dt (a no-op when it already is).
func (c *ctx) cast(v *value, dt tensor.DType) (*value, error) {
	if v.meta.DType == dt {
		return v, nil
	}
	return c.op(ops.Astype, ops.CastAttrs{To: dt}, v)
}

func lowerCast(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	to := DataType(c.attrInt("to", 0))
	dt, ok := to.DType()
	if !ok {
		return nil, fmt.Errorf("cannot cast to %s", to)
	}
	if to == Float16 || to == BFloat16 {
		return one(c.roundHalf(ins[0], to))
	}
	return one(c.cast(ins[0], dt))
}

// roundHalf rounds float values to the precision of a half type (tref
// holds them in float32): a round trip through the runtime's float16.
func (c *ctx) roundHalf(v *value, to DataType) (*value, error) {
	half := tensor.Float16
	if to == BFloat16 {
		half = tensor.BFloat16
	}
	h, err := c.cast(v, half)
	if err != nil {
		return nil, err
	}
	return c.cast(h, tensor.Float32)
}

func lowerClip(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	a := ops.ClampAttrs{}
	if c.opset < 11 {
		a.Min, a.HasMin = c.attrFloat("min", math.Inf(-1)), true
		a.Max, a.HasMax = c.attrFloat("max", math.Inf(1)), true
	} else {
		if lo := input(ins, 1); lo != nil {
			v, err := c.scalarOf(lo, "min")
			if err != nil {
				return nil, err
			}
			a.Min, a.HasMin = v, true
		}
		if hi := input(ins, 2); hi != nil {
			v, err := c.scalarOf(hi, "max")
			if err != nil {
				return nil, err
			}
			a.Max, a.HasMax = v, true
		}
	}
	if x.meta.DType.IsFloat() {
		a.MinFloat, a.MaxFloat = a.HasMin, a.HasMax
	}
	if !a.HasMin && !a.HasMax {
		return lowerVariadic(c, ins[:1])
	}
	return one(c.op(ops.Clamp, a, x))
}

// activationOp runs an activation as the runtime's own op when it has one
// with the node's parameters (ok false otherwise).
func (c *ctx) activationOp(x *value) (*value, bool, error) {
	if !x.meta.DType.IsFloat() {
		return nil, false, nil
	}
	var (
		op    ops.Op
		attrs any
	)
	switch c.node.OpType {
	case "LeakyRelu":
		op, attrs = ops.LeakyRelu, ops.LeakyReluAttrs{NegativeSlope: c.attrFloat("alpha", 0.01)}
	case "Elu":
		op, attrs = ops.Elu, ops.EluAttrs{Alpha: c.attrFloat("alpha", 1)}
	case "Softplus":
		op, attrs = ops.Softplus, ops.SoftplusAttrs{Beta: 1, Threshold: 20}
	case "HardSwish":
		op = ops.Hardswish
	case "HardSigmoid":
		// torch's hardsigmoid is alpha 1/6, beta 1/2 only.
		if float32(c.attrFloat("alpha", 0.2)) != float32(1.0/6) || c.attrFloat("beta", 0.5) != 0.5 {
			return nil, false, nil
		}
		op = ops.Hardsigmoid
	default:
		return nil, false, nil
	}
	v, err := c.op(op, attrs, x)
	return v, true, err
}

// lowerActivation composes the activations the runtime has no op for.
func lowerActivation(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	dt := x.meta.DType
	if v, ok, err := c.activationOp(x); ok || err != nil {
		return one(v, err)
	}
	s := func(v float64) *value { return c.scalar(dt, v) }
	zero := s(0)
	// negPart is where(x > 0, x, f(x)) for the exponential units.
	expm1 := func(alpha float64) (*value, error) {
		e, err := c.op(ops.Exp, nil, x)
		if err != nil {
			return nil, err
		}
		e1, err := c.op(ops.Sub, nil, e, s(1))
		if err != nil {
			return nil, err
		}
		return c.op(ops.Mul, nil, e1, s(alpha))
	}
	pos := func() (*value, error) { return c.op(ops.Gt, nil, x, zero) }
	switch c.node.OpType {
	case "Softplus":
		// log(1 + exp(x)), with x itself where exp overflows.
		e, err := c.op(ops.Exp, nil, x)
		if err != nil {
			return nil, err
		}
		e1, err := c.op(ops.Add, nil, e, s(1))
		if err != nil {
			return nil, err
		}
		l, err := c.op(ops.Log, nil, e1)
		if err != nil {
			return nil, err
		}
		big, err := c.op(ops.Gt, nil, x, s(20))
		if err != nil {
			return nil, err
		}
		return one(c.op(ops.Where, nil, big, x, l))
	case "Softsign":
		a, err := c.op(ops.Abs, nil, x)
		if err != nil {
			return nil, err
		}
		d, err := c.op(ops.Add, nil, a, s(1))
		if err != nil {
			return nil, err
		}
		return one(c.op(ops.Div, nil, x, d))
	case "Elu", "Selu", "Celu":
		alpha := c.attrFloat("alpha", map[string]float64{"Elu": 1, "Selu": 1.67326319217681884765625, "Celu": 1}[c.node.OpType])
		var neg *value
		var err error
		if c.node.OpType == "Celu" {
			// alpha * (exp(x / alpha) - 1)
			xa, err := c.op(ops.Div, nil, x, s(alpha))
			if err != nil {
				return nil, err
			}
			e, err := c.op(ops.Exp, nil, xa)
			if err != nil {
				return nil, err
			}
			e1, err := c.op(ops.Sub, nil, e, s(1))
			if err != nil {
				return nil, err
			}
			neg, err = c.op(ops.Mul, nil, e1, s(alpha))
			if err != nil {
				return nil, err
			}
		} else if neg, err = expm1(alpha); err != nil {
			return nil, err
		}
		p, err := pos()
		if err != nil {
			return nil, err
		}
		y, err := c.op(ops.Where, nil, p, x, neg)
		if err != nil || c.node.OpType != "Selu" {
			return one(y, err)
		}
		return one(c.op(ops.Mul, nil, y, s(c.attrFloat("gamma", 1.05070102214813232421875))))
	case "LeakyRelu", "PRelu":
		var slope *value
		if c.node.OpType == "PRelu" {
			if err := need(ins, 1); err != nil {
				return nil, err
			}
			slope = ins[1]
			// Before opset 7 a slope of shape [C] applies along axis 1.
			if xs := x.meta.Shape; c.opset < 7 && len(slope.meta.Shape) == 1 && len(xs) > 2 && slope.meta.Shape[0] == xs[1] && xs[1] != xs[len(xs)-1] {
				var err error
				if slope, err = c.reshape(slope, alongAxis(len(xs)-1, 0, xs[1])); err != nil {
					return nil, err
				}
			}
		} else {
			slope = s(c.attrFloat("alpha", 0.01))
		}
		sx, err := c.op(ops.Mul, nil, x, slope)
		if err != nil {
			return nil, err
		}
		neg, err := c.op(ops.Lt, nil, x, zero)
		if err != nil {
			return nil, err
		}
		return one(c.op(ops.Where, nil, neg, sx, x))
	case "HardSigmoid", "HardSwish":
		alpha, beta := c.attrFloat("alpha", 0.2), c.attrFloat("beta", 0.5)
		if c.node.OpType == "HardSwish" {
			alpha, beta = 1.0/6, 0.5
		}
		ax, err := c.op(ops.Mul, nil, x, s(alpha))
		if err != nil {
			return nil, err
		}
		axb, err := c.op(ops.Add, nil, ax, s(beta))
		if err != nil {
			return nil, err
		}
		h, err := c.op(ops.Clamp, ops.ClampAttrs{Min: 0, Max: 1, HasMin: true, HasMax: true, MinFloat: true, MaxFloat: true}, axb)
		if err != nil || c.node.OpType == "HardSigmoid" {
			return one(h, err)
		}
		return one(c.op(ops.Mul, nil, x, h))
	case "ThresholdedRelu":
		gt, err := c.op(ops.Gt, nil, x, s(c.attrFloat("alpha", 1)))
		if err != nil {
			return nil, err
		}
		return one(c.op(ops.Where, nil, gt, x, zero))
	case "Shrink":
		lambd, bias := c.attrFloat("lambd", 0.5), c.attrFloat("bias", 0)
		lo, err := c.op(ops.Lt, nil, x, s(-lambd))
		if err != nil {
			return nil, err
		}
		hi, err := c.op(ops.Gt, nil, x, s(lambd))
		if err != nil {
			return nil, err
		}
		xp, err := c.op(ops.Add, nil, x, s(bias))
		if err != nil {
			return nil, err
		}
		xm, err := c.op(ops.Sub, nil, x, s(bias))
		if err != nil {
			return nil, err
		}
		m, err := c.op(ops.Where, nil, hi, xm, zero)
		if err != nil {
			return nil, err
		}
		return one(c.op(ops.Where, nil, lo, xp, m))
	}
	return nil, fmt.Errorf("no activation %s", c.node.OpType)
}
