package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAffineRow checks the vectorised rows against x·s + b in float64 at
// every length around the 32- and 8-wide blocks, in place and not.
func TestAffineRow(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for n := range 75 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		s, b := float32(r.NormFloat64()), float32(r.NormFloat64())
		o := make([]float32, n)
		affineRow(o, x, s, b)
		in := append([]float32(nil), x...)
		affineRow(in, in, s, b)
		for i, v := range x {
			want := float64(v)*float64(s) + float64(b)
			if math.Abs(float64(o[i])-want) > 1e-6*(1+math.Abs(want)) || in[i] != o[i] {
				t.Fatalf("n=%d: o[%d] = %v (in place %v), want %v", n, i, o[i], in[i], want)
			}
		}
	}
}
