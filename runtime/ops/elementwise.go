package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Elementwise ops: binary arithmetic and comparisons with NumPy broadcasting
// and PyTorch promotion, unary math, clamp, astype and where. Their scalar
// semantics (integer division and modulo signs, pow) are the functions at
// the end of this file, shared by every backend and by the evaluator's
// unboxed-scalar fast path.

// The binary arithmetic ops: NumPy broadcasting, PyTorch promotion.
var (
	Add      = Register(binaryDef("add"))
	Sub      = Register(binaryDef("sub"))
	Mul      = Register(binaryDef("mul"))
	Div      = Register(binaryDef("div"))
	FloorDiv = Register(binaryDef("floordiv"))
	Mod      = Register(binaryDef("mod"))
	Pow      = Register(binaryDef("pow"))
	Maximum  = Register(binaryDef("maximum"))
	Minimum  = Register(binaryDef("minimum"))
	// Atan2 is atan2(y, x): the angle of the point (x, y), in floating
	// point (integers give float32), as torch.atan2.
	Atan2 = Register(binaryDef("atan2"))
	// Fmod is C's fmod: the remainder of a / b truncated toward zero,
	// with a's sign (torch.fmod; mod is torch.remainder).
	Fmod = Register(binaryDef("fmod"))
	// Hypot is sqrt(a² + b²) without overflow, for floating-point inputs
	// (torch.hypot).
	Hypot = Register(binaryDef("hypot"))
	// Copysign is |a| with b's sign bit (-0.0 and NaN's included), in
	// floating point (integers give float32), as torch.copysign.
	Copysign = Register(binaryDef("copysign"))
)

// The comparison ops, which give bool tensors.
var (
	Eq = Register(compareDef("eq"))
	Ne = Register(compareDef("ne"))
	Lt = Register(compareDef("lt"))
	Le = Register(compareDef("le"))
	Gt = Register(compareDef("gt"))
	Ge = Register(compareDef("ge"))
)

// The unary ops that compute in floating point: integer and bool inputs
// give float32 (as torch).
var (
	Exp     = Register(unaryDef("exp", true))
	Log     = Register(unaryDef("log", true))
	Sqrt    = Register(unaryDef("sqrt", true))
	Rsqrt   = Register(unaryDef("rsqrt", true))
	Sin     = Register(unaryDef("sin", true))
	Cos     = Register(unaryDef("cos", true))
	Tanh    = Register(unaryDef("tanh", true))
	Sigmoid = Register(unaryDef("sigmoid", true))
	Gelu    = Register(unaryDef("gelu", true))
	Silu    = Register(unaryDef("silu", true))
)

// The unary ops whose result has the input's dtype.
var (
	Neg  = Register(unaryDef("neg", false))
	Abs  = Register(unaryDef("abs", false))
	Relu = Register(unaryDef("relu", false))
)

// The other elementwise ops.
var (
	// LogicalNot gives a bool tensor, true where x is zero.
	LogicalNot = Register(&Def{Name: "logical_not", Infer: inferLogicalNot, Flops: perOutput, Inplace: []int{0}})
	// Clamp takes ClampAttrs.
	Clamp = Register(&Def{Name: "clamp", Infer: inferClamp, Flops: perOutput, Inplace: []int{0}})
	// Astype converts to CastAttrs.To.
	Astype = Register(&Def{Name: "astype", Infer: inferCast, Inplace: []int{0}})
	// Where is where(cond, a, b), broadcasting all three.
	Where = Register(&Def{Name: "where", Infer: inferWhere, Flops: perOutput, Inplace: []int{1, 2}, TakesScalar: true})
)

// BinaryArith lists the binary arithmetic ops.
var BinaryArith = []Op{Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Maximum, Minimum, Atan2, Fmod, Hypot, Copysign}

// Comparisons lists the comparison ops.
var Comparisons = []Op{Eq, Ne, Lt, Le, Gt, Ge}

// FloatUnary lists the unary ops that compute in floating point.
var FloatUnary = []Op{Exp, Log, Sqrt, Rsqrt, Sin, Cos, Tanh, Sigmoid, Gelu, Silu}

// KeepUnary lists the unary ops whose result has the input's dtype.
var KeepUnary = []Op{Neg, Abs, Relu}

// ClampAttrs are the attributes of "clamp": the bounds that were given.
// The result dtype is the promotion of the input with the bounds as 0-d
// operands (an int64 tensor clamped to 0.5 becomes float32, as in torch).
type ClampAttrs struct {
	Min, Max       float64
	HasMin, HasMax bool
	// MinFloat and MaxFloat say the bound was written as a float, which
	// promotes integer inputs to float32.
	MinFloat, MaxFloat bool
}

// ErrIntDivZero is the execution error of integer division or modulo by 0.
var ErrIntDivZero = errors.New("integer division by zero")

// ErrIntNegPow is the error of an integer raised to a negative integer power.
var ErrIntNegPow = errors.New("integers to negative integer powers are not allowed (use astype(x, \"float32\") first)")

func binaryDef(name string) *Def {
	return &Def{Name: name, Infer: inferBinary(name), Flops: perOutput, Inplace: []int{0, 1}, TakesScalar: true}
}

func compareDef(name string) *Def {
	return &Def{Name: name, Infer: inferCompare(name), Flops: perOutput, Inplace: []int{0, 1}, TakesScalar: true}
}

func unaryDef(name string, float bool) *Def {
	return &Def{Name: name, Infer: inferUnary(name, float), Flops: perOutput, Inplace: []int{0}}
}

// perOutput costs one flop per output element.
func perOutput(_ []tensor.Meta, out tensor.Meta, _ any) int64 { return int64(out.Shape.Numel()) }

func wantInputs(name string, in []tensor.Meta, n int) error {
	if len(in) != n {
		return fmt.Errorf("%s takes %d tensors, got %d", name, n, len(in))
	}
	return nil
}

// BroadcastShapes is tensor.Broadcast with the message scripts see. When
// one shape is the result (equal shapes, or a 0-d operand) it is returned
// as is, without allocating: shapes in metas are never modified.
func BroadcastShapes(a, b tensor.Shape) (tensor.Shape, error) {
	switch {
	case len(b) == 0 || a.Equal(b):
		return a, nil
	case len(a) == 0:
		return b, nil
	}
	s, err := tensor.Broadcast(a, b)
	if err != nil {
		return nil, fmt.Errorf("cannot broadcast shapes %v and %v", a, b)
	}
	return s, nil
}

func inferBinary(name string) InferFunc {
	return func(in []tensor.Meta, attrs any) (tensor.Meta, error) {
		x, y, err := binaryOperands(name, in, attrs)
		if err != nil {
			return tensor.Meta{}, err
		}
		shape, err := BroadcastShapes(x.Shape, y.Shape)
		if err != nil {
			return tensor.Meta{}, err
		}
		dt, err := binaryDType(name, x, y)
		return tensor.Meta{Shape: shape, DType: dt}, err
	}
}

// BinaryDType is the result dtype of binary arithmetic op over a and b, or
// the error torch gives for it (bool subtraction, integer-only ops on bools).
func BinaryDType(op Op, a, b tensor.Meta) (tensor.DType, error) {
	return binaryDType(op.Name(), a, b)
}

func binaryDType(name string, a, b tensor.Meta) (tensor.DType, error) {
	dt := tensor.ResultType(a, b)
	switch name {
	case "div", "atan2", "copysign", "zeta":
		if !dt.IsFloat() {
			dt = tensor.Float32
		}
	case "hypot", "gammainc", "gammaincc":
		if !dt.IsFloat() {
			return 0, fmt.Errorf("%s takes floating-point tensors, got %v and %v", name, a.DType, b.DType)
		}
	case "sub":
		if a.DType == tensor.Bool || b.DType == tensor.Bool {
			return 0, fmt.Errorf("subtraction with a bool tensor is not supported (%v - %v); use logical_not or astype", a, b)
		}
	case "floordiv", "mod", "fmod", "pow":
		if dt == tensor.Bool {
			return 0, fmt.Errorf("%s is not supported on bool tensors (%v, %v); use astype first", name, a, b)
		}
	}
	return dt, nil
}

func inferCompare(name string) InferFunc {
	return func(in []tensor.Meta, attrs any) (tensor.Meta, error) {
		x, y, err := binaryOperands(name, in, attrs)
		if err != nil {
			return tensor.Meta{}, err
		}
		shape, err := BroadcastShapes(x.Shape, y.Shape)
		return tensor.Meta{Shape: shape, DType: tensor.Bool}, err
	}
}

func inferUnary(name string, float bool) InferFunc {
	return func(in []tensor.Meta, _ any) (tensor.Meta, error) {
		if err := wantInputs(name, in, 1); err != nil {
			return tensor.Meta{}, err
		}
		dt := in[0].DType
		switch {
		case float && !dt.IsFloat():
			if name == "gelu" {
				return tensor.Meta{}, fmt.Errorf("gelu needs a float tensor, got %v; use astype", dt)
			}
			dt = tensor.Float32
		case !float && dt == tensor.Bool:
			return tensor.Meta{}, fmt.Errorf("%s is not supported on bool tensors; use logical_not or astype", name)
		}
		return tensor.Meta{Shape: in[0].Shape, DType: dt}, nil
	}
}

func inferLogicalNot(in []tensor.Meta, _ any) (tensor.Meta, error) {
	if err := wantInputs("logical_not", in, 1); err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: in[0].Shape, DType: tensor.Bool}, nil
}

// ClampDType is clamp's result dtype: x promoted with each given bound as a
// 0-d int64 or float32 operand.
func ClampDType(x tensor.DType, a ClampAttrs) tensor.DType {
	dt := x
	scalar := func(isFloat bool) {
		s := tensor.Int64
		if isFloat {
			s = tensor.Float32
		}
		dt = tensor.ResultType(tensor.Meta{Shape: tensor.Shape{1}, DType: dt}, tensor.Meta{DType: s})
	}
	if a.HasMin {
		scalar(a.MinFloat)
	}
	if a.HasMax {
		scalar(a.MaxFloat)
	}
	return dt
}

func inferClamp(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if err := wantInputs("clamp", in, 1); err != nil {
		return tensor.Meta{}, err
	}
	a, ok := attrs.(ClampAttrs)
	if !ok {
		return tensor.Meta{}, fmt.Errorf("clamp: attributes must be ClampAttrs, got %T", attrs)
	}
	if !a.HasMin && !a.HasMax {
		return tensor.Meta{}, fmt.Errorf("clamp needs min=, max= or both")
	}
	return tensor.Meta{Shape: in[0].Shape, DType: ClampDType(in[0].DType, a)}, nil
}

func inferCast(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if err := wantInputs("astype", in, 1); err != nil {
		return tensor.Meta{}, err
	}
	a, ok := attrs.(CastAttrs)
	if !ok {
		return tensor.Meta{}, fmt.Errorf("astype: attributes must be CastAttrs, got %T", attrs)
	}
	if a.To.Size() == 0 || a.To == tensor.Invalid {
		return tensor.Meta{}, fmt.Errorf("astype: invalid dtype %v", a.To)
	}
	return tensor.Meta{Shape: in[0].Shape, DType: a.To}, nil
}

func inferWhere(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if _, ok := ScalarSlot(attrs); ok {
		if len(in) != 2 {
			return tensor.Meta{}, fmt.Errorf("where with a scalar operand takes 2 tensors, got %d", len(in))
		}
		in = Operands(in, attrs, make([]tensor.Meta, 0, 3))
	}
	if err := wantInputs("where", in, 3); err != nil {
		return tensor.Meta{}, err
	}
	if in[0].DType != tensor.Bool {
		return tensor.Meta{}, fmt.Errorf("where: the condition must be a bool tensor, got %v", in[0])
	}
	ab, err := BroadcastShapes(in[1].Shape, in[2].Shape)
	if err != nil {
		return tensor.Meta{}, err
	}
	shape, err := tensor.Broadcast(in[0].Shape, ab)
	if err != nil {
		return tensor.Meta{}, fmt.Errorf("cannot broadcast the condition's shape %v with the values' shapes %v and %v",
			in[0].Shape, in[1].Shape, in[2].Shape)
	}
	return tensor.Meta{Shape: shape, DType: tensor.ResultType(in[1], in[2])}, nil
}

// FloorDivInt is a // b for integers: the quotient rounded toward negative
// infinity (Python and torch.floor_divide).
func FloorDivInt(a, b int64) (int64, error) {
	if b == 0 {
		return 0, ErrIntDivZero
	}
	if b == -1 {
		return -a, nil // avoids the MinInt64 / -1 trap; wraps like torch
	}
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q, nil
}

// ModInt is a % b for integers, with the divisor's sign (torch.remainder).
func ModInt(a, b int64) (int64, error) {
	if b == 0 {
		return 0, ErrIntDivZero
	}
	if b == -1 {
		return 0, nil
	}
	r := a % b
	if r != 0 && (r < 0) != (b < 0) {
		r += b
	}
	return r, nil
}

// FmodInt is C's a % b for integers, with the dividend's sign
// (torch.fmod).
func FmodInt(a, b int64) (int64, error) {
	if b == 0 {
		return 0, ErrIntDivZero
	}
	if b == -1 {
		return 0, nil // MinInt64 % -1 overflows in hardware
	}
	return a % b, nil
}

// FloorDivFloat is a // b for floats, computed as torch does (from fmod,
// so that a == b*(a//b) + a%b holds as closely as rounding allows).
func FloorDivFloat(a, b float64) float64 {
	if b == 0 {
		return a / b
	}
	mod := math.Mod(a, b)
	div := (a - mod) / b
	if mod != 0 && (b < 0) != (mod < 0) {
		div--
	}
	if div == 0 {
		return math.Copysign(0, a/b)
	}
	fl := math.Floor(div)
	if div-fl > 0.5 {
		fl++
	}
	return fl
}

// ModFloat is a % b for floats, with the divisor's sign (torch.remainder).
func ModFloat(a, b float64) float64 {
	m := math.Mod(a, b)
	if m != 0 && (b < 0) != (m < 0) {
		m += b
	}
	return m
}

// PowInt is a ** b for integers by repeated squaring, wrapping on overflow
// like torch; negative exponents are an error.
func PowInt(a, b int64) (int64, error) {
	if b < 0 {
		return 0, ErrIntNegPow
	}
	r := int64(1)
	for b > 0 {
		if b&1 != 0 {
			r *= a
		}
		a *= a
		b >>= 1
	}
	return r, nil
}
