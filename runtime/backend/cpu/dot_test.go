package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotF32 checks the dot products (vectorised and plain) against
// float64 sums at every length around the 32- and 8-wide blocks.
func TestDotF32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for n := range 100 {
		x, y := make([]float32, n), make([]float32, n+3)
		var want, mag float64
		for i := range x {
			x[i], y[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			want += float64(x[i]) * float64(y[i])
			mag += math.Abs(float64(x[i]) * float64(y[i]))
		}
		for name, got := range map[string]float32{"dotF32": dotF32(x, y), "dotF32Go": dotF32Go(x, y[:n])} {
			if math.Abs(float64(got)-want) > 1e-6*(1+mag) {
				t.Fatalf("%s, n=%d: %v, want %v", name, n, got, want)
			}
		}
	}
}

// TestLinearMM compares linear's products of one row (and against a
// vector weight) with the GEMM's, with and without a bias to add, on
// sizes around the blocks of the dot product.
func TestLinearMM(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	fill := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(r.NormFloat64())
		}
		return s
	}
	for _, c := range []struct {
		transB  bool
		m, n, k int
	}{
		{true, 1, 1, 1}, {true, 1, 3, 7}, {true, 1, 32, 2400}, {true, 1, 9, 33}, {true, 1, 5, 0},
		{false, 1, 1, 40}, {false, 17, 1, 31}, {false, 3, 1, 96},
		{true, 2, 4, 8}, {false, 2, 3, 4}, // the GEMM's
	} {
		a := fill(c.m * c.k)
		b := fill(c.n * c.k)
		ldb := c.n
		if c.transB {
			ldb = c.k
		}
		for _, acc := range []bool{false, true} {
			init := fill(c.m * c.n)
			got := append([]float32(nil), init...)
			want := append([]float32(nil), init...)
			linearMM(1, false, c.transB, c.m, c.n, c.k, a, c.k, b, max(ldb, 1), acc, got, c.n)
			sgemmMM(1, false, c.transB, c.m, c.n, c.k, a, c.k, b, max(ldb, 1), acc, want, c.n)
			for i := range want {
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-5*(1+float64(c.k)) {
					t.Fatalf("%+v accumulate %v: c[%d] = %v, want %v", c, acc, i, got[i], want[i])
				}
			}
		}
	}
}
