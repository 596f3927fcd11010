package cpu

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Kernels of the nn family's fused backward ops (runtime/ops/backward_nn.go).

func init() {
	Register(ops.SoftmaxBackward, softmaxBackwardKernel(false))
	Register(ops.LogSoftmaxBackward, softmaxBackwardKernel(true))
	Register(ops.AttentionWeights, viaFloat32Inputs(attentionWeightsKernel))
	Register(ops.NormBackward, normBackwardKernel)
	Register(ops.NormBackwardWeight, normBackwardWeightKernel)
}

// softmaxBackwardKernel is softmax's (or log_softmax's) gradient from its
// result o and the cotangent g, one pass per row over the dim; the row's
// sum is taken in float64, halves compute in float32.
func softmaxBackwardKernel(log bool) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		a, err := ops.AttrsAs[ops.SoftmaxAttrs]("softmax_backward", attrs)
		if err != nil {
			return err
		}
		outer, n, inner := 1, 1, 1
		if len(out.Shape) > 0 {
			dim, err := tensor.NormDim(a.Dim, len(out.Shape))
			if err != nil {
				return err
			}
			outer, n, inner = out.Shape[:dim].Numel(), out.Shape[dim], out.Shape[dim+1:].Numel()
		}
		o, y, finish := nnIO(ins[0], out)
		g := castDense(ins[1], y.DType)
		if y.DType == tensor.Float64 {
			softmaxBackRows(nnView[float64](y), nnView[float64](o), nnView[float64](g), outer, n, inner, log)
		} else {
			softmaxBackRows(nnView[float32](y), nnView[float32](o), nnView[float32](g), outer, n, inner, log)
		}
		finish()
		return nil
	}
}

// softmaxBackRows computes, over the middle dimension of [outer, n,
// inner] tensors, dst = o·(g - Σ g·o) (softmax) or g - exp(o)·Σ g
// (log_softmax).
func softmaxBackRows[T nnFloat](dst, o, g []T, outer, n, inner int, log bool) {
	if n == 0 || outer*inner == 0 {
		return
	}
	stridedParallel(outer, 4*n*inner, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			base := b * n * inner
			for j := range inner {
				var s float64
				for k := range n {
					i := base + k*inner + j
					if log {
						s += float64(g[i])
					} else {
						s += float64(g[i]) * float64(o[i])
					}
				}
				for k := range n {
					i := base + k*inner + j
					if log {
						dst[i] = T(float64(g[i]) - math.Exp(float64(o[i]))*s)
					} else {
						dst[i] = T(float64(o[i]) * (float64(g[i]) - s))
					}
				}
			}
		}
	})
}

// attentionWeightsKernel writes softmax(q·kᵀ·scale) (zero where causal
// masks) for every (broadcast) batch, as attention computes them.
func attentionWeightsKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	d, causal, scale, err := attentionArgs("attention_weights", ins, attrs)
	if err != nil {
		return err
	}
	switch out.DType {
	case tensor.Float32:
		weights(d, causal, float32(scale), matF32(ins[0]), matF32(ins[1]), out.F32(), sgemmMM, softmaxRowF32)
	case tensor.Float64:
		weights(d, causal, scale, matF64(ins[0]), matF64(ins[1]), out.F64(), gemm.GemmWorkers[float64], softmaxRowF64)
	default:
		return fmt.Errorf("attention_weights: no kernel for %s", out.DType)
	}
	return nil
}

// weights is attend without the values: each block of query rows gets its
// scores straight into out and becomes weights there.
func weights[T float32 | float64](d ops.AttentionDims, causal bool, scale T, q, k, out []T, mm mmFunc[T], softmax func(row []T) T) {
	L, S, E := d.L, d.S, d.E
	if d.Batch.Numel() == 0 || L == 0 || S == 0 {
		return
	}
	qOff := batchOffsets(d.Batch, d.QBatch, L*E)
	kOff := batchOffsets(d.Batch, d.KBatch, S*E)
	forAttnBlocks(d, causal, func() struct{} { return struct{}{} }, func(b, i0, rows, keys, inner int, _ struct{}) {
		o := out[(b*L+i0)*S : (b*L+i0+rows)*S]
		mm(inner, false, true, rows, keys, E, q[qOff[b]+i0*E:], E, k[kOff[b]:], E, false, o, S)
		for i := range rows {
			clear(o[i*S+keys : (i+1)*S])
		}
		weightRows(o, rows, keys, S, i0, causal, scale, softmax)
	})
}

// normBackwardKernel is layer_norm's (rms_norm's) gradient with respect
// to x: each row's statistics are recomputed, everything in float64.
func normBackwardKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.NormBackwardAttrs]("norm_backward", attrs)
	if err != nil {
		return err
	}
	var w []float64
	if a.HasWeight {
		w = nnWeights(ins[1])
	}
	d := out.Shape[len(out.Shape)-1]
	x, y, finish := nnIO(ins[0], out)
	g := castDense(ins[len(ins)-1], y.DType)
	if y.DType == tensor.Float64 {
		normBackRows(nnView[float64](y), nnView[float64](x), nnView[float64](g), w, d, a.Eps, a.RMS)
	} else {
		normBackRows(nnView[float32](y), nnView[float32](x), nnView[float32](g), w, d, a.Eps, a.RMS)
	}
	finish()
	return nil
}

// normStats is a row's mean (0 for RMS) and 1/√(σ² + eps).
func normStats[T nnFloat](x []T, eps float64, rms bool) (mean, r float64) {
	if !rms {
		mean = nnSum(x) / float64(len(x))
	}
	return mean, 1 / math.Sqrt(nnSqDev(x, mean)/float64(len(x))+eps)
}

func normBackRows[T nnFloat](dst, src, gs []T, w []float64, d int, eps float64, rms bool) {
	if d == 0 {
		return
	}
	rows := len(src) / d
	stridedParallel(rows, 12*d, func(lo, hi int) {
		for row := lo; row < hi; row++ {
			x, g, y := src[row*d:(row+1)*d], gs[row*d:(row+1)*d], dst[row*d:(row+1)*d]
			mean, r := normStats(x, eps, rms)
			var sg, sgx float64 // Σ ĝ and Σ ĝ·x̂
			for i, v := range x {
				gh := float64(g[i])
				if w != nil {
					gh *= w[i]
				}
				sg += gh
				sgx += gh * (float64(v) - mean) * r
			}
			if rms {
				sg = 0
			}
			mg, mgx := sg/float64(d), sgx/float64(d)
			for i, v := range x {
				gh := float64(g[i])
				if w != nil {
					gh *= w[i]
				}
				y[i] = T(r * (gh - mg - (float64(v)-mean)*r*mgx))
			}
		}
	})
}

// normBackwardWeightKernel is the weight's gradient Σ g·x̂ over the rows:
// the rows' statistics first, then each worker sums a range of columns.
func normBackwardWeightKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.NormBackwardAttrs]("norm_backward_weight", attrs)
	if err != nil {
		return err
	}
	d := out.Shape[0]
	x, y, finish := nnIO(ins[0], out)
	g := castDense(ins[1], y.DType)
	if y.DType == tensor.Float64 {
		normWeightRows(nnView[float64](y), nnView[float64](x), nnView[float64](g), d, a.Eps, a.RMS)
	} else {
		normWeightRows(nnView[float32](y), nnView[float32](x), nnView[float32](g), d, a.Eps, a.RMS)
	}
	finish()
	return nil
}

func normWeightRows[T nnFloat](dst, src, gs []T, d int, eps float64, rms bool) {
	if d == 0 {
		return
	}
	rows := len(src) / d
	mean, r := make([]float64, rows), make([]float64, rows)
	stridedParallel(rows, 4*d, func(lo, hi int) {
		for row := lo; row < hi; row++ {
			mean[row], r[row] = normStats(src[row*d:(row+1)*d], eps, rms)
		}
	})
	stridedParallel(d, 4*rows, func(lo, hi int) {
		acc := make([]float64, hi-lo)
		for row := range rows {
			x, g := src[row*d+lo:row*d+hi], gs[row*d+lo:row*d+hi]
			for i, v := range x {
				acc[i] += float64(g[i]) * (float64(v) - mean[row]) * r[row]
			}
		}
		for i, v := range acc {
			dst[lo+i] = T(v)
		}
	})
}
