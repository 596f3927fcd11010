package cpu

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// TestScanArgsortParallel runs cumsum and argsort over tensors above
// parallelMin, split by outer (dim 1) and by inner (dim 0), against a
// plain loop over each line.
func TestScanArgsortParallel(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	x := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{8, 40000}, DType: tensor.Int64})
	for i := range x.I64() {
		x.I64()[i] = int64(r.IntN(1000)) - 500
	}
	for _, dim := range []int{0, 1} {
		p := axisPlan(x.Shape, dim)
		sum := run1(t, ops.Cumsum, x.Meta, ops.ScanAttrs{Dim: dim}, x)
		idx := run1(t, ops.Argsort, x.Meta, ops.SortAttrs{Dim: dim, Descending: true}, x)
		for o := range p.outer {
			for j := range p.inner {
				at := func(k int) int { return (o*p.r+k)*p.inner + j }
				acc := int64(0)
				line := make([]int64, p.r)
				for k := range p.r {
					acc += x.I64()[at(k)]
					if got := sum.I64()[at(k)]; got != acc {
						t.Fatalf("cumsum dim %d: element %d is %d, want %d", dim, at(k), got, acc)
					}
					line[k] = x.I64()[at(k)]
				}
				want := make([]int64, p.r)
				for k := range want {
					want[k] = int64(k)
				}
				slices.SortStableFunc(want, func(a, b int64) int { return int(line[b] - line[a]) })
				for k, w := range want {
					if got := idx.I64()[at(k)]; got != w {
						t.Fatalf("argsort dim %d line (%d, %d): position %d is %d, want %d", dim, o, j, k, got, w)
					}
				}
			}
		}
	}
}
