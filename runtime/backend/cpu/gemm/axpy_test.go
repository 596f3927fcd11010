package gemm

import (
	"math"
	"math/rand"
	"testing"
)

// TestAxpyF64: every length through the blocks of 16 and 4 and the tail
// adds a·x to y exactly as one fused multiply-add per element (the AVX2
// kernel) or a multiply and an add (the portable loop), and writes
// nothing past len(x).
func TestAxpyF64(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := range 41 {
		x, y := make([]float64, n), make([]float64, n+1)
		for i := range x {
			x[i], y[i] = r.NormFloat64(), r.NormFloat64()
		}
		y[n] = 42
		a := r.NormFloat64()
		want := make([]float64, n)
		for i := range want {
			if fusedF64 {
				want[i] = math.FMA(a, x[i], y[i])
			} else {
				want[i] = y[i] + a*x[i]
			}
		}
		axpyF64(a, x, y)
		for i := range want {
			if y[i] != want[i] {
				t.Fatalf("n=%d: y[%d] = %v, want %v", n, i, y[i], want[i])
			}
		}
		if y[n] != 42 {
			t.Fatalf("n=%d: wrote past x's length", n)
		}
	}
}

// TestDotF64: every length through the blocks of 16 and 4 and the tail,
// against the sum in float64 to within a few ulps of the terms' sum.
func TestDotF64(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for n := range 41 {
		x, y := make([]float64, n), make([]float64, n)
		want, mag := 0.0, 0.0
		for i := range x {
			x[i], y[i] = r.NormFloat64(), r.NormFloat64()
			want += x[i] * y[i]
			mag += math.Abs(x[i] * y[i])
		}
		if got := DotF64(x, y); math.Abs(got-want) > 8*0x1p-52*mag {
			t.Fatalf("n=%d: %v, want %v", n, got, want)
		}
	}
	// One term: exact (x·y rounded once).
	if got := DotF64([]float64{3}, []float64{1.0 / 3}); got != 3*(1.0/3) {
		t.Fatalf("one term: %v", got)
	}
}

// TestRotF64: every length through the blocks of 8 and 4 and the tail
// rotates each pair as c·x − s·y and s·x + c·y, the product c·x (c·y)
// rounded and the other term fused into it (the AVX2 kernel), or each
// product rounded (the portable loop).
func TestRotF64(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	c, s := 0.8, 0.6
	for n := range 21 {
		x, y := make([]float64, n), make([]float64, n+1)
		for i := range x {
			x[i], y[i] = r.NormFloat64(), r.NormFloat64()
		}
		y[n] = 42
		wx, wy := make([]float64, n), make([]float64, n)
		for i := range x {
			if fusedF64 {
				wx[i], wy[i] = math.FMA(-s, y[i], c*x[i]), math.FMA(s, x[i], c*y[i])
			} else {
				wx[i], wy[i] = c*x[i]-s*y[i], s*x[i]+c*y[i]
			}
		}
		RotF64(c, s, x, y)
		for i := range wx {
			if x[i] != wx[i] || y[i] != wy[i] {
				t.Fatalf("n=%d: (%v, %v) at %d, want (%v, %v)", n, x[i], y[i], i, wx[i], wy[i])
			}
		}
		if y[n] != 42 {
			t.Fatalf("n=%d: wrote past x's length", n)
		}
	}
}

func BenchmarkGemmF64(b *testing.B) {
	n := 256
	r := rand.New(rand.NewSource(1))
	x := make([]float64, n*n)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	c := make([]float64, n*n)
	for b.Loop() {
		GemmWorkers(1, false, false, n, n, n, x, n, x, n, false, c, n)
	}
}
