package cpu

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Helpers shared by the matmul, linear, conv2d and attention kernels.

// matF32 returns d's elements as float32: d's own buffer when it is
// float32, else a converted copy.
func matF32(d *tensor.Dense) []float32 {
	if d.DType == tensor.Float32 {
		return d.F32()
	}
	out := make([]float32, d.Numel())
	for i := range out {
		out[i] = float32(d.At(i))
	}
	return out
}

// matF64 returns d's elements as float64 (d's buffer or a converted copy).
func matF64(d *tensor.Dense) []float64 {
	if d.DType == tensor.Float64 {
		return d.F64()
	}
	out := make([]float64, d.Numel())
	for i := range out {
		out[i] = d.At(i)
	}
	return out
}

// matI64 returns d's elements as int64 (d's buffer or a converted copy).
func matI64(d *tensor.Dense) []int64 {
	switch d.DType {
	case tensor.Int64:
		return d.I64()
	case tensor.Uint8, tensor.Bool:
		out := make([]int64, d.Numel())
		for i, v := range d.U8() {
			out[i] = int64(v)
		}
		return out
	}
	out := make([]int64, d.Numel())
	for i := range out {
		out[i] = int64(d.At(i))
	}
	return out
}

// linalgCompute runs a kernel in the dtype it computes in: float32 for
// float32, float16 and bfloat16 results; float64; int64 for int64 and uint8
// results (uint8 wraps like PyTorch's). f32, f64 and i64 receive the
// inputs converted and the result buffer to fill.
func linalgCompute(out *tensor.Dense, ins []*tensor.Dense,
	f32 func(in [][]float32, c []float32),
	f64 func(in [][]float64, c []float64),
	i64 func(in [][]int64, c []int64),
) {
	switch out.DType {
	case tensor.Float32, tensor.Float16, tensor.BFloat16:
		in := make([][]float32, len(ins))
		for i, d := range ins {
			in[i] = matF32(d)
		}
		if out.DType == tensor.Float32 {
			f32(in, out.F32())
			return
		}
		c := make([]float32, out.Numel())
		f32(in, c)
		for i, v := range c {
			out.Set(i, float64(v))
		}
	case tensor.Float64:
		in := make([][]float64, len(ins))
		for i, d := range ins {
			in[i] = matF64(d)
		}
		f64(in, out.F64())
	default:
		in := make([][]int64, len(ins))
		for i, d := range ins {
			in[i] = matI64(d)
		}
		if out.DType == tensor.Int64 {
			i64(in, out.I64())
			return
		}
		c := make([]int64, out.Numel())
		i64(in, c)
		for i, v := range c {
			out.Buf[i] = uint8(v)
		}
	}
}

// mmFunc is one matrix product C (+)= op(A)·op(B) on a given number of
// goroutines, the common signature of gemm.SgemmWorkers and gemm.GemmWorkers.
type mmFunc[T any] func(workers int, transA, transB bool, m, n, k int, a []T, lda int, b []T, ldb int, accumulate bool, c []T, ldc int)

// sgemmMM is gemm.SgemmWorkers as an mmFunc, on at most workers goroutines
// (one for a product too small to split: gemm.Workers).
func sgemmMM(workers int, transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, accumulate bool, c []float32, ldc int) {
	var beta float32
	if accumulate {
		beta = 1
	}
	gemm.SgemmWorkers(gemm.Workers(workers, m, n, k), transA, transB, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
}

// batchOffsets gives, for each index of the broadcast batch shape, the
// element offset of the operand's matrix: sub is the operand's batch shape
// padded to batch's rank, size its matrix size; dimensions of size 1 in sub
// repeat the same matrix.
func batchOffsets(batch, sub tensor.Shape, size int) []int {
	n := batch.Numel()
	offs := make([]int, n)
	strides := sub.Strides()
	idx := make([]int, len(batch))
	for t := range n {
		off := 0
		for i, x := range idx {
			if sub[i] != 1 {
				off += x * strides[i]
			}
		}
		offs[t] = off * size
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < batch[i] {
				break
			}
			idx[i] = 0
		}
	}
	return offs
}

// linalgWorkers is the number of goroutines the kernels here use.
func linalgWorkers() int { return runtime.GOMAXPROCS(0) }

// forTasks runs task(t, scratch) for every t in [0, n) on up to workers
// goroutines that claim tasks in order (so a core slowed by other load
// takes fewer); each goroutine gets its own scratch from newScratch.
func forTasks[S any](workers, n int, newScratch func() S, task func(t int, scratch S)) {
	var next atomic.Int64
	run := func() {
		s := newScratch()
		for {
			t := int(next.Add(1) - 1)
			if t >= n {
				return
			}
			task(t, s)
		}
	}
	workers = min(workers, n)
	if workers <= 1 {
		run()
		return
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(run)
	}
	run()
	wg.Wait()
}

// broadcastRows fills dst (shape dshape, contiguous) with src broadcast
// from sshape, which must broadcast to dshape.
func broadcastRows[T any](dst []T, dshape tensor.Shape, src []T, sshape tensor.Shape) {
	if len(dst) == 0 {
		return
	}
	rank := len(dshape)
	ss := ops.PadOnes(sshape, rank)
	strides := ss.Strides()
	for i := range ss {
		if ss[i] == 1 {
			strides[i] = 0
		}
	}
	inner := 1
	if rank > 0 {
		inner = dshape[rank-1]
	}
	idx := make([]int, rank)
	for off := 0; off < len(dst); off += inner {
		base := 0
		for i := 0; i < rank-1; i++ {
			base += idx[i] * strides[i]
		}
		row := dst[off : off+inner]
		if rank == 0 || strides[rank-1] == 0 {
			fill(row, src[base])
		} else {
			copy(row, src[base:base+inner])
		}
		for i := rank - 2; i >= 0; i-- {
			idx[i]++
			if idx[i] < dshape[i] {
				break
			}
			idx[i] = 0
		}
	}
}
