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
			if err := runName(c.op, out, []*tensor.Dense{x}, attrs); err != nil {
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

// kernelLens are row lengths around the kernels' steps of 8, 16 and 32.
var kernelLens = append(rangeInts(0, 70), 127, 128, 129, 1000, 4099)

// TestSum4F32MatchesRows checks the four-row sums against a float64 sum of
// each row, at every offset from an aligned start and for rows at
// different distances, and that a row alone (stride 0) gets exactly the
// sum it gets in a group.
func TestSum4F32MatchesRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	for _, n := range kernelLens {
		for off := range 4 {
			stride := n + off
			x := make([]float32, off+4*stride)
			for i := range x {
				x[i] = float32(rng.NormFloat64()*10 + 3)
			}
			s := sum4F32(x[off:], n, stride)
			for i := range 4 {
				row := x[off+i*stride : off+i*stride+n]
				want, abs := 0.0, 0.0
				for _, v := range row {
					want += float64(v)
					abs += math.Abs(float64(v))
				}
				if math.Abs(s[i]-want) > 1e-13*abs {
					t.Fatalf("n=%d off %d row %d: %v, want %v", n, off, i, s[i], want)
				}
				if alone := sum4F32(row, n, 0); alone != [4]float64{s[i], s[i], s[i], s[i]} {
					t.Fatalf("n=%d off %d row %d alone: %v, want %v four times", n, off, i, alone, s[i])
				}
			}
		}
	}
}

// TestExt4F32MatchesRows checks the four-row max and min and their NaN
// mask against maxRow and minRow, with NaN in some rows at the start, in
// the vectorised part and in the tail.
func TestExt4F32MatchesRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	for _, n := range kernelLens {
		stride := n + 1
		x := make([]float32, 1+4*stride)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		nanAt := []int{-1, 0, n / 2, n - 1}
		for i, at := range nanAt {
			if at >= 0 && n > 0 {
				x[1+i*stride+at] = float32(math.NaN())
			}
		}
		for _, isMax := range []bool{true, false} {
			m, nan := ext4F32(x[1:], n, stride, isMax)
			for i := range 4 {
				row := x[1+i*stride : 1+i*stride+n]
				want := minRow(row)
				if isMax {
					want = maxRow(row)
				}
				if wantNaN := want != want; wantNaN != (nan&(1<<i) != 0) {
					t.Fatalf("n=%d row %d max=%v: NaN mask %04b", n, i, isMax, nan)
				} else if !wantNaN && m[i] != want {
					t.Fatalf("n=%d row %d max=%v: %v, want %v", n, i, isMax, m[i], want)
				}
			}
		}
	}
}

// TestColSumF32MatchesSequential checks the register-blocked column sums
// against adding the rows one after the other in float64: the same
// additions in the same order, so the results are equal bit for bit.
func TestColSumF32MatchesSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, n := range append(rangeInts(1, 70), 100, 1000) {
		for _, rows := range []int{1, 2, 3, 7, 8, 9} {
			stride := n + rng.IntN(5)
			x := make([]float32, 1+(rows-1)*stride+n)
			for i := range x {
				x[i] = float32(rng.NormFloat64() * 1e3)
			}
			acc := make([]float64, n)
			want := make([]float64, n)
			for j := range acc {
				acc[j] = rng.NormFloat64()
				want[j] = acc[j]
			}
			colSumF32(acc, x[1:], stride, rows)
			for k := range rows {
				for j := range want {
					want[j] += float64(x[1+k*stride+j])
				}
			}
			for j := range acc {
				if acc[j] != want[j] {
					t.Fatalf("n=%d rows %d: column %d = %v, want %v", n, rows, j, acc[j], want[j])
				}
			}
		}
	}
}

// TestIndexEqAndNaN checks the vectorised searches at every position, -0
// matching +0, and the answer len(x) when there is nothing to find.
func TestIndexEqAndNaN(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for n := range 42 {
		x := make([]float32, n+1)
		for i := range x {
			x[i] = float32(i + 1)
		}
		y := x[1:] // not aligned like x
		if got := indexEqF32(y, 0); got != n {
			t.Fatalf("n=%d: indexEqF32 of an absent value = %d, want %d", n, got, n)
		}
		if got := indexNaNF32(y); got != n {
			t.Fatalf("n=%d: indexNaNF32 without NaN = %d, want %d", n, got, n)
		}
		for at := range n {
			z := append([]float32(nil), y...)
			z[at] = negZero
			if at+1 < n {
				z[n-1] = 0
			}
			if got := indexEqF32(z, 0); got != at {
				t.Fatalf("n=%d: indexEqF32(0) with -0 at %d = %d", n, at, got)
			}
			z[at] = float32(math.NaN())
			if at+1 < n {
				z[n-1] = float32(math.NaN())
			}
			if got := indexNaNF32(z); got != at {
				t.Fatalf("n=%d: indexNaNF32 with NaN at %d = %d", n, at, got)
			}
		}
	}
}

// TestRowResultsIndependentOfGrouping computes float32 rows in one call
// (groups of four rows side by side and rows left over) and one row per
// call (each row alone): every row's sum, moments, extremum and arg must
// be the same bit for bit, so results do not depend on how many threads
// split the rows.
func TestRowResultsIndependentOfGrouping(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	for _, c := range []struct{ outer, r int }{{11, 333}, {9, 2*momentBlock + 7}, {4, 16}, {7, 5}} {
		p := plan{outer: c.outer, r: c.r, inner: 1}
		x := make([]float32, c.outer*c.r)
		for i := range x {
			x[i] = float32(rng.NormFloat64()*5 + 50)
		}
		x[3*c.r+c.r/2] = float32(math.NaN())
		k0 := min(3, c.r-1) // a row range that does not start at 0
		each := func(call func(o0, o1 int)) {
			for o := range c.outer {
				call(o, o+1)
			}
		}
		sumAll, sumOne := make([]float64, c.outer), make([]float64, c.outer)
		sumRowsF32(sumAll, x, p, 0, c.outer, k0, c.r)
		each(func(o0, o1 int) { sumRowsF32(sumOne, x, p, o0, o1, k0, c.r) })
		momAll, momOne := make([]moments, c.outer), make([]moments, c.outer)
		momentRowsF32(momAll, x, p, 0, c.outer, k0, c.r)
		each(func(o0, o1 int) { momentRowsF32(momOne, x, p, o0, o1, k0, c.r) })
		for o := range c.outer {
			if math.Float64bits(sumAll[o]) != math.Float64bits(sumOne[o]) {
				t.Fatalf("%+v row %d: sum %v in a group, %v alone", c, o, sumAll[o], sumOne[o])
			}
			a, b := momAll[o], momOne[o]
			if math.Float64bits(a.mean) != math.Float64bits(b.mean) || math.Float64bits(a.m2) != math.Float64bits(b.m2) || a.n != b.n {
				t.Fatalf("%+v row %d: moments %+v in a group, %+v alone", c, o, a, b)
			}
		}
		for _, isMax := range []bool{true, false} {
			extAll, extOne := make([]float32, c.outer), make([]float32, c.outer)
			for o := range extAll {
				extAll[o], extOne[o] = maxValue[float32](), maxValue[float32]()
				if isMax {
					extAll[o], extOne[o] = minValue[float32](), minValue[float32]()
				}
			}
			extRowsF32(isMax)(extAll, x, p, 0, c.outer, k0, c.r)
			each(func(o0, o1 int) { extRowsF32(isMax)(extOne, x, p, o0, o1, k0, c.r) })
			argAll, argOne := make([]argAcc[float32], c.outer), make([]argAcc[float32], c.outer)
			for o := range argAll {
				argAll[o].i, argOne[o].i = -1, -1
			}
			argRowsF32(isMax)(argAll, x, p, 0, c.outer, k0, c.r)
			each(func(o0, o1 int) { argRowsF32(isMax)(argOne, x, p, o0, o1, k0, c.r) })
			for o := range c.outer {
				row := x[o*c.r+k0 : (o+1)*c.r]
				wv, wi := argScan(row, isMax)
				if argAll[o].i != int64(k0+wi) || argOne[o].i != int64(k0+wi) {
					t.Fatalf("%+v row %d max=%v: arg %d in a group, %d alone, want %d", c, o, isMax, argAll[o].i, argOne[o].i, k0+wi)
				}
				if !(extAll[o] == wv && extOne[o] == wv || wv != wv && extAll[o] != extAll[o] && extOne[o] != extOne[o]) {
					t.Fatalf("%+v row %d max=%v: extremum %v in a group, %v alone, want %v", c, o, isMax, extAll[o], extOne[o], wv)
				}
			}
		}
	}
}

// TestLongRowQuarters runs rows long enough to be read as four quarters
// through the kernels: sums and var against float64 references, and the
// first-index and first-NaN rules of argmax/argmin across quarters.
func TestLongRowQuarters(t *testing.T) {
	n := 4*segMin + 13
	x := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{n}, DType: tensor.Float32})
	xs := x.F32()
	rng := rand.New(rand.NewPCG(55, 56))
	sum := 0.0
	for i := range xs {
		xs[i] = float32(rng.NormFloat64() + 7)
		sum += float64(xs[i])
	}
	mean := sum / float64(n)
	m2 := 0.0
	for _, v := range xs {
		m2 += (float64(v) - mean) * (float64(v) - mean)
	}
	if got, want := ewRun(t, "sum", ops.ReduceAttrs{}, x).F32()[0], float32(sum); got != want {
		t.Errorf("sum = %v, want %v", got, want)
	}
	if got, want := float64(ewRun(t, "var", ops.ReduceAttrs{Correction: 1}, x).F32()[0]), m2/float64(n-1); math.Abs(got-want) > 1e-6*want {
		t.Errorf("var = %v, want %v", got, want)
	}
	// Equal maxima in the third quarter, the second quarter and the
	// tail: the second quarter's wins; likewise for the minimum.
	for _, at := range []int{2*segMin + 5, segMin + 99, n - 2} {
		xs[at] = 100
	}
	for _, at := range []int{3*segMin + 1, 2*segMin + 3, n - 1} {
		xs[at] = -100
	}
	argAt := func(op string) int64 { return ewRun(t, op, ops.ReduceAttrs{}, x).I64()[0] }
	if got := argAt("argmax"); got != segMin+99 {
		t.Errorf("argmax = %d, want %d", got, segMin+99)
	}
	if got := argAt("argmin"); got != 2*segMin+3 {
		t.Errorf("argmin = %d, want %d", got, 2*segMin+3)
	}
	if got := ewRun(t, "max", ops.ReduceAttrs{}, x).F32()[0]; got != 100 {
		t.Errorf("max = %v, want 100", got)
	}
	// NaN in the last quarter, then also in the third: the first wins.
	xs[3*segMin+7] = float32(math.NaN())
	if got := argAt("argmin"); got != 3*segMin+7 {
		t.Errorf("argmin with NaN = %d, want %d", got, 3*segMin+7)
	}
	xs[2*segMin+1] = float32(math.NaN())
	if got := argAt("argmax"); got != 2*segMin+1 {
		t.Errorf("argmax with NaN = %d, want %d", got, 2*segMin+1)
	}
	if got := ewRun(t, "min", ops.ReduceAttrs{}, x).F32()[0]; got == got {
		t.Errorf("min with NaN = %v, want NaN", got)
	}
}
