package cpu

import (
	"math"
	"testing"
)

// TestHardswishF32 compares the blocked kernel with the formula in
// float32, in place and not, across block and vector tails.
func TestHardswishF32(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 1023, 1024, 1031, 2500} {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i%97-48) * 0.173
		}
		if n > 4 {
			x[0], x[1], x[2], x[3] = float32(math.Inf(1)), 3e38, -3, float32(math.NaN())
		}
		o := make([]float32, n)
		hardswishF32(o, x)
		in := append([]float32(nil), x...)
		hardswishF32(in, in)
		for i, v := range x {
			want := v * min(max(v+3, 0), 6) / 6
			if o[i] != want && !(math.IsNaN(float64(o[i])) && math.IsNaN(float64(want))) {
				t.Fatalf("n = %d: hardswish(%v) = %v, want %v", n, v, o[i], want)
			}
			if math.Float32bits(in[i]) != math.Float32bits(o[i]) {
				t.Fatalf("n = %d: in place %v, not %v", n, in[i], o[i])
			}
		}
	}
}
