package autograd_test

import (
	"math"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// gatherOrderCases are the gradient checks of the gather family and the
// scans, logsumexp and norm (runtime/ops/gather_grad.go, order_grad.go).
func gatherOrderCases() []gcase {
	// distinct positions along dim 1 per row, so scatter writes no
	// element twice
	perm := dense(tensor.Int64, []int{3, 2}, func(i int) float64 { return []float64{3, 0, 1, 2, 0, 3}[i] })
	longZeros := dense(tensor.Float64, []int{2, 13}, func(i int) float64 {
		if j := i % 13; j == 2 || j == 6 || j == 7 {
			return 0
		}
		return 0.5 + gen.Float64()
	})
	// scatter_reduce prod's zeros: x's and src's at position 0, two of
	// src's at 1, one of src's at 2, x's alone at 3.
	prodZerosX := dense(tensor.Float64, []int{4}, func(i int) float64 { return []float64{0, 2, 0.5, 0}[i] })
	prodZerosIdx := dense(tensor.Int64, []int{8}, func(i int) float64 { return float64(i / 2) })
	prodZerosSrc := dense(tensor.Float64, []int{8}, func(i int) float64 { return []float64{1.5, 0, 0, 0, 0, 0.7, 2, 3}[i] })
	withZeros := dense(tensor.Float64, []int{2, 5}, func(i int) float64 { return []float64{1.5, 0, -2, 0.5, 3, 0, 0, 2, -1, 0.7}[i] })
	return []gcase{
		{op: "gather", attrs: ops.DimAttrs{Dim: 1}, ins: []*tensor.Dense{randn(3, 4), ints(4, 3, 6)}},
		{name: "gather_d0", op: "gather", attrs: ops.DimAttrs{Dim: 0}, ins: []*tensor.Dense{randn(3, 4), ints(3, 2, 3)}},
		{op: "scatter", attrs: ops.DimAttrs{Dim: 1}, ins: []*tensor.Dense{randn(3, 4), perm, randn(3, 2)}},
		{name: "scatter_big_src", op: "scatter", attrs: ops.DimAttrs{Dim: -1}, ins: []*tensor.Dense{randn(3, 4), perm, randn(4, 3)}},
		{op: "scatter_add", attrs: ops.DimAttrs{Dim: 1}, ins: []*tensor.Dense{randn(3, 4), ints(4, 3, 5), randn(3, 5)}},
		{op: "scatter_reduce", attrs: ops.ScatterReduceAttrs{Dim: 1, Reduce: "sum", IncludeSelf: true}, ins: []*tensor.Dense{randn(3, 4), ints(4, 3, 5), randn(3, 6)}},
		{name: "scatter_reduce_mean", op: "scatter_reduce", attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "mean", IncludeSelf: true}, ins: []*tensor.Dense{randn(3, 4), ints(3, 5, 4), randn(5, 4)}},
		// random values: no ties between x's elements and src's
		{name: "scatter_reduce_amax", op: "scatter_reduce", attrs: ops.ScatterReduceAttrs{Dim: 1, Reduce: "amax", IncludeSelf: true}, ins: []*tensor.Dense{randn(3, 4), ints(4, 3, 5), randn(3, 5)}},
		{name: "scatter_reduce_amin", op: "scatter_reduce", attrs: ops.ScatterReduceAttrs{Dim: 1, Reduce: "amin", IncludeSelf: true}, ins: []*tensor.Dense{randn(3, 4), ints(4, 3, 5), randn(3, 5)}},
		// include_self=false: the replaced elements of x get no cotangent;
		// ints(4, ...) leaves some of x's 4 columns (rows) unreached.
		{name: "scatter_reduce_sum_replace", op: "scatter_reduce", attrs: ops.ScatterReduceAttrs{Dim: 1, Reduce: "sum"}, ins: []*tensor.Dense{randn(3, 6), ints(4, 3, 5), randn(3, 6)}},
		{name: "scatter_reduce_mean_replace", op: "scatter_reduce", attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "mean"}, ins: []*tensor.Dense{randn(6, 4), ints(4, 5, 4), randn(5, 4)}},
		{name: "scatter_reduce_amax_replace", op: "scatter_reduce", attrs: ops.ScatterReduceAttrs{Dim: 1, Reduce: "amax"}, ins: []*tensor.Dense{randn(3, 6), ints(4, 3, 5), randn(3, 5)}},
		{name: "scatter_reduce_prod", op: "scatter_reduce", attrs: ops.ScatterReduceAttrs{Dim: 1, Reduce: "prod", IncludeSelf: true}, ins: []*tensor.Dense{randn(3, 4), ints(4, 3, 5), randn(3, 5)}},
		{name: "scatter_reduce_prod_replace", op: "scatter_reduce", attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "prod"}, ins: []*tensor.Dense{randn(6, 4), ints(4, 5, 4), randn(5, 4)}},
		{name: "scatter_reduce_prod_zeros", op: "scatter_reduce", attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "prod", IncludeSelf: true}, ins: []*tensor.Dense{prodZerosX, prodZerosIdx, prodZerosSrc}},
		{name: "scatter_reduce_amin_replace", op: "scatter_reduce", attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "amin"}, ins: []*tensor.Dense{randn(6, 4), ints(4, 5, 4), randn(5, 4)}},
		{op: "index_select", attrs: ops.DimAttrs{Dim: 1}, ins: []*tensor.Dense{randn(2, 4, 3), ints(4, 6)}},
		{name: "index_select_0d", op: "index_select", attrs: ops.DimAttrs{Dim: 0}, ins: []*tensor.Dense{randn(4, 2), ints(4)}},
		{op: "solve", ins: []*tensor.Dense{randn(3, 3), randn(3, 2)}},
		{name: "solve_batch", op: "solve", ins: []*tensor.Dense{randn(2, 4, 4), randn(2, 4, 1)}},
		{op: "det", ins: []*tensor.Dense{randn(3, 3)}},
		{name: "det_batch", op: "det", ins: []*tensor.Dense{randn(2, 1, 4, 4)}},
		{op: "trilu", attrs: ops.TriluAttrs{Diagonal: 1}, ins: []*tensor.Dense{randn(2, 3, 4)}},
		{name: "triu", op: "trilu", attrs: ops.TriluAttrs{Diagonal: -1, Upper: true}, ins: []*tensor.Dense{randn(4, 3)}},
		{op: "cumsum", attrs: ops.ScanAttrs{Dim: 1}, ins: []*tensor.Dense{randn(2, 4, 3)}},
		{op: "cumprod", attrs: ops.ScanAttrs{Dim: -1}, ins: []*tensor.Dense{randn(3, 4)}},
		{name: "cumprod_zeros", op: "cumprod", attrs: ops.ScanAttrs{Dim: 1}, ins: []*tensor.Dense{withZeros}},
		{name: "cumprod_d0", op: "cumprod", attrs: ops.ScanAttrs{Dim: 0}, ins: []*tensor.Dense{randn(4, 2, 2)}},
		// 13 places: four doubling steps; zeros at 2, 6 and 7; one place
		{name: "cumprod_long_zeros", op: "cumprod", attrs: ops.ScanAttrs{Dim: 1}, ins: []*tensor.Dense{longZeros}},
		{name: "cumprod_one", op: "cumprod", attrs: ops.ScanAttrs{Dim: 1}, ins: []*tensor.Dense{randn(3, 1)}},
		{op: "logsumexp", attrs: ops.ReduceAttrs{Dims: []int{1}}, ins: []*tensor.Dense{randn(3, 4)}},
		{name: "logsumexp_all_keep", op: "logsumexp", attrs: ops.ReduceAttrs{Keepdim: true}, ins: []*tensor.Dense{randn(2, 3)}},
		{op: "norm", attrs: ops.VectorNormAttrs{P: 2}, ins: []*tensor.Dense{randn(3, 4)}},
		{name: "norm_p1", op: "norm", attrs: ops.VectorNormAttrs{P: 1, Dims: []int{1}}, ins: []*tensor.Dense{randn(3, 4)}},
		{name: "norm_p3", op: "norm", attrs: ops.VectorNormAttrs{P: 3, Dims: []int{0}, Keepdim: true}, ins: []*tensor.Dense{randn(3, 4)}},
		{name: "norm_inf", op: "norm", attrs: ops.VectorNormAttrs{P: math.Inf(1), Dims: []int{-1}}, ins: []*tensor.Dense{randn(3, 4)}},
		{name: "norm_p0", op: "norm", attrs: ops.VectorNormAttrs{P: 0}, ins: []*tensor.Dense{randn(3, 4)}},
	}
}
