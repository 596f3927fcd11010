package cpu

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/internal/fmath"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Unary elementwise kernels. The input is contiguous with the output's
// shape, so a kernel is one loop over equal ranges, split over goroutines
// for large tensors. Float math on float32 is computed in float64 and
// rounded, which is at least as accurate as torch's float32 routines.

func init() {
	for _, op := range ops.FloatUnary {
		Register(op, floatUnaryKernel(op.Name()))
	}
	for _, op := range ops.KeepUnary {
		Register(op, keepUnaryKernel(op.Name()))
	}
	Register(ops.LogicalNot, logicalNotKernel)
	Register(ops.Clamp, clampKernel)
}

// runUnary applies row over equal ranges of o and a.
func runUnary[O, T any](o []O, a []T, row func(o []O, a []T)) error {
	if len(o) < parallelMin {
		row(o, a)
		return nil
	}
	return parallelFor(len(o), func(lo, hi int) error {
		row(o[lo:hi], a[lo:hi])
		return nil
	})
}

func floatUnaryKernel(name string) Kernel {
	f32, f64 := floatUnaryRow[float32](name), floatUnaryRow[float64](name)
	if simd := simdFloatUnaryF32(name); simd != nil {
		f32 = simd
	}
	var kernel Kernel
	kernel = func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		if err := checkInputs(name, ins, 1); err != nil {
			return err
		}
		switch out.DType {
		case tensor.Float32:
			return runUnary(out.F32(), castTo(ins[0], tensor.Float32).F32(), f32)
		case tensor.Float64:
			return runUnary(out.F64(), castTo(ins[0], tensor.Float64).F64(), f64)
		case tensor.Float16, tensor.BFloat16:
			return viaFloat32(out, func(tmp *tensor.Dense) error { return kernel(tmp, ins, attrs) })
		}
		return fmt.Errorf("%s has no cpu kernel for %v", name, out.DType)
	}
	return kernel
}

// sqrt1_2 is 1/sqrt(2), for the exact (erf) form of gelu.
const sqrt1_2 = 0.70710678118654752440

// floatUnaryRow picks the scalar row function of a float unary op (the
// float64 rows, and float32 where there is no vectorised row:
// simdFloatUnaryF32). Float32 exp, sigmoid and silu use expF32
// (nn_exp.go), accurate to float32 and several times faster than math.Exp;
// tanh keeps math.Tanh, whose small-argument accuracy a formula over exp
// would lose. gelu is x Φ(x) with Φ(x) = erfc(-x/√2)/2, which keeps its
// relative accuracy for negative x where 1 + erf(x/√2) cancels.
func floatUnaryRow[F float](name string) func(o, a []F) {
	var z F
	_, single := any(z).(float32)
	exp := math.Exp
	if single {
		exp = expF32
	}
	var f func(float64) float64
	switch name {
	case "exp":
		f = exp
	case "log":
		f = fmath.Log
	case "sqrt":
		f = math.Sqrt
	case "rsqrt":
		f = func(x float64) float64 { return 1 / math.Sqrt(x) }
	case "sin":
		f = math.Sin
	case "cos":
		f = math.Cos
	case "tanh":
		f = math.Tanh
	case "sigmoid":
		// e^x / (1 + e^x) for x < 0 keeps the tiny results of large
		// negative x, which 1 / (1 + e^-x) loses when e^-x overflows.
		f = func(x float64) float64 {
			if x >= 0 {
				return 1 / (1 + exp(-x))
			}
			e := exp(x)
			return e / (1 + e)
		}
	case "gelu":
		f = func(x float64) float64 { return 0.5 * x * math.Erfc(-x*sqrt1_2) }
	case "silu":
		f = func(x float64) float64 {
			if x >= 0 {
				return x / (1 + exp(-x))
			}
			e := exp(x)
			return x * e / (1 + e)
		}
	default:
		panic("cpu: unknown float unary op " + name)
	}
	return func(o, a []F) {
		a = a[:len(o)]
		for i, x := range a {
			o[i] = F(f(float64(x)))
		}
	}
}

func keepUnaryKernel(name string) Kernel {
	f32, f64 := keepUnaryRow[float32](name), keepUnaryRow[float64](name)
	i64, u8 := keepUnaryRow[int64](name), keepUnaryRow[uint8](name)
	if simd := simdUnaryF32(name, f32); simd != nil {
		f32 = simd
	}
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		if err := checkInputs(name, ins, 1); err != nil {
			return err
		}
		if out.DType != ins[0].DType {
			return fmt.Errorf("%s: output %v does not match input %v", name, out.Meta, ins[0].Meta)
		}
		switch out.DType {
		case tensor.Float32:
			return runUnary(out.F32(), ins[0].F32(), f32)
		case tensor.Float64:
			return runUnary(out.F64(), ins[0].F64(), f64)
		case tensor.Int64:
			return runUnary(out.I64(), ins[0].I64(), i64)
		case tensor.Uint8:
			return runUnary(out.U8(), ins[0].U8(), u8)
		case tensor.Float16, tensor.BFloat16:
			return viaFloat32(out, func(tmp *tensor.Dense) error {
				x := castTo(ins[0], tensor.Float32)
				return runUnary(tmp.F32(), x.F32(), f32)
			})
		}
		return fmt.Errorf("%s has no cpu kernel for %v", name, out.DType)
	}
}

// keepUnaryRow picks neg, abs or relu for T. Unsigned negation wraps, as
// in torch; NaN stays NaN.
func keepUnaryRow[T number](name string) func(o, a []T) {
	switch name {
	case "neg":
		return func(o, a []T) {
			a = a[:len(o)]
			for i, x := range a {
				o[i] = -x
			}
		}
	case "abs":
		var z T
		if _, unsigned := any(z).(uint8); unsigned {
			return func(o, a []T) { copy(o, a) }
		}
		return func(o, a []T) {
			a = a[:len(o)]
			for i, x := range a {
				o[i] = max(x, -x) // branch-free; NaN stays NaN
			}
		}
	case "relu":
		return func(o, a []T) {
			a = a[:len(o)]
			for i, x := range a {
				o[i] = max(x, 0) // NaN stays NaN
			}
		}
	}
	panic("cpu: unknown unary op " + name)
}

func logicalNotKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	if err := checkInputs("logical_not", ins, 1); err != nil {
		return err
	}
	x := ins[0]
	if isHalf(x.DType) {
		x = castTo(x, tensor.Float32)
	}
	o := out.U8()
	switch x.DType {
	case tensor.Float32:
		return runUnary(o, x.F32(), isZeroRow[float32])
	case tensor.Float64:
		return runUnary(o, x.F64(), isZeroRow[float64])
	case tensor.Int64:
		return runUnary(o, x.I64(), isZeroRow[int64])
	case tensor.Uint8, tensor.Bool:
		return runUnary(o, x.U8(), isZeroRow[uint8])
	}
	return fmt.Errorf("logical_not has no cpu kernel for %v", x.DType)
}

func isZeroRow[T number](o []uint8, a []T) {
	a = a[:len(o)]
	for i, x := range a {
		o[i] = b2u(x == 0)
	}
}

// clampKernel is clamp(x, min=, max=): min(max(x, lo), hi) with the bounds
// converted to the result dtype; NaN stays NaN.
func clampKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("clamp", ins, 1); err != nil {
		return err
	}
	a, ok := attrs.(ops.ClampAttrs)
	if !ok {
		return fmt.Errorf("clamp: attributes must be ClampAttrs, got %T", attrs)
	}
	ct := out.DType
	if isHalf(ct) {
		return viaFloat32(out, func(tmp *tensor.Dense) error { return clampKernel(tmp, ins, attrs) })
	}
	x := castTo(ins[0], ct)
	switch ct {
	case tensor.Float32:
		row := clampRow[float32](a)
		lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
		if a.HasMin {
			lo = float32(a.Min)
		}
		if a.HasMax {
			hi = float32(a.Max)
		}
		if simd := simdClampF32(lo, hi, row); simd != nil {
			row = simd
		}
		return runUnary(out.F32(), x.F32(), row)
	case tensor.Float64:
		return runUnary(out.F64(), x.F64(), clampRow[float64](a))
	case tensor.Int64:
		return runUnary(out.I64(), x.I64(), clampRow[int64](a))
	case tensor.Uint8, tensor.Bool:
		return runUnary(out.U8(), x.U8(), clampRow[uint8](a))
	}
	return fmt.Errorf("clamp has no cpu kernel for %v", ct)
}

func clampRow[T number](a ops.ClampAttrs) func(o, x []T) {
	bound := func(v float64) T {
		if isFloat[T]() {
			return T(v)
		}
		return T(int64(v))
	}
	lo, hi := bound(a.Min), bound(a.Max)
	// Go's min and max propagate NaN, as torch's clamp does, and compile
	// without branches.
	switch {
	case a.HasMin && a.HasMax:
		return func(o, x []T) {
			x = x[:len(o)]
			for i, v := range x {
				o[i] = min(max(v, lo), hi)
			}
		}
	case a.HasMin:
		return func(o, x []T) {
			x = x[:len(o)]
			for i, v := range x {
				o[i] = max(v, lo)
			}
		}
	}
	return func(o, x []T) {
		x = x[:len(o)]
		for i, v := range x {
			o[i] = min(v, hi)
		}
	}
}
