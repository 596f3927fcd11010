package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Tests of the vectorised float32 math rows (simdFloatUnaryF32) against
// float64 math: special values, every length up to 70 (tails included),
// in place, and wide sweeps of arguments with an error bound per op.

// mathTol is each op's bound in float32 units in the last place of the
// float64 result (go test -v -run TestSIMDMathSweep logs the measured
// maxima). gelu's bound is 14 ulps, below 9e-7 relative (a sweep of
// every third float32 from 2^-30 to 14.5 in magnitude finds 9.3 ulps at
// most for |x| <= 4 and 13.3 beyond), against torch's 1e-5 tolerance:
// its fast path (|x| <= 5) leaves out the rounding error of x² in
// e^{-x²/2}, a relative error up to x² 2^-25 (7.5e-7), for one FMA and one
// subtraction fewer per block. Torch's own float32 gelu, 1 + erf(x/√2)
// with an erf good to 1.5e-7 absolute, loses all relative accuracy for x
// below about -4.
var mathTol = map[string]float64{
	"exp":     1.5,
	"log":     1.5,
	"sqrt":    0.5,
	"rsqrt":   1.6,
	"tanh":    2.5,
	"sigmoid": 2.5,
	"silu":    3,
	"gelu":    14,
	"sin":     2,
	"cos":     2,
}

// mathRef is the float64 function each row approximates.
var mathRef = map[string]func(float64) float64{
	"exp":   math.Exp,
	"log":   math.Log,
	"sqrt":  math.Sqrt,
	"rsqrt": func(x float64) float64 { return 1 / math.Sqrt(x) },
	"tanh":  math.Tanh,
	"sigmoid": func(x float64) float64 {
		if x >= 0 {
			return 1 / (1 + math.Exp(-x))
		}
		return math.Exp(x) / (1 + math.Exp(x))
	},
	"silu": func(x float64) float64 {
		if x >= 0 {
			return x / (1 + math.Exp(-x))
		}
		return x * math.Exp(x) / (1 + math.Exp(x))
	},
	"gelu": func(x float64) float64 { return 0.5 * x * math.Erfc(-x/math.Sqrt2) },
	"sin":  math.Sin,
	"cos":  math.Cos,
}

// ulpsF32 is |got - want| in units in the last place of float32 at want
// (subnormal spacing below the normal range).
func ulpsF32(got float32, want float64) float64 {
	ulp := math.Ldexp(1, -149)
	if a := math.Abs(want); a >= 0x1p-126 {
		_, e := math.Frexp(a)
		ulp = math.Ldexp(1, e-24)
	}
	return math.Abs(float64(got)-want) / ulp
}

// mathCheck reports whether got is within tol ulps of the float64 value
// want at x: NaN must give NaN, infinities and zeros must match exactly
// (sign included), and a result that lands among the subnormals may be
// off by a few subnormal steps (times |x| for products by x).
func mathCheck(got float32, want float64, x float32, tol float64) (float64, bool) {
	w32 := float32(want)
	switch {
	case math.IsNaN(want):
		return 0, got != got
	case math.IsInf(float64(w32), 0) || w32 == 0 && math.Abs(want) < 0x1p-150:
		return 0, got == w32 && math.Signbit(float64(got)) == math.Signbit(float64(w32))
	}
	u := ulpsF32(got, want)
	if got != got || math.IsInf(float64(got), 0) {
		return math.Inf(1), false
	}
	floor := 4 * math.Ldexp(1, -149) * max(1, math.Abs(float64(x)))
	return u, u <= tol || math.Abs(float64(got)-want) <= floor
}

// mathSpecials are arguments every row must get right.
var mathSpecials = []float32{
	float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
	math.MaxFloat32, -math.MaxFloat32, 1e30, -1e30, 0x1p-126, -0x1p-126, 1e-40, -1e-40, 0x1p-149, -0x1p-149,
	1, -1, 0.5, -0.5, 0.625, -0.625, 0.6249999, 88.72, 88.73, 89, -87.3, -103.9, -104, -105, 150, -150,
	15, -15, 14.9, -14.9, 20, -20, 8192, -8192, 8193, 1e5, -1e5, float32(math.Pi), float32(math.Pi / 2),
	float32(-math.Pi / 2), 0.70710677, 1.4142135, 2, 1e-20, -1e-20,
}

func TestSIMDMathSpecialsAndLengths(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for name, ref := range mathRef {
		simd := simdFloatUnaryF32(name)
		if simd == nil {
			t.Skip("no vectorised math rows on this machine")
		}
		scalar := floatUnaryRow[float32](name)
		tol := mathTol[name]
		for n := range 71 {
			a := make([]float32, n)
			for i := range a {
				switch rng.IntN(3) {
				case 0:
					a[i] = mathSpecials[rng.IntN(len(mathSpecials))]
				case 1:
					a[i] = float32(rng.NormFloat64() * 4)
				default:
					a[i] = float32(math.Ldexp(rng.Float64()+0.5, rng.IntN(300)-150))
					if rng.IntN(2) == 0 {
						a[i] = -a[i]
					}
				}
			}
			got, fallback := make([]float32, n), make([]float32, n)
			simd(got, a)
			scalar(fallback, a)
			for i, x := range a {
				want := ref(float64(x))
				if u, ok := mathCheck(got[i], want, x, tol); !ok {
					t.Fatalf("%s n=%d: %s(%g) = %g, want %g (%.2f ulps, bound %g)", name, n, name, x, got[i], want, u, tol)
				}
				// The scalar rows are the fallback without AVX2: they
				// must meet the same bound (plus their own rounding).
				if u, ok := mathCheck(fallback[i], want, x, tol+1); !ok {
					t.Fatalf("%s scalar: %s(%g) = %g, want %g (%.2f ulps)", name, name, x, fallback[i], want, u)
				}
			}
			inplace := slices.Clone(a)
			simd(inplace, inplace)
			if !sameF32s(inplace, got) {
				t.Fatalf("%s n=%d in place: %v, want %v", name, n, inplace, got)
			}
		}
	}
}

// TestSIMDMathSweep measures each row's largest error over wide sweeps:
// every special value, a dense grid over [-20, 20], and magnitudes from
// the subnormals to the largest float32 of both signs.
func TestSIMDMathSweep(t *testing.T) {
	var xs []float32
	xs = append(xs, mathSpecials...)
	for i := -100000; i <= 100000; i++ {
		xs = append(xs, float32(i)*2e-4)
	}
	rng := rand.New(rand.NewPCG(23, 24))
	for range 200000 {
		x := float32(math.Ldexp(rng.Float64()+0.5, rng.IntN(277)-150))
		xs = append(xs, x, -x)
	}
	for range 50000 { // sin and cos up to their vector range and beyond
		xs = append(xs, float32(rng.Float64()*2e4-1e4))
	}
	for name, ref := range mathRef {
		simd := simdFloatUnaryF32(name)
		if simd == nil {
			t.Skip("no vectorised math rows on this machine")
		}
		got := make([]float32, len(xs))
		simd(got, xs)
		worst, worstX := 0.0, float32(0)
		for i, x := range xs {
			want := ref(float64(x))
			u, ok := mathCheck(got[i], want, x, mathTol[name])
			if !ok {
				t.Errorf("%s(%g) = %g, want %g (%.2f ulps, bound %g)", name, x, got[i], want, u, mathTol[name])
				break
			}
			if u > worst && u <= mathTol[name] { // not the subnormal floor's passes
				worst, worstX = u, x
			}
		}
		t.Logf("%-8s max %.2f ulps at %g", name, worst, worstX)
	}
}

// TestMathRowResultsIndependentOfPosition checks that an element gives
// the same result in a whole block, in the padded tail, and next to an
// argument that sends its block down a general path (a NaN or a huge
// value; sin and cos compute such blocks with package math, so they are
// left out of that part).
func TestMathRowResultsIndependentOfPosition(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	same := func(a, b float32) bool { return a == b || a != a && b != b }
	for name := range mathRef {
		simd := simdFloatUnaryF32(name)
		if simd == nil {
			t.Skip("no vectorised math rows on this machine")
		}
		a := make([]float32, 19)
		for i := range a {
			a[i] = float32(rng.NormFloat64() * 5)
		}
		whole := make([]float32, len(a))
		simd(whole, a)
		for i := range a {
			one := make([]float32, 1)
			simd(one, a[i:i+1])
			if !same(one[0], whole[i]) {
				t.Fatalf("%s(%g): %g alone, %g at %d", name, a[i], one[0], whole[i], i)
			}
			if name == "sin" || name == "cos" {
				continue
			}
			for _, odd := range []float32{float32(math.NaN()), 1e30, -1e30, 1e-40} {
				blk := make([]float32, 48)
				for j := range blk {
					blk[j] = a[i]
				}
				blk[5], blk[40] = odd, odd
				out := make([]float32, len(blk))
				simd(out, blk)
				for j, v := range out {
					if j != 5 && j != 40 && !same(v, whole[i]) {
						t.Fatalf("%s(%g) next to %g: %g at %d, %g alone", name, a[i], odd, v, j, whole[i])
					}
				}
			}
		}
	}
}

// BenchmarkMathRows times each vectorised math row over 4096 elements that
// stay in the L1 and L2 caches, so that it measures the kernels' compute
// alone (BenchmarkElementwise16M measures them against memory); ns/blk is
// per block of 8. Arguments are spread over [-3.1, 3.3] (|x| + 0.01 for
// log and sqrt), the fast path of every row. By hand, with cycles:
//
//	go test -c ./runtime/backend/cpu && perf stat -e cycles:u ./cpu.test -test.run '^$' -test.bench 'MathRows/gelu$' -test.benchtime 100000x
func BenchmarkMathRows(b *testing.B) {
	const n = 4096
	for _, name := range []string{"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "silu", "gelu", "sin", "cos"} {
		b.Run(name, func(b *testing.B) {
			row := simdFloatUnaryF32(name)
			if row == nil {
				b.Skip("no vectorised math rows on this machine")
			}
			a, o := make([]float32, n), make([]float32, n)
			for i := range a {
				a[i] = float32(math.Sin(float64(i))*3.2) + 0.1
				if name == "log" || name == "sqrt" || name == "rsqrt" {
					a[i] = float32(math.Abs(float64(a[i]))) + 0.01
				}
			}
			b.SetBytes(2 * 4 * n)
			for b.Loop() {
				row(o, a)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(n/8), "ns/blk")
		})
	}
}
