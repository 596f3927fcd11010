package cpu

import (
	"math"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

// The integer ops compute in their dtype's own width: the widths torch
// 1.13 lacks (the goldens cover the others) and the results that
// computing in int64 and wrapping back would change.
func TestIntOpsOwnWidth(t *testing.T) {
	cases := []struct {
		op   string
		dt   tensor.DType
		a, b []int64
		want []int64
	}{
		// uint64 beyond 2^63 shifts right logically
		{"bitwise_right_shift", tensor.Uint64, []int64{-1, -1, -1, 5}, []int64{63, 1, 64, -1}, []int64{1, math.MaxInt64, 0, 0}},
		{"bitwise_left_shift", tensor.Uint64, []int64{1, 3, 1}, []int64{63, 62, 64}, []int64{math.MinInt64, math.MinInt64 | 1<<62, 0}},
		{"bitwise_right_shift", tensor.Int32, []int64{math.MinInt32, -5, 7}, []int64{31, 40, -3}, []int64{-1, -1, 0}},
		{"bitwise_left_shift", tensor.Uint16, []int64{0xffff, 1}, []int64{4, 16}, []int64{0xfff0, 0}},
		{"gcd", tensor.Uint32, []int64{4000000000, 0}, []int64{3000000000, 7}, []int64{1000000000, 7}},
		{"gcd", tensor.Int32, []int64{math.MinInt32, math.MinInt32}, []int64{6, 0}, []int64{-2, math.MinInt32}},
		{"lcm", tensor.Uint16, []int64{65535, 0}, []int64{2, 9}, []int64{65534, 0}},
		{"lcm", tensor.Int32, []int64{math.MaxInt32, -6}, []int64{2, 4}, []int64{2, 12}},
		{"lcm", tensor.Int16, []int64{math.MaxInt16, -300}, []int64{2, 7}, []int64{-2, 2100}},
	}
	for _, c := range cases {
		out := execShapeOp(t, c.op, nil, intDense(c.dt, c.a...), intDense(c.dt, c.b...))
		if out.DType != c.dt {
			t.Fatalf("%s on %v gives %v", c.op, c.dt, out.DType)
		}
		for i, w := range c.want {
			if got, want := out.IntAt(i), intDense(c.dt, w).IntAt(0); got != want {
				t.Errorf("%s %v(%d, %d) is %d, want %d", c.op, c.dt, c.a[i], c.b[i], got, want)
			}
		}
	}
}
