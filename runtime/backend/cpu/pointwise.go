package cpu

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Kernels of the pointwise ops of runtime/ops/pointwise.go. Float results
// are computed in float64 per element and rounded once; float16 and
// bfloat16 go through float32. Integer inputs of the rounding ops and of
// nan_to_num are copied.

func init() {
	for _, op := range ops.RoundingUnary {
		Register(op, roundingKernel(op.Name()))
	}
	Register(ops.Round, roundingKernel("round"))
	Register(ops.Sign, signKernel)
	Register(ops.NanToNum, nanToNumKernel)
	Register(ops.Erf, func(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
		if err := checkInputs("erf", ins, 1); err != nil {
			return err
		}
		return floatMap("erf", out, ins[0], math.Erf)
	})
	for _, op := range ops.Activations {
		Register(op, activationKernel(op.Name()))
	}
	Register(ops.Isnan, isClassKernel("isnan", math.IsNaN))
	Register(ops.Isinf, isClassKernel("isinf", func(v float64) bool { return math.IsInf(v, 0) }))
}

// floatMap writes f(x) into the float tensor out, converting x (any dtype,
// out's shape) first.
func floatMap(name string, out, x *tensor.Dense, f func(float64) float64) error {
	switch out.DType {
	case tensor.Float32:
		return runUnary(out.F32(), castTo(x, tensor.Float32).F32(), func(o, a []float32) {
			a = a[:len(o)]
			for i, v := range a {
				o[i] = float32(f(float64(v)))
			}
		})
	case tensor.Float64:
		return runUnary(out.F64(), castTo(x, tensor.Float64).F64(), func(o, a []float64) {
			a = a[:len(o)]
			for i, v := range a {
				o[i] = f(v)
			}
		})
	case tensor.Float16, tensor.BFloat16:
		return viaFloat32(out, func(tmp *tensor.Dense) error { return floatMap(name, tmp, x, f) })
	}
	return fmt.Errorf("%s has no cpu kernel for %v", name, out.DType)
}

// registerFloatMaps registers a kernel for each op of list that applies
// fs[op] per element in float64 (floatMap).
func registerFloatMaps(list []ops.Op, fs map[ops.Op]func(float64) float64) {
	for _, op := range list {
		name, f := op.Name(), fs[op]
		Register(op, func(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
			if err := checkInputs(name, ins, 1); err != nil {
				return err
			}
			return floatMap(name, out, ins[0], f)
		})
	}
}

// copyInto copies x into out of the same meta (out may alias x).
func copyInto(out, x *tensor.Dense) {
	if len(out.Buf) > 0 && &out.Buf[0] != &x.Buf[0] {
		copy(out.Buf, x.Buf)
	}
}

func roundingKernel(name string) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		if err := checkInputs(name, ins, 1); err != nil {
			return err
		}
		x := ins[0]
		if !x.DType.IsFloat() {
			copyInto(out, x)
			return nil
		}
		var f func(float64) float64
		switch name {
		case "floor":
			f = math.Floor
		case "ceil":
			f = math.Ceil
		case "trunc":
			f = math.Trunc
		case "round":
			f = math.RoundToEven
			if a, ok := attrs.(ops.RoundAttrs); ok && a.Decimals != 0 {
				f = roundDecimals(a.Decimals, out.DType)
			}
		}
		return floatMap(name, out, x, f)
	}
}

// roundDecimals is torch's round(x, decimals=d): for d > 0 the even-rounded
// x * 10^d divided by 10^d, for d < 0 x / 10^-d rounded and multiplied
// back, with the scale and the intermediate products in the result's
// precision (float32 for float32 tensors, as torch computes them).
func roundDecimals(d int, dt tensor.DType) func(float64) float64 {
	neg := d < 0
	if neg {
		d = -d
	}
	ten := math.Pow(10, float64(d))
	if dt != tensor.Float64 {
		r := float32(ten)
		return func(x float64) float64 {
			v := float32(x)
			if neg {
				return float64(float32(math.RoundToEven(float64(v/r))) * r)
			}
			return float64(float32(math.RoundToEven(float64(v*r))) / r)
		}
	}
	return func(x float64) float64 {
		if neg {
			return math.RoundToEven(x/ten) * ten
		}
		return math.RoundToEven(x*ten) / ten
	}
}

func signKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	if err := checkInputs("sign", ins, 1); err != nil {
		return err
	}
	x := ins[0]
	switch x.DType {
	case tensor.Int64:
		return runUnary(out.I64(), x.I64(), func(o, a []int64) {
			a = a[:len(o)]
			for i, v := range a {
				o[i] = int64(b2u(v > 0)) - int64(b2u(v < 0))
			}
		})
	case tensor.Uint8, tensor.Bool:
		return runUnary(out.U8(), x.U8(), func(o, a []uint8) {
			a = a[:len(o)]
			for i, v := range a {
				o[i] = b2u(v > 0)
			}
		})
	}
	return floatMap("sign", out, x, func(v float64) float64 {
		switch {
		case v > 0:
			return 1
		case v < 0:
			return -1
		}
		return 0 // zero and NaN
	})
}

func nanToNumKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("nan_to_num", ins, 1); err != nil {
		return err
	}
	x := ins[0]
	if !x.DType.IsFloat() {
		copyInto(out, x)
		return nil
	}
	a, _ := attrs.(ops.NanToNumAttrs)
	hi, lo := out.DType.MaxFinite(), -out.DType.MaxFinite()
	if a.HasPosInf {
		hi = a.PosInf
	}
	if a.HasNegInf {
		lo = a.NegInf
	}
	nan := a.Nan
	return floatMap("nan_to_num", out, x, func(v float64) float64 {
		switch {
		case math.IsNaN(v):
			return nan
		case math.IsInf(v, 1):
			return hi
		case math.IsInf(v, -1):
			return lo
		}
		return v
	})
}

// sqrt2OverPi is sqrt(2/pi), the scale of gelu's tanh approximation.
const sqrt2OverPi = 0.79788456080286535588

func activationKernel(name string) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		if err := checkInputs(name, ins, 1); err != nil {
			return err
		}
		var f func(float64) float64
		switch name {
		case "leaky_relu":
			a, _ := attrs.(ops.LeakyReluAttrs)
			s := a.NegativeSlope
			f = func(x float64) float64 {
				if x > 0 {
					return x
				}
				return x * s
			}
		case "elu":
			a, _ := attrs.(ops.EluAttrs)
			alpha := a.Alpha
			f = func(x float64) float64 {
				if x > 0 {
					return x
				}
				return alpha * math.Expm1(x)
			}
		case "softplus":
			a, _ := attrs.(ops.SoftplusAttrs)
			beta, th := a.Beta, a.Threshold
			f = func(x float64) float64 {
				if x*beta > th {
					return x
				}
				return math.Log1p(math.Exp(x*beta)) / beta
			}
		case "hardsigmoid":
			f = func(x float64) float64 { return min(max(x+3, 0), 6) / 6 }
		case "hardswish":
			if out.DType == tensor.Float32 && ins[0].DType == tensor.Float32 {
				hardswishF32(out.F32(), ins[0].F32())
				return nil
			}
			// torch multiplies before it divides, in the tensor's
			// precision: float32 products beyond its range are inf.
			round := func(v float64) float64 { return v }
			if out.DType != tensor.Float64 {
				round = tensor.RoundF32
			}
			f = func(x float64) float64 { return round(x*min(max(x+3, 0), 6)) / 6 }
		case "gelu_tanh":
			f = func(x float64) float64 {
				return 0.5 * x * (1 + math.Tanh(sqrt2OverPi*(x+0.044715*x*x*x)))
			}
		default:
			return fmt.Errorf("cpu: unknown activation %s", name)
		}
		return floatMap(name, out, ins[0], f)
	}
}

func isClassKernel(name string, is func(float64) bool) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
		if err := checkInputs(name, ins, 1); err != nil {
			return err
		}
		x, o := ins[0], out.U8()
		if !x.DType.IsFloat() {
			clear(o)
			return nil
		}
		if x.DType == tensor.Float32 {
			return runUnary(o, x.F32(), func(o []uint8, a []float32) {
				a = a[:len(o)]
				for i, v := range a {
					o[i] = b2u(is(float64(v)))
				}
			})
		}
		x = castTo(x, tensor.Float64)
		return runUnary(o, x.F64(), func(o []uint8, a []float64) {
			a = a[:len(o)]
			for i, v := range a {
				o[i] = b2u(is(v))
			}
		})
	}
}
