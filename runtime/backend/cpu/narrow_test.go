package cpu

import (
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func intDense(dt tensor.DType, vals ...int64) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{len(vals)}, DType: dt})
	for i, v := range vals {
		d.SetInt(i, v)
	}
	return d
}

// The unsigned widths beyond uint8 (no torch 1.13 reference) compute in
// int64 and wrap back.
func TestNarrowUnsignedArithmetic(t *testing.T) {
	cases := []struct {
		op   string
		dt   tensor.DType
		a, b []int64
		want []int64
	}{
		{"add", tensor.Uint16, []int64{65535, 1, 7}, []int64{1, 2, 3}, []int64{0, 3, 10}},
		{"sub", tensor.Uint16, []int64{0, 5}, []int64{1, 2}, []int64{65535, 3}},
		{"mul", tensor.Uint32, []int64{1 << 31, 3}, []int64{2, 5}, []int64{0, 15}},
		{"floordiv", tensor.Uint32, []int64{4000000000, 9}, []int64{2, 2}, []int64{2000000000, 4}},
		{"maximum", tensor.Uint32, []int64{4000000000, 1}, []int64{3, 2}, []int64{4000000000, 2}},
		{"add", tensor.Uint64, []int64{-1, 5}, []int64{1, 6}, []int64{0, 11}},
		{"mul", tensor.Int16, []int64{300, -7}, []int64{300, 3}, []int64{24464, -21}},
	}
	for _, c := range cases {
		out := execShapeOp(t, c.op, nil, intDense(c.dt, c.a...), intDense(c.dt, c.b...))
		if out.DType != c.dt {
			t.Fatalf("%s on %v gives %v", c.op, c.dt, out.DType)
		}
		for i, w := range c.want {
			if got := out.IntAt(i); got != intDense(c.dt, w).IntAt(0) {
				t.Errorf("%s %v: element %d is %d, want %d", c.op, c.dt, i, got, w)
			}
		}
	}
	lt := execShapeOp(t, "lt", nil, intDense(tensor.Uint32, 4000000000, 1), intDense(tensor.Uint32, 5, 2))
	if lt.Buf[0] != 0 || lt.Buf[1] != 1 {
		t.Errorf("uint32 lt: %v", lt.Buf)
	}
	s := execShapeOp(t, "sum", ops.ReduceAttrs{}, intDense(tensor.Uint32, 4000000000, 4000000000))
	if s.DType != tensor.Int64 || s.I64()[0] != 8000000000 {
		t.Errorf("uint32 sum: %v %v", s.Meta, s.I64())
	}
}

// Casts from and to every width are exact, uint64 beyond 2^63 included.
func TestNarrowCastsExact(t *testing.T) {
	big := intDense(tensor.Uint64, -1, -1<<63, 12345678901234567)
	asI64 := execShapeOp(t, "astype", ops.CastAttrs{To: tensor.Int64}, big)
	for i, w := range []int64{-1, -1 << 63, 12345678901234567} {
		if asI64.I64()[i] != w {
			t.Errorf("uint64 -> int64 element %d: %d, want %d", i, asI64.I64()[i], w)
		}
	}
	back := execShapeOp(t, "astype", ops.CastAttrs{To: tensor.Uint64}, asI64)
	if string(back.Buf) != string(big.Buf) {
		t.Errorf("int64 -> uint64 changed the bits")
	}
	f := execShapeOp(t, "astype", ops.CastAttrs{To: tensor.Float64}, big)
	if f.F64()[0] != 18446744073709551615 || f.F64()[1] != 1<<63 {
		t.Errorf("uint64 -> float64: %v", f.F64())
	}
	for _, dt := range []tensor.DType{tensor.Int8, tensor.Int16, tensor.Int32, tensor.Uint16, tensor.Uint32} {
		src := intDense(tensor.Int64, -3, 0, 70000, 1<<40)
		c := execShapeOp(t, "astype", ops.CastAttrs{To: dt}, src)
		for i, v := range []int64{-3, 0, 70000, 1 << 40} {
			if c.IntAt(i) != intDense(dt, v).IntAt(0) {
				t.Errorf("int64 -> %v element %d: %d", dt, i, c.IntAt(i))
			}
		}
		b := execShapeOp(t, "astype", ops.CastAttrs{To: tensor.Bool}, c)
		for i := range 4 {
			if want := b2u(c.IntAt(i) != 0); b.Buf[i] != want {
				t.Errorf("%v -> bool element %d: %d", dt, i, b.Buf[i])
			}
		}
	}
}
