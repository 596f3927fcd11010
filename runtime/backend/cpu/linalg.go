package cpu

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	Register(ops.Matmul, matmulKernel)
	weightKernels[ops.Matmul] = matmulPacked
	Register(ops.Linear, linearKernel)
	weightKernels[ops.Linear] = linearPacked
	Register(ops.Outer, outerKernel)
	Register(ops.MatmulTN, matmulTNKernel)
}

func matmulKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	if len(ins) != 2 {
		return fmt.Errorf("matmul takes 2 tensors, got %d", len(ins))
	}
	d, err := ops.MatmulLayout(ins[0].Shape, ins[1].Shape)
	if err != nil {
		return err
	}
	linalgCompute(out, ins,
		func(in [][]float32, c []float32) { matmulBatched(d, in[0], in[1], c, sgemmMM) },
		func(in [][]float64, c []float64) { matmulBatched(d, in[0], in[1], c, gemm.GemmWorkers[float64]) },
		func(in [][]int64, c []int64) { matmulBatched(d, in[0], in[1], c, gemm.GemmWorkers[int64]) },
	)
	return nil
}

// matmulPacked is matmul by a constant matrix (w) shared by the
// whole batch ([..., m, k] @ [k, n]): in float32 the batch's rows
// multiply B packed from the cache (packCache.getB).
func matmulPacked(out *tensor.Dense, ins []*tensor.Dense, _ any, w weight) (bool, error) {
	if len(ins) != 2 || out.DType != tensor.Float32 || ins[0].DType != tensor.Float32 || ins[1].DType != tensor.Float32 || len(ins[1].Shape) != 2 {
		return false, nil
	}
	d, err := ops.MatmulLayout(ins[0].Shape, ins[1].Shape)
	if err != nil {
		return false, nil // the kernel reports it
	}
	rows := d.BatchCount() * d.M
	if d.BBatch.Numel() != 1 || rows == 0 || d.N == 0 {
		return false, nil
	}
	pb := w.packs.getB(w.id, matmulPart, d.K, d.N, ins[1].F32())
	if pb == nil {
		return false, nil
	}
	gemm.SgemmPackedB(gemm.Workers(linalgWorkers(), rows, d.N, d.K), false, rows, ins[0].F32(), d.K, pb, 0, out.F32(), d.N)
	return true, nil
}

// batchParallelWork is the size of one product (m·n·k) below which a
// batch of products is split among goroutines one product each, rather
// than each product among goroutines.
const batchParallelWork = 128 * 128 * 128

// tinyWork is the size of one product (m·n·k) up to which a plain triple
// loop beats packing for the GEMM; tinyTask is the work per goroutine task
// when a batch of such products is split.
const (
	tinyWork = 8 * 8 * 8
	tinyTask = 1 << 16
)

// matmulBatched computes every product of a (broadcast) batch.
func matmulBatched[T float32 | float64 | int64](d ops.MatmulDims, a, b, c []T, mm mmFunc[T]) {
	nb := d.BatchCount()
	m, n, k := d.M, d.N, d.K
	if nb == 0 || m == 0 || n == 0 {
		return
	}
	workers := linalgWorkers()
	if d.BBatch.Numel() == 1 {
		// One B for every batch ([..., m, k] @ [k, n]): the batch folds
		// into the rows of a single product.
		mm(workers, false, false, nb*m, n, k, a, k, b, n, false, c, n)
		return
	}
	aOff := batchOffsets(d.Batch, d.ABatch, m*k)
	bOff := batchOffsets(d.Batch, d.BBatch, k*n)
	if m*n*k <= tinyWork {
		per := max(1, tinyTask/max(1, m*n*k))
		forTasks(workers, (nb+per-1)/per, func() struct{} { return struct{}{} }, func(t int, _ struct{}) {
			for i := t * per; i < min(nb, (t+1)*per); i++ {
				tinyMM(m, n, k, a[aOff[i]:], b[bOff[i]:], c[i*m*n:])
			}
		})
		return
	}
	one := func(t, w int) {
		mm(w, false, false, m, n, k, a[aOff[t]:], k, b[bOff[t]:], n, false, c[t*m*n:], n)
	}
	if workers > 1 && m*n*k < batchParallelWork {
		forTasks(workers, nb, func() struct{} { return struct{}{} }, func(t int, _ struct{}) { one(t, 1) })
		return
	}
	for t := range nb {
		one(t, workers)
	}
}

// tinyMM is C = A·B for small contiguous matrices, with no packing.
func tinyMM[T float32 | float64 | int64](m, n, k int, a, b, c []T) {
	for i := range m {
		crow := c[i*n : (i+1)*n]
		clear(crow)
		for p, av := range a[i*k : (i+1)*k] {
			for j, bv := range b[p*n : (p+1)*n] {
				crow[j] += av * bv
			}
		}
	}
}

func linearKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	if len(ins) != 2 && len(ins) != 3 {
		return fmt.Errorf("linear takes x, w and an optional bias, got %d tensors", len(ins))
	}
	var bias *tensor.Shape
	if len(ins) == 3 {
		bias = &ins[2].Shape
	}
	d, err := ops.LinearLayout(ins[0].Shape, ins[1].Shape, bias)
	if err != nil {
		return err
	}
	linalgCompute(out, ins,
		func(in [][]float32, c []float32) { linearRows(d, ins, in, c, out.Shape, linearMM) },
		func(in [][]float64, c []float64) { linearRows(d, ins, in, c, out.Shape, gemm.GemmWorkers[float64]) },
		func(in [][]int64, c []int64) { linearRows(d, ins, in, c, out.Shape, gemm.GemmWorkers[int64]) },
	)
	return nil
}

// linearPacked is linear with a constant weight (w): in
// float32 with a matrix weight, Wᵀ is multiplied packed from the cache
// (packCache.getB) rather than packed on every call.
func linearPacked(out *tensor.Dense, ins []*tensor.Dense, _ any, w weight) (bool, error) {
	f32 := out.DType == tensor.Float32
	for _, in := range ins {
		f32 = f32 && in.DType == tensor.Float32
	}
	if !f32 || len(ins) < 2 || len(ins) > 3 || len(ins[1].Shape) != 2 {
		return false, nil
	}
	var bias *tensor.Shape
	if len(ins) == 3 {
		bias = &ins[2].Shape
	}
	d, err := ops.LinearLayout(ins[0].Shape, ins[1].Shape, bias)
	if err != nil {
		return false, nil // the kernel reports it
	}
	if linearDots(linalgWorkers(), d.Rows, d.Out, d.In, true, d.In) {
		return false, nil
	}
	pb := w.packs.getB(w.id, linearPart, d.In, d.Out, ins[1].F32())
	if pb == nil {
		return false, nil
	}
	c := out.F32()
	var beta float32
	if len(ins) == 3 {
		broadcastRows(c, out.Shape, ins[2].F32(), ins[2].Shape)
		beta = 1
	}
	gemm.SgemmPackedB(gemm.Workers(linalgWorkers(), d.Rows, d.Out, d.In), false, d.Rows, ins[0].F32(), d.In, pb, beta, c, d.Out)
	return true, nil
}

// linearRows computes C[rows, out] = X[rows, in]·Wᵀ (+ bias), reading W in
// its [out, in] layout as a transposed operand, with no copy. ins are the
// operands as given (for their shapes), in their values in the compute type.
func linearRows[T any](d ops.LinearDims, ins []*tensor.Dense, in [][]T, c []T, shape tensor.Shape, mm mmFunc[T]) {
	accumulate := false
	if len(in) == 3 {
		broadcastRows(c, shape, in[2], ins[2].Shape)
		accumulate = true
	}
	if len(ins[1].Shape) == 1 {
		mm(linalgWorkers(), false, false, d.Rows, 1, d.In, in[0], d.In, in[1], 1, accumulate, c, 1)
		return
	}
	mm(linalgWorkers(), false, true, d.Rows, d.Out, d.In, in[0], d.In, in[1], d.In, accumulate, c, d.Out)
}

// matmulTNKernel is aᵀ·b for a [k, m] and b [k, n]: the GEMM reads a
// transposed, packing it as it does a plain operand.
func matmulTNKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	if len(ins) != 2 || len(ins[0].Shape) != 2 || len(ins[1].Shape) != 2 || ins[0].Shape[0] != ins[1].Shape[0] {
		return fmt.Errorf("matmul_tn takes matrices [k, m] and [k, n]")
	}
	k, m, n := ins[0].Shape[0], ins[0].Shape[1], ins[1].Shape[1]
	linalgCompute(out, ins,
		func(in [][]float32, c []float32) { productTN(m, n, k, in, c, sgemmMM) },
		func(in [][]float64, c []float64) { productTN(m, n, k, in, c, gemm.GemmWorkers[float64]) },
		func(in [][]int64, c []int64) { productTN(m, n, k, in, c, gemm.GemmWorkers[int64]) },
	)
	return nil
}

// productTN is C[m, n] = in[0]ᵀ·in[1] with in[0] stored [k, m].
func productTN[T any](m, n, k int, in [][]T, c []T, mm mmFunc[T]) {
	mm(linalgWorkers(), true, false, m, n, k, in[0], m, in[1], n, false, c, n)
}

func outerKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	if len(ins) != 2 || len(ins[0].Shape) != 1 || len(ins[1].Shape) != 1 {
		return fmt.Errorf("outer takes two 1-d tensors")
	}
	switch out.DType {
	case tensor.Float32:
		outerOf(matF32(ins[0]), matF32(ins[1]), out.F32())
	case tensor.Float64:
		outerOf(matF64(ins[0]), matF64(ins[1]), out.F64())
	case tensor.Int64:
		outerOf(matI64(ins[0]), matI64(ins[1]), out.I64())
	default:
		a, b := ins[0], ins[1]
		n := b.Numel()
		for i := range a.Numel() {
			for j := range n {
				out.Set(i*n+j, a.At(i)*b.At(j))
			}
		}
	}
	return nil
}

func outerOf[T float32 | float64 | int64](a, b, c []T) {
	for i, av := range a {
		row := c[i*len(b) : (i+1)*len(b)]
		for j, bv := range b {
			row[j] = av * bv
		}
	}
}
