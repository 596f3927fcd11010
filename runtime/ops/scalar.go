package ops

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Scalar operands. A number in `x * 0.05` or `x + 1` is not a tensor of
// the program: it travels with the op as an attribute (an immediate value,
// a kernel argument), so it has no ref, takes no device memory and is
// never copied. An op of Def.TakesScalar (a binary elementwise op, or
// where) with ScalarOperand attributes takes one tensor fewer, and the
// scalar stands for one of its two value operands (its last two: x and y
// of x + y or of where(c, x, y)). Its dtype and value are exactly those
// of the 0-d tensor it replaces, so promotion and results are unchanged:
// the op sees the metas [x, s] (or [s, x] when Left; [c, x, s] or
// [c, s, x] for where), s 0-d.

// Scalar is a number of a given dtype, held as the bytes of a 0-d tensor
// of that dtype would hold it.
type Scalar struct {
	DType tensor.DType
	raw   uint64
}

// ScalarOf is the element of a one-element tensor d.
func ScalarOf(d *tensor.Dense) Scalar {
	s := Scalar{DType: d.DType}
	copy(s.bytes(), d.Buf)
	return s
}

// FloatScalar is v converted to dt as a cast would (tensor.Dense.Set).
func FloatScalar(v float64, dt tensor.DType) Scalar {
	s := Scalar{DType: dt}
	s.view().Set(0, v)
	return s
}

// IntScalar is the int64 v, exactly.
func IntScalar(v int64) Scalar { return Scalar{DType: tensor.Int64, raw: uint64(v)} }

// bytes are the scalar's element bytes (little-endian, like a Dense).
func (s *Scalar) bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&s.raw)), 8)[:s.DType.Size()]
}

// view is a 0-d Dense over s's own bytes.
func (s *Scalar) view() *tensor.Dense {
	return &tensor.Dense{Meta: tensor.Meta{DType: s.DType}, Buf: s.bytes()}
}

// Meta is the 0-d meta of the tensor the scalar stands for (so a Scalar
// is a T to a gradient rule).
func (s Scalar) Meta() tensor.Meta { return tensor.Meta{DType: s.DType} }

// Dense is a new 0-d host tensor holding s.
func (s Scalar) Dense() *tensor.Dense {
	d := tensor.NewDense(s.Meta())
	copy(d.Buf, s.bytes())
	return d
}

// Float is s as a float64 (tensor.Dense.At).
func (s Scalar) Float() float64 { return s.view().At(0) }

// Int is s as an int64: exact for integer and bool dtypes, truncated
// toward zero for floats.
func (s Scalar) Int() int64 {
	switch {
	case s.DType == tensor.Int64, s.DType == tensor.Uint64:
		return int64(s.raw)
	case s.DType.IsFloat():
		f := s.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0
		}
		return int64(f)
	}
	return s.view().IntAt(0)
}

// Convert is s cast to dt, as astype computes it (through float64 for
// floating-point values, exactly for integers).
func (s Scalar) Convert(dt tensor.DType) Scalar {
	if dt == s.DType {
		return s
	}
	if !s.DType.IsFloat() && (dt.IsInt() || dt == tensor.Bool) {
		out := Scalar{DType: dt}
		out.view().SetInt(0, s.Int())
		return out
	}
	return FloatScalar(s.Float(), dt)
}

// Wrapped is s as a number that meets a tensor of meta other in a binary
// op: converted to tensor.NumberType (a float64 number meeting an int64
// tensor is float32, a number meeting a 0-d tensor takes its dtype).
func (s Scalar) Wrapped(other tensor.Meta) Scalar {
	return s.Convert(tensor.NumberType(s.DType, other))
}

// String is the scalar as traces print it: its value and dtype.
func (s Scalar) String() string {
	if s.DType.IsFloat() {
		return fmt.Sprintf("%v:%v", s.Float(), s.DType)
	}
	if s.DType == tensor.Bool {
		return fmt.Sprintf("%v:bool", s.raw != 0)
	}
	return fmt.Sprintf("%d:%v", s.Int(), s.DType)
}

// ScalarOperand are the attributes of an op of Def.TakesScalar one of
// whose two value operands is a number: the op's inputs are its tensors,
// and Value stands for the other value operand, the first of the two when
// Left.
type ScalarOperand struct {
	Value Scalar
	Left  bool
}

// Slot is the scalar's place among the two value operands: 0 when Left,
// else 1.
func (a ScalarOperand) Slot() int {
	if a.Left {
		return 0
	}
	return 1
}

// Index is the scalar's operand position in the op that takes tensors
// tensor inputs besides it: the value operands are the op's last two.
func (a ScalarOperand) Index(tensors int) int { return tensors - 1 + a.Slot() }

// Input is the input index of operand j of an op that takes tensors
// tensor inputs and this scalar, or false when operand j is the scalar.
func (a ScalarOperand) Input(j, tensors int) (int, bool) {
	k := a.Index(tensors)
	switch {
	case j == k:
		return 0, false
	case j > k:
		return j - 1, true
	}
	return j, true
}

// ScalarSlot reports whether attrs carry a scalar operand, and which.
func ScalarSlot(attrs any) (ScalarOperand, bool) {
	switch a := attrs.(type) {
	case ScalarOperand:
		return a, true
	case *ScalarOperand:
		return *a, true
	}
	return ScalarOperand{}, false
}

// Operands is the metas an op sees: in, with the scalar operand of attrs
// inserted at its slot when there is one. It reuses buf for the result.
func Operands(in []tensor.Meta, attrs any, buf []tensor.Meta) []tensor.Meta {
	a, ok := ScalarSlot(attrs)
	if !ok || len(in) < 1 || len(in) > 2 {
		return in
	}
	k := a.Index(len(in))
	out := append(buf[:0], in[:k]...)
	out = append(out, a.Value.Meta())
	return append(out, in[k:]...)
}

// binaryOperands is Operands for the inference of a two-operand op: the
// two metas, or the error of an op given the wrong number of operands.
func binaryOperands(name string, in []tensor.Meta, attrs any) (a, b tensor.Meta, err error) {
	if s, ok := ScalarSlot(attrs); ok {
		if len(in) != 1 {
			return a, b, fmt.Errorf("%s with a scalar operand takes 1 tensor, got %d", name, len(in))
		}
		if s.Left {
			return s.Value.Meta(), in[0], nil
		}
		return in[0], s.Value.Meta(), nil
	}
	if err := wantInputs(name, in, 2); err != nil {
		return a, b, err
	}
	return in[0], in[1], nil
}

// ScalarGradArgs is the view of a recorded scalar form (attributes sc)
// that the op's gradient rule is written for: every operand, the scalar
// in its place as an immediate T (a Scalar, which the Builder passes on as
// a scalar operand again), and no cotangent wanted for it. The rule's
// Attrs are the all-tensor op's (none).
func ScalarGradArgs(a *GradArgs, sc ScalarOperand) *GradArgs {
	n := len(a.In)
	k := sc.Index(n)
	w := &GradArgs{Out: a.Out, OutMeta: a.OutMeta}
	w.In = Operands(a.In, sc, nil)
	w.X = make([]T, 0, n+1)
	w.X = append(append(append(w.X, a.X[:k]...), sc.Value), a.X[k:]...)
	w.Need = make([]bool, 0, n+1)
	w.Need = append(append(append(w.Need, a.Need[:k]...), false), a.Need[k:]...)
	return w
}

// foldScalars computes +, -, * and / of two immediate Scalars at once, as
// the kernels would (in the result dtype; float16 and bfloat16 through
// float32), so a gradient rule's arithmetic on constants submits nothing.
func foldScalars(op Op, attrs any, ins []T) (T, bool) {
	if attrs != nil || len(ins) != 2 || (op != Add && op != Sub && op != Mul && op != Div) {
		return nil, false
	}
	x, ok1 := ins[0].(Scalar)
	y, ok2 := ins[1].(Scalar)
	if !ok1 || !ok2 {
		return nil, false
	}
	dt, err := BinaryDType(op, x.Meta(), y.Meta())
	if err != nil {
		return nil, false
	}
	switch dt {
	case tensor.Float64:
		return FloatScalar(arith(op, x.Float(), y.Float()), dt), true
	case tensor.Float32, tensor.Float16, tensor.BFloat16:
		xf, yf := float32(x.Convert(dt).Float()), float32(y.Convert(dt).Float())
		return FloatScalar(float64(arith(op, xf, yf)), dt), true
	case tensor.Int64:
		if op != Div {
			return IntScalar(arith(op, x.Int(), y.Int())), true
		}
	}
	return nil, false
}

func arith[N float32 | float64 | int64](op Op, x, y N) N {
	switch op {
	case Add:
		return x + y
	case Sub:
		return x - y
	case Mul:
		return x * y
	}
	return x / y
}
