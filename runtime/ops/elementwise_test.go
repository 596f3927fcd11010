package ops

import (
	"math"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

func meta(dt tensor.DType, shape ...int) tensor.Meta {
	return tensor.Meta{Shape: tensor.Shape(shape), DType: dt}
}

func TestBinaryInference(t *testing.T) {
	f32, f64, i64, u8, b := tensor.Float32, tensor.Float64, tensor.Int64, tensor.Uint8, tensor.Bool
	cases := []struct {
		op   string
		a, b tensor.Meta
		want tensor.Meta
	}{
		{"add", meta(f32, 2, 3), meta(f32, 3), meta(f32, 2, 3)},
		{"add", meta(i64, 3, 1), meta(f32, 1, 4), meta(f32, 3, 4)},
		{"add", meta(i64, 4), meta(f32), meta(f32, 4)},      // a 0-d float raises int to float32
		{"add", meta(f32, 4), meta(f64), meta(f32, 4)},      // a 0-d float64 does not widen
		{"add", meta(f32), meta(f64), meta(f64)},            // two 0-d: ordinary promotion
		{"add", meta(u8, 2), meta(i64), meta(u8, 2)},        // uint8 stays with a 0-d int
		{"add", meta(u8, 2), meta(i64, 2), meta(i64, 2)},    // but not with an int tensor
		{"add", meta(b, 2), meta(b, 2), meta(b, 2)},         // or
		{"div", meta(i64, 2), meta(i64, 2), meta(f32, 2)},   // true division
		{"div", meta(b, 2), meta(b), meta(f32, 2)},          //
		{"floordiv", meta(i64, 2), meta(i64), meta(i64, 2)}, //
		{"pow", meta(i64, 2), meta(f32), meta(f32, 2)},      //
		{"maximum", meta(u8, 0, 3), meta(u8, 3), meta(u8, 0, 3)},
		{"lt", meta(f64, 2, 1), meta(i64, 5), meta(b, 2, 5)},
	}
	for _, c := range cases {
		got, err := MustLookup(c.op).Def().Infer([]tensor.Meta{c.a, c.b}, nil)
		if err != nil || got.DType != c.want.DType || !got.Shape.Equal(c.want.Shape) {
			t.Errorf("%s(%v, %v) = %v, %v; want %v", c.op, c.a, c.b, got, err, c.want)
		}
	}
}

func TestBinaryInferenceErrors(t *testing.T) {
	cases := []struct {
		op   string
		a, b tensor.Meta
		want string
	}{
		{"add", meta(tensor.Float32, 2, 3), meta(tensor.Float32, 4), "cannot broadcast shapes [2, 3] and [4]"},
		{"eq", meta(tensor.Float32, 3, 1, 5), meta(tensor.Float32, 2, 4), "cannot broadcast shapes [3, 1, 5] and [2, 4]"},
		{"sub", meta(tensor.Bool, 2), meta(tensor.Bool, 2), "subtraction with a bool"},
		{"sub", meta(tensor.Int64, 2), meta(tensor.Bool), "subtraction with a bool"},
		{"mod", meta(tensor.Bool, 2), meta(tensor.Bool, 2), "not supported on bool"},
	}
	for _, c := range cases {
		_, err := MustLookup(c.op).Def().Infer([]tensor.Meta{c.a, c.b}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s(%v, %v): got %v, want %q", c.op, c.a, c.b, err, c.want)
		}
	}
	if _, err := MustLookup("add").Def().Infer([]tensor.Meta{meta(tensor.Float32, 1)}, nil); err == nil {
		t.Error("add with one input: no error")
	}
}

func TestUnaryAndOtherInference(t *testing.T) {
	f32, i64, b := tensor.Float32, tensor.Int64, tensor.Bool
	check := func(op string, attrs any, ins []tensor.Meta, want tensor.Meta) {
		t.Helper()
		got, err := MustLookup(op).Def().Infer(ins, attrs)
		if err != nil || got.DType != want.DType || !got.Shape.Equal(want.Shape) {
			t.Errorf("%s%v = %v, %v; want %v", op, ins, got, err, want)
		}
	}
	check("exp", nil, []tensor.Meta{meta(i64, 3)}, meta(f32, 3))
	check("sigmoid", nil, []tensor.Meta{meta(b, 3)}, meta(f32, 3))
	check("relu", nil, []tensor.Meta{meta(i64, 3)}, meta(i64, 3))
	check("logical_not", nil, []tensor.Meta{meta(f32, 2)}, meta(b, 2))
	check("clamp", ClampAttrs{Min: 0.5, HasMin: true, MinFloat: true}, []tensor.Meta{meta(i64, 2)}, meta(f32, 2))
	check("clamp", ClampAttrs{Min: 0, HasMin: true}, []tensor.Meta{meta(i64, 2)}, meta(i64, 2))
	check("clamp", ClampAttrs{Max: 1, HasMax: true}, []tensor.Meta{meta(b, 2)}, meta(i64, 2))
	check("astype", CastAttrs{To: tensor.Uint8}, []tensor.Meta{meta(f32, 2, 2)}, meta(tensor.Uint8, 2, 2))
	check("where", nil, []tensor.Meta{meta(b, 3, 1), meta(i64, 4), meta(f32)}, meta(f32, 3, 4))
	for _, c := range []struct {
		op    string
		attrs any
		ins   []tensor.Meta
		want  string
	}{
		{"gelu", nil, []tensor.Meta{meta(i64, 2)}, "gelu needs a float tensor"},
		{"neg", nil, []tensor.Meta{meta(b, 2)}, "not supported on bool"},
		{"clamp", ClampAttrs{}, []tensor.Meta{meta(f32, 2)}, "min=, max= or both"},
		{"clamp", nil, []tensor.Meta{meta(f32, 2)}, "ClampAttrs"},
		{"astype", CastAttrs{}, []tensor.Meta{meta(f32, 2)}, "invalid dtype"},
		{"where", nil, []tensor.Meta{meta(f32, 2), meta(f32, 2), meta(f32, 2)}, "condition must be a bool"},
		{"where", nil, []tensor.Meta{meta(b, 3), meta(f32, 2, 1), meta(f32, 2)}, "cannot broadcast the condition's shape [3]"},
	} {
		_, err := MustLookup(c.op).Def().Infer(c.ins, c.attrs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s%v: got %v, want %q", c.op, c.ins, err, c.want)
		}
	}
}

func TestIntegerDivisionSemantics(t *testing.T) {
	cases := []struct{ a, b, div, mod int64 }{
		{7, 2, 3, 1}, {-7, 2, -4, 1}, {7, -2, -4, -1}, {-7, -2, 3, -1},
		{6, 3, 2, 0}, {-6, 3, -2, 0}, {0, -5, 0, 0},
		{math.MinInt64, -1, math.MinInt64, 0}, // wraps, as torch
	}
	for _, c := range cases {
		d, err := FloorDivInt(c.a, c.b)
		m, err2 := ModInt(c.a, c.b)
		if err != nil || err2 != nil || d != c.div || m != c.mod {
			t.Errorf("%d // %d, %d %% %d = %d, %d (%v, %v); want %d, %d", c.a, c.b, c.a, c.b, d, m, err, err2, c.div, c.mod)
		}
	}
	if _, err := FloorDivInt(1, 0); err != ErrIntDivZero {
		t.Errorf("1 // 0: got %v", err)
	}
	if _, err := ModInt(1, 0); err != ErrIntDivZero {
		t.Errorf("1 %% 0: got %v", err)
	}
}

func TestFloatDivisionSemantics(t *testing.T) {
	cases := []struct{ a, b, div, mod float64 }{
		{7.5, 2, 3, 1.5}, {-7.5, 2, -4, 0.5}, {7.5, -2, -4, -0.5}, {-7.5, -2, 3, -1.5},
		{1, math.Inf(1), 0, 1}, {-1, math.Inf(1), -1, math.Inf(1)},
	}
	for _, c := range cases {
		if d, m := FloorDivFloat(c.a, c.b), ModFloat(c.a, c.b); d != c.div || m != c.mod {
			t.Errorf("%v // %v, %v %% %v = %v, %v; want %v, %v", c.a, c.b, c.a, c.b, d, m, c.div, c.mod)
		}
	}
	if d := FloorDivFloat(1, 0); !math.IsInf(d, 1) {
		t.Errorf("1.0 // 0 = %v, want +inf", d)
	}
	if m := ModFloat(1, 0); !math.IsNaN(m) {
		t.Errorf("1.0 %% 0 = %v, want NaN", m)
	}
}

func TestPowInt(t *testing.T) {
	cases := []struct{ a, b, want int64 }{{3, 4, 81}, {-2, 3, -8}, {5, 0, 1}, {0, 0, 1}, {2, 64, 0}, {3, 13, 1594323}}
	for _, c := range cases {
		if got, err := PowInt(c.a, c.b); err != nil || got != c.want {
			t.Errorf("%d ** %d = %d, %v; want %d", c.a, c.b, got, err, c.want)
		}
	}
	if _, err := PowInt(2, -1); err != ErrIntNegPow {
		t.Errorf("2 ** -1: got %v", err)
	}
}
