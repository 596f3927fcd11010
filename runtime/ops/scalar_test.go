package ops

import (
	"math"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

// A scalar operand infers exactly what the 0-d tensor it replaces infers:
// promotion, result shape and errors, for every binary op, tensor dtype,
// scalar dtype and side.
func TestScalarFormInfersAsZeroDTensor(t *testing.T) {
	dtypes := []tensor.DType{tensor.Bool, tensor.Uint8, tensor.Int8, tensor.Int32, tensor.Int64,
		tensor.Float16, tensor.BFloat16, tensor.Float32, tensor.Float64}
	scalars := []Scalar{IntScalar(3), FloatScalar(0.05, tensor.Float32), FloatScalar(2.5, tensor.Float64),
		FloatScalar(1, tensor.Bool), FloatScalar(1.5, tensor.Float16)}
	for _, op := range append(append(append([]Op{}, BinaryArith...), Comparisons...), SpecialBinary...) {
		if !op.Def().TakesScalar {
			t.Errorf("%s has no scalar form", op)
		}
		for _, dt := range dtypes {
			for _, shape := range []tensor.Shape{{2, 3}, {}} {
				x := tensor.Meta{Shape: shape, DType: dt}
				for _, s := range scalars {
					for _, left := range []bool{false, true} {
						two := []tensor.Meta{x, s.Meta()}
						if left {
							two = []tensor.Meta{s.Meta(), x}
						}
						want, werr := op.Def().Infer(two, nil)
						got, gerr := op.Def().Infer([]tensor.Meta{x}, ScalarOperand{Value: s, Left: left})
						if (werr == nil) != (gerr == nil) || werr == nil && (got.DType != want.DType || !got.Shape.Equal(want.Shape)) {
							t.Errorf("%s(%v, %v, left=%v): scalar form %v (%v), 0-d tensor %v (%v)", op, x, s, left, got, gerr, want, werr)
						}
					}
				}
			}
		}
	}
	if _, err := Matmul.Def().Infer([]tensor.Meta{{Shape: tensor.Shape{2, 2}, DType: tensor.Float32}}, ScalarOperand{Value: IntScalar(1)}); err == nil {
		t.Error("matmul accepted a scalar operand")
	}
	if _, err := Add.Def().Infer([]tensor.Meta{{DType: tensor.Float32}, {DType: tensor.Float32}}, ScalarOperand{Value: IntScalar(1)}); err == nil {
		t.Error("add accepted two tensors and a scalar operand")
	}
}

// where's scalar form infers what where over a 0-d tensor infers, the
// number standing for either value, and maps operands to inputs.
func TestWhereScalarForm(t *testing.T) {
	c := tensor.Meta{Shape: tensor.Shape{3, 1}, DType: tensor.Bool}
	for _, x := range []tensor.Meta{{Shape: tensor.Shape{4}, DType: tensor.Float32}, {Shape: tensor.Shape{3, 4}, DType: tensor.Int64}} {
		for _, s := range []Scalar{FloatScalar(0, tensor.Float32), IntScalar(2), FloatScalar(-1.5, tensor.Float64)} {
			for _, left := range []bool{false, true} {
				three := []tensor.Meta{c, x, s.Meta()}
				if left {
					three = []tensor.Meta{c, s.Meta(), x}
				}
				want, werr := Where.Def().Infer(three, nil)
				got, gerr := Where.Def().Infer([]tensor.Meta{c, x}, ScalarOperand{Value: s, Left: left})
				if werr != nil || gerr != nil || got.DType != want.DType || !got.Shape.Equal(want.Shape) {
					t.Errorf("where(%v, %v, %v, left=%v): scalar form %v (%v), 0-d tensor %v (%v)", c, x, s, left, got, gerr, want, werr)
				}
			}
		}
	}
	if _, err := Where.Def().Infer([]tensor.Meta{c}, ScalarOperand{Value: IntScalar(1)}); err == nil {
		t.Error("where accepted a condition and a scalar operand only")
	}
	a := ScalarOperand{Value: IntScalar(1), Left: true} // where(c, 1, x): inputs [c, x]
	for j, want := range []int{0, -1, 1} {
		got, ok := a.Input(j, 2)
		if !ok {
			got = -1
		}
		if got != want {
			t.Errorf("operand %d of where(c, 1, x) is input %d, want %d", j, got, want)
		}
	}
}

func TestScalarValues(t *testing.T) {
	big := int64(1)<<62 + 1
	if s := IntScalar(big); s.Int() != big || s.Dense().I64()[0] != big {
		t.Errorf("int64 %d is not kept exactly: %d", big, s.Int())
	}
	if s := FloatScalar(0.05, tensor.Float32); s.Float() != float64(float32(0.05)) || s.Dense().F32()[0] != 0.05 {
		t.Errorf("float32 0.05 is %v", s.Float())
	}
	if s := FloatScalar(0.1, tensor.Float16); s.Float() != float64(tensor.HalfToFloat(tensor.FloatToHalf(0.1))) {
		t.Errorf("float16 0.1 is %v", s.Float())
	}
	if s := ScalarOf(FloatScalar(-2.5, tensor.BFloat16).Dense()); s.Float() != -2.5 || s.DType != tensor.BFloat16 {
		t.Errorf("bfloat16 round trip: %v", s)
	}
	for _, c := range []struct {
		s    Scalar
		to   tensor.DType
		want float64
	}{
		{FloatScalar(-2.7, tensor.Float64), tensor.Int64, -2},
		{IntScalar(300), tensor.Uint8, 44},
		{IntScalar(-3), tensor.Bool, 1},
		{IntScalar(0), tensor.Bool, 0},
		{IntScalar(7), tensor.Float32, 7},
		{FloatScalar(0.1, tensor.Float64), tensor.Float32, float64(float32(0.1))},
		{FloatScalar(math.NaN(), tensor.Float32), tensor.Float64, math.NaN()},
	} {
		got := c.s.Convert(c.to)
		if got.DType != c.to || got.Float() != c.want && !(math.IsNaN(c.want) && math.IsNaN(got.Float())) {
			t.Errorf("%v as %v = %v, want %v", c.s, c.to, got, c.want)
		}
	}
}

// Two immediates fold at once, with the kernels' arithmetic; anything else
// is left to a kernel.
func TestFoldScalars(t *testing.T) {
	f32 := func(v float32) Scalar { return FloatScalar(float64(v), tensor.Float32) }
	for _, c := range []struct {
		op   Op
		x, y Scalar
		want Scalar
	}{
		{Sub, f32(2), f32(1), f32(1)},
		{Add, f32(0.1), f32(0.2), f32(0.1 + float32(0.2))},
		{Mul, IntScalar(3), IntScalar(-4), IntScalar(-12)},
		{Div, IntScalar(1), IntScalar(3), f32(float32(1) / 3)},
		{Sub, IntScalar(2), f32(0.5), f32(1.5)},
		{Mul, FloatScalar(0.1, tensor.Float64), f32(3), FloatScalar(0.1*float64(float32(3)), tensor.Float64)},
	} {
		got, ok := foldScalars(c.op, nil, []T{c.x, c.y})
		if !ok || got != T(c.want) {
			t.Errorf("%v %s %v = %v (%v), want %v", c.x, c.op, c.y, got, ok, c.want)
		}
	}
	if _, ok := foldScalars(Pow, nil, []T{f32(2), f32(3)}); ok {
		t.Error("pow of two scalars folded")
	}
	if _, ok := foldScalars(Div, nil, []T{IntScalar(1), IntScalar(0)}); !ok {
		t.Error("1/0 in float32 did not fold")
	}
}
