package torch

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The conformance rows of the ops of runtime/ops/pointwise.go and
// gather.go; those that need in-range indices are gatherCases.

// indexedOps are covered by TestConformanceIndexedOps (gatherCases).
var indexedOps = []ops.Op{ops.Gather, ops.Scatter, ops.ScatterAdd, ops.ScatterReduce, ops.IndexSelect, ops.OneHot}

// intsBelow makes an int64 tensor of shape s with values in [0, n).
func intsBelow(r *rand.Rand, n int, s ...int) *tensor.Dense {
	d := tensor.NewDense(m(i64, s...))
	for i := range d.I64() {
		d.I64()[i] = int64(r.IntN(n))
	}
	return d
}

// gatherCases are TestConformanceIndexedOps's cases of the gather family.
func gatherCases(r *rand.Rand) []struct {
	c      opCase
	inputs []*tensor.Dense
} {
	x := fill(r, m(f32, 4, 5, 6), false)
	return []struct {
		c      opCase
		inputs []*tensor.Dense
	}{
		{opCase{op: ops.Gather, attrs: ops.DimAttrs{Dim: 1}}, []*tensor.Dense{x, intsBelow(r, 5, 3, 7, 6)}},
		{opCase{op: ops.Gather, attrs: ops.DimAttrs{Dim: -1}}, []*tensor.Dense{x, intsBelow(r, 6, 4, 5, 2)}},
		// one index per target element, so the order of writes cannot matter
		{opCase{op: ops.Scatter, attrs: ops.DimAttrs{Dim: 0}}, []*tensor.Dense{x, tensorI64([]int64{3, 0, 2, 1}, 4, 1, 1), fill(r, m(f32, 4, 2, 2), false)}},
		{opCase{op: ops.Scatter, attrs: ops.DimAttrs{Dim: 2}}, []*tensor.Dense{x, tensorI64([]int64{5, 1}, 1, 1, 2), fill(r, m(f32), false)}},
		{opCase{op: ops.ScatterAdd, attrs: ops.DimAttrs{Dim: 1}}, []*tensor.Dense{x, intsBelow(r, 5, 4, 9, 6), fill(r, m(f32, 4, 9, 6), false)}},
		// embedding's gradient: many rows into few; an index smaller than
		// x and src along the other dimensions; int64 and float64
		{opCase{op: ops.ScatterAdd, attrs: ops.DimAttrs{Dim: 0}}, []*tensor.Dense{fill(r, m(f32, 8, 6), false), intsBelow(r, 8, 200, 6), fill(r, m(f32, 200, 6), false)}},
		{opCase{op: ops.ScatterAdd, attrs: ops.DimAttrs{Dim: -1}}, []*tensor.Dense{x, intsBelow(r, 6, 3, 2, 9), fill(r, m(f32, 4, 3, 10), false)}},
		{opCase{op: ops.ScatterAdd, attrs: ops.DimAttrs{Dim: 1}}, []*tensor.Dense{intsBelow(r, 100, 3, 4), intsBelow(r, 4, 3, 7), intsBelow(r, 100, 3, 7)}},
		{opCase{op: ops.ScatterAdd, attrs: ops.DimAttrs{Dim: 0}}, []*tensor.Dense{fill(r, m(f64, 5), false), intsBelow(r, 5, 30), fill(r, m(f64, 30), false)}},
		{opCase{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 1, Reduce: "amax", IncludeSelf: true}}, []*tensor.Dense{x, intsBelow(r, 5, 4, 9, 6), fill(r, m(f32, 4, 9, 6), false)}},
		{opCase{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "prod"}}, []*tensor.Dense{x, intsBelow(r, 4, 6, 5, 6), fill(r, m(f32, 6, 5, 6), false)}},
		{opCase{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: -1, Reduce: "mean", IncludeSelf: true}}, []*tensor.Dense{x, intsBelow(r, 6, 4, 5, 3), fill(r, m(f32, 4, 5, 3), false)}},
		// Many elements written to one place: the last one wins (the
		// plugin's scatter_last); sums and means add in index's order
		// (scatter_reduce_ordered), with and without the target's value.
		{opCase{op: ops.Scatter, attrs: ops.DimAttrs{Dim: 0}}, []*tensor.Dense{x, intsBelow(r, 4, 9, 5, 6), fill(r, m(f32, 9, 5, 6), false)}},
		{opCase{op: ops.Scatter, attrs: ops.DimAttrs{Dim: -1}}, []*tensor.Dense{intsBelow(r, 100, 3, 4), intsBelow(r, 4, 3, 7), intsBelow(r, 100, 3, 8)}},
		{opCase{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 1, Reduce: "sum"}}, []*tensor.Dense{x, intsBelow(r, 5, 4, 9, 6), fill(r, m(f32, 4, 9, 6), false)}},
		{opCase{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "sum", IncludeSelf: true}}, []*tensor.Dense{intsBelow(r, 100, 3, 4), intsBelow(r, 3, 8, 4), intsBelow(r, 100, 8, 4)}},
		{opCase{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "mean"}}, []*tensor.Dense{x, intsBelow(r, 4, 6, 5, 6), fill(r, m(f32, 6, 5, 6), false)}},
		{opCase{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 1, Reduce: "mean", IncludeSelf: true}}, []*tensor.Dense{intsBelow(r, 100, 3, 4), intsBelow(r, 4, 3, 9), intsBelow(r, 100, 3, 9)}},
		{opCase{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "mean"}}, []*tensor.Dense{fill(r, m(f64, 5), false), intsBelow(r, 3, 40), fill(r, m(f64, 40), false)}},
		// prod multiplies each position's run as a tree (scatter_prod):
		// runs of about 8, of about 1700 factors near 1, and int64.
		{opCase{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "prod", IncludeSelf: true}}, []*tensor.Dense{fill(r, m(f64, 4, 3), false), intsBelow(r, 4, 30, 3), fill(r, m(f64, 30, 3), false)}},
		{opCase{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "prod", IncludeSelf: true}}, []*tensor.Dense{fill(r, m(f32, 3), false), intsBelow(r, 3, 5000), nearOne(r, 5000)}},
		{opCase{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 1, Reduce: "prod"}}, []*tensor.Dense{intsBelow(r, 100, 3, 4), intsBelow(r, 4, 3, 9), fill(r, m(i64, 3, 9), false)}},
		{opCase{op: ops.IndexSelect, attrs: ops.DimAttrs{Dim: 2}}, []*tensor.Dense{x, intsBelow(r, 6, 8)}},
		{opCase{op: ops.IndexSelect, attrs: ops.DimAttrs{Dim: 0}}, []*tensor.Dense{x, intsBelow(r, 4, 3)}},
		{opCase{op: ops.OneHot, attrs: ops.OneHotAttrs{NumClasses: 7}}, []*tensor.Dense{intsBelow(r, 7, 3, 4)}},
	}
}

// nearOne is n float32 factors within about 1% of 1.
func nearOne(r *rand.Rand, n int) *tensor.Dense {
	d := tensor.NewDense(m(f32, n))
	for i := range n {
		d.Set(i, 1+0.01*r.NormFloat64())
	}
	return d
}

func tensorI64(v []int64, s ...int) *tensor.Dense {
	d := tensor.NewDense(m(i64, s...))
	copy(d.I64(), v)
	return d
}

// pointwiseCases are the table rows of runtime/ops/pointwise.go, trig.go, logexp.go and order.go.
func pointwiseCases() []opCase {
	var t []opCase
	for _, op := range slices.Concat([]ops.Op{ops.Round, ops.Sign, ops.Erf, ops.Isnan, ops.Isinf, ops.NanToNum}, ops.RoundingUnary, ops.Activations, ops.Trig, ops.LogExp) {
		var attrs any
		switch op {
		case ops.Round:
			attrs = ops.RoundAttrs{}
		case ops.LeakyRelu:
			attrs = ops.LeakyReluAttrs{NegativeSlope: 0.1}
		case ops.Elu:
			attrs = ops.EluAttrs{Alpha: 1.5}
		case ops.Softplus:
			attrs = ops.SoftplusAttrs{Beta: 2, Threshold: 1}
		case ops.NanToNum:
			attrs = ops.NanToNumAttrs{Nan: 1, PosInf: 2, HasPosInf: true}
		}
		t = append(t, opCase{op: op, in: []tensor.Meta{m(f32, 4, 5)}, attrs: attrs},
			opCase{op: op, in: []tensor.Meta{m(f64, 7)}, attrs: attrs})
	}
	for _, op := range ops.Special {
		t = append(t, opCase{op: op, in: []tensor.Meta{m(f32, 4, 5)}},
			opCase{op: op, in: []tensor.Meta{m(f64, 7)}},
			opCase{op: op, in: []tensor.Meta{m(i64, 6)}, positive: true},
			opCase{op: op, in: []tensor.Meta{m(tensor.BFloat16, 5)}, positive: true},
			opCase{op: op, in: []tensor.Meta{m(tensor.Float16, 5)}, positive: true})
	}
	for n := range 4 {
		t = append(t, opCase{op: ops.Polygamma, in: []tensor.Meta{m(f32, 3, 4)}, attrs: ops.PolygammaAttrs{N: n}},
			opCase{op: ops.Polygamma, in: []tensor.Meta{m(f64, 6)}, attrs: ops.PolygammaAttrs{N: n}, positive: true},
			opCase{op: ops.Polygamma, in: []tensor.Meta{m(tensor.Float16, 6)}, attrs: ops.PolygammaAttrs{N: n}, positive: true})
	}
	// zeta, gammainc and gammaincc: broadcasting, a number on either side
	// (sc), promotions, halves; TestSpecialBinaryDomains covers their
	// domains and edges.
	sc := func(v float64, dt tensor.DType, left bool) ops.ScalarOperand {
		return ops.ScalarOperand{Value: ops.FloatScalar(v, dt), Left: left}
	}
	for _, op := range ops.SpecialBinary {
		t = append(t, opCase{op: op, in: []tensor.Meta{m(f32, 3, 4), m(f32, 4)}, positive: true},
			opCase{op: op, in: []tensor.Meta{m(f64, 2, 1, 3), m(f64, 4, 1)}, positive: true},
			opCase{op: op, in: []tensor.Meta{m(f64, 5), m(f32)}, positive: true},
			opCase{op: op, in: []tensor.Meta{m(i64, 4), m(f32, 4)}, positive: true},
			opCase{op: op, in: []tensor.Meta{m(tensor.Float16, 6), m(tensor.Float16, 6)}, positive: true},
			opCase{op: op, in: []tensor.Meta{m(tensor.BFloat16, 2, 3), m(f32)}, positive: true},
			opCase{op: op, in: []tensor.Meta{m(f32, 3, 4)}, attrs: sc(2.5, f32, true), positive: true},
			opCase{op: op, in: []tensor.Meta{m(f64, 5)}, attrs: sc(1.5, f32, false), positive: true},
			opCase{op: op, in: []tensor.Meta{m(tensor.Float16, 5)}, attrs: sc(3, f64, true), positive: true})
	}
	t = append(t, opCase{op: ops.Zeta, in: []tensor.Meta{m(i64, 2, 3), m(i64, 3)}, positive: true},
		opCase{op: ops.Zeta, in: []tensor.Meta{m(i64, 5)}, attrs: ops.ScalarOperand{Value: ops.IntScalar(3), Left: true}, positive: true},
		opCase{op: ops.Zeta, in: []tensor.Meta{m(i64, 4)}, attrs: sc(2, f32, false), positive: true})
	// The decompositions of random matrices (distinct eigenvalues and
	// singular values; the signs both backends normalise), tall, wide,
	// square, batched and empty.
	for _, complete := range []bool{false, true} {
		a := ops.QRAttrs{Complete: complete}
		t = append(t, opCase{op: ops.QR, in: []tensor.Meta{m(f32, 5, 3)}, attrs: a},
			opCase{op: ops.QR, in: []tensor.Meta{m(f64, 2, 3, 4)}, attrs: a},
			opCase{op: ops.QR, in: []tensor.Meta{m(f32, 0, 2)}, attrs: a})
	}
	// Full U and Vh complete the singular vectors to a basis, unique (up
	// to the normalised sign) only where one vector is missing.
	for _, full := range []bool{false, true} {
		a := ops.SVDAttrs{Full: full}
		t = append(t, opCase{op: ops.SVD, in: []tensor.Meta{m(f32, 4, 3)}, attrs: a},
			opCase{op: ops.SVD, in: []tensor.Meta{m(f64, 2, 3, 4)}, attrs: a},
			opCase{op: ops.SVD, in: []tensor.Meta{m(f64, 4, 4)}, attrs: a},
			opCase{op: ops.SVD, in: []tensor.Meta{m(f32, 1, 0)}, attrs: a})
	}
	// matrix_exp: random entries reach 1-norms past 5.4, so the Padé 13
	// branch with squarings runs as well as the low degrees.
	t = append(t, opCase{op: ops.MatrixExp, in: []tensor.Meta{m(f32, 4, 4)}},
		opCase{op: ops.MatrixExp, in: []tensor.Meta{m(f64, 3, 6, 6)}},
		opCase{op: ops.MatrixExp, in: []tensor.Meta{m(f64, 1, 1)}},
		opCase{op: ops.MatrixExp, in: []tensor.Meta{m(tensor.BFloat16, 2, 2)}},
		opCase{op: ops.MatrixExp, in: []tensor.Meta{m(f32, 0, 0)}})
	for _, h := range []bool{false, true} {
		a := ops.PinvAttrs{Rtol: 1e-6, Hermitian: h}
		t = append(t, opCase{op: ops.Pinv, in: []tensor.Meta{m(f32, 4, 4)}, attrs: a},
			opCase{op: ops.Pinv, in: []tensor.Meta{m(f64, 2, 3, 3)}, attrs: ops.PinvAttrs{Atol: 0.5, Hermitian: h}})
	}
	t = append(t, opCase{op: ops.Pinv, in: []tensor.Meta{m(f64, 2, 5, 3)}, attrs: ops.PinvAttrs{Rtol: 1e-12}},
		opCase{op: ops.Pinv, in: []tensor.Meta{m(f32, 3, 6)}, attrs: ops.PinvAttrs{Rtol: 1e-6}})
	// solve_triangular: random triangles (the other triangle holds
	// values neither reads), every side of the flags.
	for _, upper := range []bool{false, true} {
		for _, unit := range []bool{false, true} {
			a := ops.TriangularAttrs{Upper: upper, Unit: unit}
			t = append(t, opCase{op: ops.TriangularSolve, in: []tensor.Meta{m(f32, 4, 4), m(f32, 4, 3)}, attrs: a},
				opCase{op: ops.TriangularSolve, in: []tensor.Meta{m(f64, 2, 3, 3), m(f64, 2, 3, 2)}, attrs: a})
		}
	}
	// lu: random matrices pivot on distinct entries, so both backends
	// pick the same rows; a zero column gives a zero pivot, which only
	// Check refuses.
	for _, check := range []bool{false, true} {
		a := ops.LUAttrs{Check: check}
		t = append(t, opCase{op: ops.LU, in: []tensor.Meta{m(f32, 4, 4)}, attrs: a},
			opCase{op: ops.LU, in: []tensor.Meta{m(f64, 2, 3, 5)}, attrs: a},
			opCase{op: ops.LU, in: []tensor.Meta{m(f64, 6, 2)}, attrs: a},
			opCase{op: ops.LU, in: []tensor.Meta{m(f32, 0, 3)}, attrs: a})
	}
	for _, upper := range []bool{false, true} {
		a := ops.EighAttrs{Upper: upper}
		t = append(t, opCase{op: ops.Eigh, in: []tensor.Meta{m(f32, 4, 4)}, attrs: a},
			opCase{op: ops.Eigh, in: []tensor.Meta{m(f64, 3, 5, 5)}, attrs: a},
			opCase{op: ops.Eigh, in: []tensor.Meta{m(tensor.BFloat16, 3, 3)}, attrs: a})
	}
	for _, op := range []ops.Op{ops.Cumsum, ops.Cumprod} {
		t = append(t, opCase{op: op, in: []tensor.Meta{m(f32, 3, 4, 5)}, attrs: ops.ScanAttrs{Dim: 1}},
			opCase{op: op, in: []tensor.Meta{m(i64, 6)}, attrs: ops.ScanAttrs{Dim: -1}})
	}
	// A float cumsum whose elements all lie along dim is scanned in rows
	// by the plugin (scan_blocked): one row beside zeros, rows padded,
	// rows of rows. (TestLongCumprod has cumprod's.)
	t = append(t, opCase{op: ops.Cumsum, in: []tensor.Meta{m(f32, 1, 700)}, attrs: ops.ScanAttrs{Dim: -1}, positive: true},
		opCase{op: ops.Cumsum, in: []tensor.Meta{m(f64, 3000, 1)}, attrs: ops.ScanAttrs{Dim: 0}},
		opCase{op: ops.Cumsum, in: []tensor.Meta{m(f32, 1100*1024+37)}, attrs: ops.ScanAttrs{Dim: 0}, positive: true})
	t = append(t, opCase{op: ops.Logcumsumexp, in: []tensor.Meta{m(f32, 3, 4, 5)}, attrs: ops.ScanAttrs{Dim: 1}},
		opCase{op: ops.Logcumsumexp, in: []tensor.Meta{m(f64, 9)}, attrs: ops.ScanAttrs{Dim: 0}},
		opCase{op: ops.Logcumsumexp, in: []tensor.Meta{m(f32, 2, 3000)}, attrs: ops.ScanAttrs{Dim: -1}},
		opCase{op: ops.Logcumsumexp, in: []tensor.Meta{m(tensor.BFloat16, 3, 4)}, attrs: ops.ScanAttrs{Dim: 1}})
	for _, op := range []ops.Op{ops.CummaxIndices, ops.CumminIndices} {
		t = append(t, opCase{op: op, in: []tensor.Meta{m(f32, 3, 4, 5)}, attrs: ops.ScanAttrs{Dim: 1}},
			opCase{op: op, in: []tensor.Meta{m(f64, 9)}, attrs: ops.ScanAttrs{Dim: 0}},
			opCase{op: op, in: []tensor.Meta{m(i64, 4, 6)}, attrs: ops.ScanAttrs{Dim: -1}},
			opCase{op: op, in: []tensor.Meta{m(bl, 2, 7)}, attrs: ops.ScanAttrs{Dim: 1}})
	}
	// searchsorted over random (unsorted) rows: both backends run torch's
	// binary search, so they agree on any row.
	for _, right := range []bool{false, true} {
		a := ops.SearchsortedAttrs{Right: right}
		t = append(t, opCase{op: ops.Searchsorted, in: []tensor.Meta{m(f32, 7), m(f32, 3, 4)}, attrs: a},
			opCase{op: ops.Searchsorted, in: []tensor.Meta{m(f64, 2, 5), m(f64, 2, 3)}, attrs: a},
			opCase{op: ops.Searchsorted, in: []tensor.Meta{m(i64, 6), m(i64, 9)}, attrs: a})
	}
	for _, a := range []ops.SortAttrs{{Dim: -1}, {Dim: 0, Descending: true}} {
		t = append(t, opCase{op: ops.Argsort, in: []tensor.Meta{m(f32, 4, 7)}, attrs: a},
			opCase{op: ops.Argsort, in: []tensor.Meta{m(f64, 9)}, attrs: a})
	}
	for _, a := range []ops.VectorNormAttrs{{P: 2}, {P: 1, Dims: []int{1}}, {P: 3, Dims: []int{0, 2}, Keepdim: true}, {P: math.Inf(1), Dims: []int{-1}}} {
		t = append(t, opCase{op: ops.Norm, in: []tensor.Meta{m(f32, 3, 4, 5)}, attrs: a})
	}
	for _, a := range []ops.TriluAttrs{{}, {Diagonal: 1, Upper: true}, {Diagonal: -2}} {
		t = append(t, opCase{op: ops.Trilu, in: []tensor.Meta{m(f32, 2, 4, 5)}, attrs: a})
	}
	t = append(t, opCase{op: ops.Logsumexp, in: []tensor.Meta{m(f32, 3, 4, 5)}, attrs: ops.ReduceAttrs{}},
		opCase{op: ops.Logsumexp, in: []tensor.Meta{m(f64, 3, 4, 5)}, attrs: ops.ReduceAttrs{Dims: []int{-1, 0}, Keepdim: true}})
	return append(t,
		opCase{op: ops.Round, in: []tensor.Meta{m(f32, 9)}, attrs: ops.RoundAttrs{Decimals: 2}},
		opCase{op: ops.Sign, in: []tensor.Meta{m(i64, 6)}},
		opCase{op: ops.Floor, in: []tensor.Meta{m(i64, 6)}},
		opCase{op: ops.Erf, in: []tensor.Meta{m(i64, 6)}},
		opCase{op: ops.Atan, in: []tensor.Meta{m(i64, 6)}},
		opCase{op: ops.Reciprocal, in: []tensor.Meta{m(i64, 6)}},
		opCase{op: ops.BitwiseAnd, in: []tensor.Meta{m(i64, 3, 4), m(i64, 4)}},
		opCase{op: ops.BitwiseOr, in: []tensor.Meta{m(i64, 5), m(i64, 5)}},
		opCase{op: ops.BitwiseXor, in: []tensor.Meta{m(i64, 2, 3), m(i64, 2, 1)}},
		opCase{op: ops.BitwiseNot, in: []tensor.Meta{m(i64, 7)}},
		// shift counts from -4 to 4: the negative ones take torch 2's
		// definition in the plugin too
		opCase{op: ops.Gcd, in: []tensor.Meta{m(i64, 3, 4), m(i64, 4)}},
		opCase{op: ops.Lcm, in: []tensor.Meta{m(i64, 5), m(i64, 5)}},
		opCase{op: ops.BitwiseLeftShift, in: []tensor.Meta{m(i64, 2, 3), m(i64, 2, 1)}},
		opCase{op: ops.BitwiseRightShift, in: []tensor.Meta{m(i64, 6), m(i64)}},
	)
}
