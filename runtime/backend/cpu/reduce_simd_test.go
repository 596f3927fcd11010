package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Tests of the vectorised row reductions against the scalar ones: argmax
// and argmin, the squared deviations and moments of var/std, and the zero
// tests of any/all.

// TestArg4F32MatchesScan checks the blocked four-row argmax/argmin
// against argScan on every row, for rows around the kernel's 16 and the
// block's 2048, ties, ±0, ±inf and NaN at the start, middle and end, in
// groups of rows (stride n and more) and alone (stride 0).
func TestArg4F32MatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	special := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 3, -3}
	lens := append(rangeInts(1, 70), 2047, 2048, 2049, 4096+17, 3*argBlock+5)
	for _, n := range lens {
		for trial := range 4 {
			stride := n + trial // rows not aligned alike
			x := make([]float32, 4*stride)
			for i := range x {
				switch trial {
				case 0:
					x[i] = float32(rng.NormFloat64())
				case 1: // ties everywhere
					x[i] = float32(rng.IntN(3))
				case 2:
					x[i] = special[rng.IntN(len(special))]
				default:
					x[i] = float32(math.Inf(-1))
				}
			}
			// Row 1 gets a NaN early, row 2 two late ones, row 3 one at
			// its end.
			if trial > 0 {
				x[stride+n/5] = float32(math.NaN())
				x[2*stride+n-1-n/3] = float32(math.NaN())
				x[2*stride+n-1] = float32(math.NaN())
				x[3*stride+n-1] = float32(math.NaN())
			}
			for _, isMax := range []bool{true, false} {
				best, idx := arg4F32(x, n, stride, 4, isMax)
				for i := range 4 {
					row := x[i*stride : i*stride+n]
					wv, wi := argScan(row, isMax)
					if idx[i] != wi || !(best[i] == wv || best[i] != best[i] && wv != wv) {
						t.Fatalf("n=%d trial %d row %d max=%v: (%v, %d), want (%v, %d)", n, trial, i, isMax, best[i], idx[i], wv, wi)
					}
					b1, i1 := arg4F32(row, n, 0, 1, isMax)
					if i1[0] != wi {
						t.Fatalf("n=%d trial %d row %d alone max=%v: (%v, %d), want index %d", n, trial, i, isMax, b1[0], i1[0], wi)
					}
				}
			}
		}
	}
}

func rangeInts(lo, hi int) []int {
	var s []int
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

func TestSqDevF32MatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for n := range 100 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64()*3 + 100)
		}
		mean := 100.25
		got, want := sqDevF32(x, mean, 0), sqDevRow(x, mean)
		if math.Abs(got-want) > 1e-12*(1+want) {
			t.Fatalf("n=%d: %v, want %v", n, got, want)
		}
	}
}

// TestVarianceOnePassMatchesTwoPass compares the blocked one-pass var
// (contiguous rows, split over goroutines for a long row) with the two
// passes of squaredDeviations, on data whose mean is far from zero.
func TestVarianceOnePassMatchesTwoPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	for _, c := range []struct{ outer, r int }{{1, 1}, {1, 2}, {3, 17}, {2, momentBlock + 3}, {5, 3*momentBlock - 1}, {1, parallelMin + 12345}, {4096, 9}} {
		x := make([]float32, c.outer*c.r)
		for i := range x {
			x[i] = float32(1e4 + rng.NormFloat64()*(1+float64(i%7)))
		}
		p := plan{outer: c.outer, r: c.r, inner: 1}
		for _, corr := range []int{0, 1} {
			got := variance(x, p, corr, false)
			two := squaredDeviations(x, p)
			for i := range got {
				want := two[i] / float64(max(0, c.r-corr))
				if !(math.Abs(got[i]-want) <= 1e-9*math.Abs(want) || math.IsNaN(got[i]) && math.IsNaN(want)) {
					t.Fatalf("%+v correction %d: var[%d] = %v, want %v", c, corr, i, got[i], want)
				}
			}
		}
	}
	// NaN and infinities propagate as in the two-pass form.
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1))} {
		x := []float32{1, 2, bad, 4}
		if v := variance(x, plan{1, 4, 1}, 1, false)[0]; !math.IsNaN(v) {
			t.Errorf("var of %v = %v, want NaN", x, v)
		}
	}
}

func TestZeroTestsMatchScalar(t *testing.T) {
	for n := range 300 {
		for _, at := range []int{-1, 0, n / 2, n - 1} {
			f := make([]float32, n)
			for i := range f {
				f[i] = 1
			}
			b := make([]uint8, n)
			if at >= 0 && at < n {
				f[at] = float32(math.Copysign(0, -1))
				b[at] = 7
			}
			hasZero := at >= 0 && at < n
			if got := hasZeroF32(f); got != hasZero {
				t.Fatalf("hasZeroF32 n=%d zero at %d: %v", n, at, got)
			}
			if got := hasNonzeroU8(b); got != hasZero {
				t.Fatalf("hasNonzeroU8 n=%d nonzero at %d: %v", n, at, got)
			}
			z := make([]float32, n)
			if at >= 0 && at < n {
				z[at] = float32(math.NaN())
			}
			if got := hasNonzeroF32(z); got != hasZero {
				t.Fatalf("hasNonzeroF32 n=%d NaN at %d: %v", n, at, got)
			}
		}
	}
}

// TestAnyAllKernels runs any and all through the kernels on float32 and
// bool rows long enough for the vectorised paths.
func TestAnyAllKernels(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Bool} {
		x := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{3, 500}, DType: dt})
		for i := range 1500 {
			x.Set(i, 1)
		}
		x.Set(1*500+499, 0) // row 1 has one zero
		for i := range 500 {
			x.Set(2*500+i, 0) // row 2 is all zeros
		}
		for _, c := range []struct {
			op   string
			want []float64
		}{{"all", []float64{1, 0, 0}}, {"any", []float64{1, 1, 0}}} {
			attrs := ops.ReduceAttrs{Dims: []int{1}}
			out := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{3}, DType: tensor.Bool})
			if err := Run(c.op, out, []*tensor.Dense{x}, attrs); err != nil {
				t.Fatal(err)
			}
			for i, w := range c.want {
				if out.At(i) != w {
					t.Errorf("%s %v row %d = %v, want %v", c.op, dt, i, out.At(i), w)
				}
			}
		}
	}
}
