package autograd_test

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/autograd"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// gcase is one op's gradient check: inputs are float64 (or int64/bool
// where the op wants them), the loss is Σ op(ins)·w for a fixed random w.
type gcase struct {
	name  string // a label; the op is op
	op    string
	attrs any
	ins   []*tensor.Dense
	// constant lists float inputs the rule gives no gradient (as torch).
	constant []int
	// symmetric checks, for ops that read one triangle of symmetric
	// matrices (cholesky), the derivative along each symmetric direction:
	// elements (i, j) and (j, i) moved together against the sum of their
	// gradients, the convention of torch's symmetric gradients.
	symmetric bool
}

var gen = rand.New(rand.NewSource(1))

func dense(dt tensor.DType, shape []int, f func(i int) float64) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: shape, DType: dt})
	for i := range d.Numel() {
		d.Set(i, f(i))
	}
	return d
}

func randn(shape ...int) *tensor.Dense {
	return dense(tensor.Float64, shape, func(int) float64 { return gen.NormFloat64() })
}

// pos is away from 0: for log, sqrt, division.
func pos(shape ...int) *tensor.Dense {
	return dense(tensor.Float64, shape, func(int) float64 { return 0.5 + gen.Float64()*2 })
}

func ints(hi int, shape ...int) *tensor.Dense {
	return dense(tensor.Int64, shape, func(int) float64 { return float64(gen.Intn(hi)) })
}

func mask(shape ...int) *tensor.Dense {
	return dense(tensor.Bool, shape, func(int) float64 { return float64(gen.Intn(2)) })
}

func slice(start, stop, step int) ops.IndexItem {
	return ops.IndexItem{Kind: ops.IndexSlice, Start: start, Stop: stop, Step: step, HasStart: true, HasStop: true}
}

func gradCases() []gcase {
	cs := []gcase{
		{op: "add", ins: []*tensor.Dense{randn(2, 3), randn(3)}},
		{op: "sub", ins: []*tensor.Dense{randn(2, 3), randn(2, 1)}},
		{op: "mul", ins: []*tensor.Dense{randn(2, 3), randn(1, 3)}},
		{op: "div", ins: []*tensor.Dense{randn(2, 3), pos(3)}},
		{op: "mod", ins: []*tensor.Dense{randn(2, 3), pos(3)}},
		{op: "pow", ins: []*tensor.Dense{pos(2, 3), randn(2, 3)}},
		{op: "maximum", ins: []*tensor.Dense{randn(2, 3), randn(3)}},
		{op: "minimum", ins: []*tensor.Dense{randn(2, 3), randn(3)}},
		{op: "atan2", ins: []*tensor.Dense{randn(2, 3), randn(3)}},
		{op: "fmod", ins: []*tensor.Dense{randn(2, 3), pos(3)}},
		{op: "hypot", ins: []*tensor.Dense{randn(2, 3), randn(3)}},
		{op: "copysign", ins: []*tensor.Dense{randn(2, 3), randn(2, 1)}},
		{op: "log", ins: []*tensor.Dense{pos(2, 3)}},
		{op: "sqrt", ins: []*tensor.Dense{pos(2, 3)}},
		{op: "rsqrt", ins: []*tensor.Dense{pos(2, 3)}},
		{op: "clamp", attrs: ops.ClampAttrs{Min: -0.5, Max: 0.5, HasMin: true, HasMax: true, MinFloat: true, MaxFloat: true}, ins: []*tensor.Dense{randn(3, 4)}},
		{op: "astype", attrs: ops.CastAttrs{To: tensor.Float64}, ins: []*tensor.Dense{randn(2, 3)}},
		{op: "where", ins: []*tensor.Dense{mask(2, 3), randn(2, 3), randn(3)}},
		{op: "sum", attrs: ops.ReduceAttrs{Dims: []int{1}}, ins: []*tensor.Dense{randn(2, 3, 2)}},
		{name: "sum_all_keepdim", op: "sum", attrs: ops.ReduceAttrs{Keepdim: true}, ins: []*tensor.Dense{randn(2, 3)}},
		{op: "mean", attrs: ops.ReduceAttrs{Dims: []int{0, 2}}, ins: []*tensor.Dense{randn(2, 3, 2)}},
		{op: "max", attrs: ops.ReduceAttrs{Dims: []int{1}}, ins: []*tensor.Dense{randn(2, 4)}},
		{op: "min", attrs: ops.ReduceAttrs{}, ins: []*tensor.Dense{randn(2, 4)}},
		{op: "var", attrs: ops.ReduceAttrs{Dims: []int{1}, Correction: 1}, ins: []*tensor.Dense{randn(2, 4)}},
		{op: "std", attrs: ops.ReduceAttrs{Dims: []int{0}, Keepdim: true, Correction: 0}, ins: []*tensor.Dense{randn(3, 2)}},
		{op: "prod", attrs: ops.ReduceAttrs{Dims: []int{1}}, ins: []*tensor.Dense{randn(2, 4)}},
		{name: "prod_zero", op: "prod", attrs: ops.ReduceAttrs{Dims: []int{1}}, ins: []*tensor.Dense{dense(tensor.Float64, []int{2, 3}, func(i int) float64 { return []float64{0, 2, 3, 0, 0, 5}[i] })}},
		{op: "matmul", ins: []*tensor.Dense{randn(2, 3), randn(3, 4)}},
		{name: "matmul_batch", op: "matmul", ins: []*tensor.Dense{randn(2, 2, 3), randn(3, 4)}},
		{name: "matmul_vec_mat", op: "matmul", ins: []*tensor.Dense{randn(3), randn(2, 3, 4)}},
		{name: "matmul_mat_vec", op: "matmul", ins: []*tensor.Dense{randn(2, 3), randn(3)}},
		{op: "linear", ins: []*tensor.Dense{randn(2, 2, 3), randn(4, 3), randn(4)}},
		{name: "linear_vec", op: "linear", ins: []*tensor.Dense{randn(2, 3), randn(3)}},
		{op: "matmul_tn", ins: []*tensor.Dense{randn(3, 2), randn(3, 4)}},
		{name: "matmul_vec_matrix", op: "matmul", ins: []*tensor.Dense{randn(3), randn(3, 4)}},
		{op: "outer", ins: []*tensor.Dense{randn(3), randn(4)}},
		{op: "softmax", attrs: ops.SoftmaxAttrs{Dim: 1}, ins: []*tensor.Dense{randn(2, 4)}},
		{op: "log_softmax", attrs: ops.SoftmaxAttrs{Dim: 0}, ins: []*tensor.Dense{randn(3, 2)}},
		{op: "layer_norm", attrs: ops.NormAttrs{Eps: 1e-5, HasWeight: true, HasBias: true}, ins: []*tensor.Dense{randn(2, 3, 4), randn(4), randn(4)}},
		{name: "layer_norm_plain", op: "layer_norm", attrs: ops.NormAttrs{Eps: 1e-5}, ins: []*tensor.Dense{randn(3, 5)}},
		{op: "rms_norm", attrs: ops.NormAttrs{Eps: 1e-6, HasWeight: true}, ins: []*tensor.Dense{randn(3, 4), randn(4)}},
		{op: "embedding", ins: []*tensor.Dense{ints(5, 2, 3), randn(5, 4)}},
		{op: "dropout", attrs: ops.DropoutAttrs{P: 0.25}, ins: []*tensor.Dense{randn(3, 4), mask(3, 4)}},
		{op: "cross_entropy", attrs: ops.CrossEntropyAttrs{IgnoreIndex: 2}, ins: []*tensor.Dense{randn(5, 4), ints(4, 5)}},
		{name: "cross_entropy_spatial", op: "cross_entropy", attrs: ops.CrossEntropyAttrs{IgnoreIndex: -100}, ins: []*tensor.Dense{randn(2, 3, 4), ints(3, 2, 4)}},
		{name: "cross_entropy_1d", op: "cross_entropy", attrs: ops.CrossEntropyAttrs{IgnoreIndex: -100}, ins: []*tensor.Dense{randn(4), ints(4)}},
		{op: "mse", ins: []*tensor.Dense{randn(2, 3), randn(3)}},
		{op: "attention", attrs: ops.AttentionAttrs{}, ins: []*tensor.Dense{randn(2, 3, 4), randn(2, 5, 4), randn(5, 2)}},
		{name: "attention_causal", op: "attention", attrs: ops.AttentionAttrs{Causal: true, Scale: 0.7, HasScale: true}, ins: []*tensor.Dense{randn(4, 3), randn(4, 3), randn(4, 2)}},
		{op: "reshape", attrs: ops.ReshapeAttrs{Shape: tensor.Shape{3, -1}}, ins: []*tensor.Dense{randn(2, 3)}},
		{op: "permute", attrs: ops.PermuteAttrs{Dims: []int{2, 0, 1}}, ins: []*tensor.Dense{randn(2, 3, 2)}},
		{op: "expand", attrs: ops.ExpandAttrs{Shape: tensor.Shape{2, 3, 4}}, ins: []*tensor.Dense{randn(3, 1)}},
		{op: "cat", attrs: ops.CatAttrs{Dim: 1}, ins: []*tensor.Dense{randn(2, 3), randn(2, 2), randn(0)}},
		{op: "stack", attrs: ops.CatAttrs{Dim: -1}, ins: []*tensor.Dense{randn(2, 3), randn(2, 3)}},
		{op: "index", attrs: ops.IndexAttrs{Items: []ops.IndexItem{{Kind: ops.IndexAt, At: -1}, slice(4, 0, -2)}}, ins: []*tensor.Dense{randn(3, 5)}},
		{name: "index_assign", op: "index_assign", attrs: ops.IndexAttrs{Items: []ops.IndexItem{slice(0, 3, 2), {Kind: ops.IndexAt, At: -2}}}, ins: []*tensor.Dense{randn(4, 3), randn(2)}},
		{name: "index_assign broadcast", op: "index_assign", attrs: ops.IndexAttrs{Items: []ops.IndexItem{slice(3, 0, -1)}}, ins: []*tensor.Dense{randn(4, 3), randn(1, 3)}},
		{op: "index_backward", attrs: ops.IndexBackwardAttrs{Items: []ops.IndexItem{slice(0, 3, 2)}, Shape: tensor.Shape{4, 2}}, ins: []*tensor.Dense{randn(2, 2)}},
		{op: "conv2d", attrs: ops.Conv2dAttrs{Stride: [2]int{1, 1}, PadLo: [2]int{1, 0}, PadHi: [2]int{1, 2}, Dilation: [2]int{1, 1}, Groups: 1}, ins: []*tensor.Dense{randn(2, 2, 4, 4), randn(3, 2, 3, 2), randn(3)}},
		{name: "conv2d_groups", op: "conv2d", attrs: ops.Conv2dAttrs{Stride: [2]int{2, 1}, Dilation: [2]int{1, 2}, Groups: 2}, ins: []*tensor.Dense{randn(2, 5, 5), randn(4, 1, 2, 2)}},
		{op: "max_pool2d", attrs: ops.Pool2dAttrs{Kernel: [2]int{2, 2}, Stride: [2]int{2, 1}, Padding: [2]int{1, 0}, Dilation: [2]int{1, 1}}, ins: []*tensor.Dense{randn(1, 2, 4, 4)}},
	}
	cs = append(cs, []gcase{
		{op: "avg_pool2d", attrs: ops.AvgPool2dAttrs{Kernel: [2]int{3, 2}, Stride: [2]int{2, 1}, Padding: [2]int{1, 1}, CeilMode: true}, ins: []*tensor.Dense{randn(1, 2, 5, 4)}},
		{name: "avg_pool2d_override", op: "avg_pool2d", attrs: ops.AvgPool2dAttrs{Kernel: [2]int{2, 2}, Stride: [2]int{2, 2}, Padding: [2]int{1, 0}, CountIncludePad: true, DivisorOverride: 3}, ins: []*tensor.Dense{randn(2, 4, 4)}},
		{op: "adaptive_avg_pool2d", attrs: ops.AdaptivePool2dAttrs{Out: [2]int{3, 2}}, ins: []*tensor.Dense{randn(1, 2, 5, 5)}},
		{op: "avg_pool2d_backward", attrs: ops.PoolBackwardAttrs{Pool: ops.AvgPool2dAttrs{Kernel: [2]int{2, 2}, Stride: [2]int{1, 1}}, Shape: tensor.Shape{1, 3, 3}}, ins: []*tensor.Dense{randn(1, 2, 2)}},
		{op: "adaptive_avg_pool2d_backward", attrs: ops.PoolBackwardAttrs{Pool: ops.AdaptivePool2dAttrs{Out: [2]int{2, 2}}, Shape: tensor.Shape{1, 3, 3}}, ins: []*tensor.Dense{randn(1, 2, 2)}},
		{op: "pad", attrs: ops.PadAttrs{Pads: []int{1, -1, 2, 0}, Mode: ops.PadConstant, Value: 0.5}, ins: []*tensor.Dense{randn(2, 3, 4)}},
		{name: "pad_reflect", op: "pad", attrs: ops.PadAttrs{Pads: []int{2, 1, 1, 2}, Mode: ops.PadReflect}, ins: []*tensor.Dense{randn(1, 3, 4)}},
		{name: "pad_replicate", op: "pad", attrs: ops.PadAttrs{Pads: []int{3, 0}, Mode: ops.PadReplicate}, ins: []*tensor.Dense{randn(2, 2, 3)}},
		{name: "pad_circular", op: "pad", attrs: ops.PadAttrs{Pads: []int{1, 2, 2, 1}, Mode: ops.PadCircular}, ins: []*tensor.Dense{randn(1, 2, 3, 3)}},
		{op: "pad_backward", attrs: ops.PadBackwardAttrs{Pad: ops.PadAttrs{Pads: []int{1, 1}, Mode: ops.PadReflect}, Shape: tensor.Shape{2, 3}}, ins: []*tensor.Dense{randn(2, 5)}},
		{op: "batch_norm", attrs: ops.BatchNormAttrs{Eps: 1e-5, HasWeight: true, HasBias: true}, ins: []*tensor.Dense{randn(2, 3, 2), randn(3), pos(3), randn(3), randn(3)}},
		{name: "batch_norm_2d", op: "batch_norm", attrs: ops.BatchNormAttrs{Eps: 1e-3}, ins: []*tensor.Dense{randn(4, 3), randn(3), pos(3)}},
		{op: "conv_transpose2d", attrs: ops.ConvTranspose2dAttrs{Stride: [2]int{2, 1}, Padding: [2]int{1, 0}, OutputPadding: [2]int{1, 0}, Dilation: [2]int{1, 1}, Groups: 1}, ins: []*tensor.Dense{randn(2, 2, 3, 3), randn(2, 3, 3, 2), randn(3)}},
		{name: "conv_transpose2d_groups", op: "conv_transpose2d", attrs: ops.ConvTranspose2dAttrs{Stride: [2]int{1, 1}, Dilation: [2]int{2, 1}, Groups: 2}, ins: []*tensor.Dense{randn(4, 3, 3), randn(4, 1, 2, 2)}},
		{op: "nll_loss", attrs: ops.NllLossAttrs{IgnoreIndex: 1}, ins: []*tensor.Dense{randn(5, 4), ints(4, 5)}},
		{name: "nll_loss_weighted_smoothed", op: "nll_loss", attrs: ops.NllLossAttrs{IgnoreIndex: -100, HasWeight: true, LabelSmoothing: 0.2}, ins: []*tensor.Dense{randn(2, 3, 4), ints(3, 2, 4), pos(3)}, constant: []int{2}},
		{name: "nll_loss_none", op: "nll_loss", attrs: ops.NllLossAttrs{Reduction: ops.ReduceNone, IgnoreIndex: 0}, ins: []*tensor.Dense{randn(4, 3), ints(3, 4)}},
		{name: "nll_loss_sum_1d", op: "nll_loss", attrs: ops.NllLossAttrs{Reduction: ops.ReduceSum, IgnoreIndex: -100}, ins: []*tensor.Dense{randn(4), ints(4)}},
		{op: "cross_entropy_backward", attrs: ops.CrossEntropyAttrs{IgnoreIndex: 0}, ins: []*tensor.Dense{randn(5, 3), ints(3, 5), randn()}},
		{op: "softmax_backward", attrs: ops.SoftmaxAttrs{Dim: 1}, ins: []*tensor.Dense{randn(2, 4, 3), randn(2, 4, 3)}},
		{name: "softmax_backward_last", op: "softmax_backward", attrs: ops.SoftmaxAttrs{Dim: -1}, ins: []*tensor.Dense{randn(3, 4), randn(3, 4)}},
		{op: "log_softmax_backward", attrs: ops.SoftmaxAttrs{Dim: 0}, ins: []*tensor.Dense{randn(3, 2), randn(3, 2)}},
		{op: "attention_weights", attrs: ops.AttentionAttrs{}, ins: []*tensor.Dense{randn(2, 3, 4), randn(1, 5, 4)}},
		{name: "attention_weights_causal", op: "attention_weights", attrs: ops.AttentionAttrs{Causal: true, Scale: 0.7, HasScale: true}, ins: []*tensor.Dense{randn(4, 3), randn(5, 3)}},
		{op: "norm_backward", attrs: ops.NormBackwardAttrs{Eps: 1e-5, HasWeight: true}, ins: []*tensor.Dense{randn(2, 3, 4), randn(4), randn(2, 3, 4)}},
		{name: "norm_backward_plain", op: "norm_backward", attrs: ops.NormBackwardAttrs{Eps: 1e-5}, ins: []*tensor.Dense{randn(3, 5), randn(3, 5)}},
		{name: "norm_backward_rms", op: "norm_backward", attrs: ops.NormBackwardAttrs{Eps: 1e-6, HasWeight: true, RMS: true}, ins: []*tensor.Dense{randn(3, 4), randn(4), randn(3, 4)}},
		{op: "norm_backward_weight", attrs: ops.NormBackwardAttrs{Eps: 1e-5}, ins: []*tensor.Dense{randn(2, 3, 4), randn(2, 3, 4)}},
		{name: "norm_backward_weight_rms", op: "norm_backward_weight", attrs: ops.NormBackwardAttrs{Eps: 1e-6, RMS: true}, ins: []*tensor.Dense{randn(3, 4), randn(3, 4)}},
		{op: "nan_to_num", attrs: ops.NanToNumAttrs{}, ins: []*tensor.Dense{randn(2, 3)}},
		{op: "leaky_relu", attrs: ops.LeakyReluAttrs{NegativeSlope: 0.1}, ins: []*tensor.Dense{randn(2, 3)}},
		{op: "elu", attrs: ops.EluAttrs{Alpha: 1.5}, ins: []*tensor.Dense{randn(2, 3)}},
		{op: "softplus", attrs: ops.SoftplusAttrs{Beta: 2, Threshold: 1}, ins: []*tensor.Dense{randn(3, 4)}},
		{op: "hardsigmoid", ins: []*tensor.Dense{dense(tensor.Float64, []int{2, 4}, func(i int) float64 { return float64(i)*1.7 - 6.1 })}},
		{op: "hardswish", ins: []*tensor.Dense{dense(tensor.Float64, []int{2, 4}, func(i int) float64 { return float64(i)*1.7 - 6.1 })}},
	}...)
	cs = append(cs, gatherOrderCases()...)
	cs = append(cs, scalarGradCases()...)
	for _, name := range []string{"neg", "exp", "sin", "cos", "tanh", "sigmoid", "gelu", "silu", "abs", "relu", "erf", "gelu_tanh"} {
		cs = append(cs, gcase{op: name, ins: []*tensor.Dense{randn(2, 3)}})
	}
	// The trigonometric ops inside their domains: (-0.9, 0.9) for tan, asin,
	// acos and atanh, above 1 for acosh.
	unit := func(i int) float64 { return float64(i)*0.3 - 0.8 }
	for _, name := range []string{"tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh"} {
		cs = append(cs, gcase{op: name, ins: []*tensor.Dense{dense(tensor.Float64, []int{2, 3}, unit)}})
	}
	// The log/exp family where defined: log1p above -1, the logarithms
	// and the reciprocal away from 0.
	for _, name := range []string{"log1p", "expm1"} {
		cs = append(cs, gcase{op: name, ins: []*tensor.Dense{dense(tensor.Float64, []int{2, 3}, unit)}})
	}
	for _, name := range []string{"log2", "log10", "reciprocal"} {
		cs = append(cs, gcase{op: name, ins: []*tensor.Dense{pos(2, 3)}})
	}
	// cholesky of positive-definite matrices (A·Aᵀ + 3I), one and a batch.
	spd := func(shape ...int) *tensor.Dense {
		n := shape[len(shape)-1]
		a := randn(shape...)
		d := dense(tensor.Float64, shape, func(int) float64 { return 0 })
		for b := 0; b*n*n < d.Numel(); b++ {
			for i := range n {
				for j := range n {
					v := 0.0
					for k := range n {
						v += a.At(b*n*n+i*n+k) * a.At(b*n*n+j*n+k)
					}
					if i == j {
						v += 3
					}
					d.Set(b*n*n+i*n+j, v)
				}
			}
		}
		return d
	}
	cs = append(cs, gcase{op: "slogdet", ins: []*tensor.Dense{randn(3, 3)}},
		gcase{op: "slogdet", name: "slogdet/batch", ins: []*tensor.Dense{randn(2, 4, 4)}})
	cs = append(cs, gcase{op: "logcumsumexp", attrs: ops.ScanAttrs{Dim: 1}, ins: []*tensor.Dense{randn(3, 4)}},
		gcase{op: "logcumsumexp", name: "logcumsumexp/dim0", attrs: ops.ScanAttrs{Dim: 0}, ins: []*tensor.Dense{randn(5, 2)}})
	cs = append(cs, gcase{op: "cholesky", ins: []*tensor.Dense{spd(3, 3)}, symmetric: true},
		gcase{op: "cholesky", name: "cholesky/batch", ins: []*tensor.Dense{spd(2, 4, 4)}, symmetric: true})
	// The decompositions: full-rank matrices with distinct eigenvalues and
	// singular values (random ones), tall, wide and batched; the packed
	// result's every factor weighted.
	cs = append(cs, gcase{op: "qr", name: "qr/tall", attrs: ops.QRAttrs{}, ins: []*tensor.Dense{randn(4, 3)}},
		gcase{op: "qr", name: "qr/wide", attrs: ops.QRAttrs{}, ins: []*tensor.Dense{randn(3, 5)}},
		gcase{op: "qr", name: "qr/complete-batch", attrs: ops.QRAttrs{Complete: true}, ins: []*tensor.Dense{randn(2, 3, 3)}},
		gcase{op: "eigh", attrs: ops.EighAttrs{}, ins: []*tensor.Dense{randn(4, 4)}, symmetric: true},
		gcase{op: "eigh", name: "eigh/upper-batch", attrs: ops.EighAttrs{Upper: true}, ins: []*tensor.Dense{randn(2, 3, 3)}, symmetric: true},
		gcase{op: "svd", name: "svd/tall", attrs: ops.SVDAttrs{}, ins: []*tensor.Dense{randn(5, 3)}},
		gcase{op: "svd", name: "svd/wide-batch", attrs: ops.SVDAttrs{}, ins: []*tensor.Dense{randn(2, 3, 4)}},
		gcase{op: "svd", name: "svd/square", attrs: ops.SVDAttrs{}, ins: []*tensor.Dense{randn(3, 3)}},
		gcase{op: "matrix_exp", ins: []*tensor.Dense{randn(3, 3)}},
		gcase{op: "matrix_exp", name: "matrix_exp/large-batch", ins: []*tensor.Dense{dense(tensor.Float64, []int{2, 3, 3}, func(i int) float64 { return float64(i%5) - 1.5 })}},
		gcase{op: "pinv", name: "pinv/tall", attrs: ops.PinvAttrs{Rtol: 1e-12}, ins: []*tensor.Dense{randn(5, 3)}},
		gcase{op: "pinv", name: "pinv/wide-batch", attrs: ops.PinvAttrs{Rtol: 1e-12}, ins: []*tensor.Dense{randn(2, 3, 4)}},
		gcase{op: "pinv", name: "pinv/square", attrs: ops.PinvAttrs{Rtol: 1e-12}, ins: []*tensor.Dense{randn(3, 3)}},
		gcase{op: "solve_triangular", name: "solve_triangular/lower", attrs: ops.TriangularAttrs{}, ins: []*tensor.Dense{spd(3, 3), randn(3, 2)}},
		gcase{op: "solve_triangular", name: "solve_triangular/upper-unit-batch", attrs: ops.TriangularAttrs{Upper: true, Unit: true}, ins: []*tensor.Dense{randn(2, 3, 3), randn(2, 3, 2)}},
		gcase{op: "lu", name: "lu/square", attrs: ops.LUAttrs{}, ins: []*tensor.Dense{randn(4, 4)}},
		gcase{op: "lu", name: "lu/wide-batch", attrs: ops.LUAttrs{}, ins: []*tensor.Dense{randn(2, 3, 5)}},
		gcase{op: "lu", name: "lu/tall", attrs: ops.LUAttrs{Check: true}, ins: []*tensor.Dense{randn(5, 3)}})
	// The special functions: erfinv inside (-1, 1), the gamma family at
	// positive x (and digamma across a pole-free stretch below 0).
	cs = append(cs, gcase{op: "erfc", ins: []*tensor.Dense{randn(2, 3)}},
		gcase{op: "erfinv", ins: []*tensor.Dense{dense(tensor.Float64, []int{2, 3}, unit)}},
		gcase{op: "lgamma", ins: []*tensor.Dense{pos(2, 3)}},
		gcase{op: "digamma", ins: []*tensor.Dense{pos(2, 3)}},
		gcase{op: "digamma", name: "digamma/negative", ins: []*tensor.Dense{dense(tensor.Float64, []int{2, 3}, func(i int) float64 { return -2.9 + float64(i)*0.15 })}})
	for n := range 3 {
		cs = append(cs, gcase{op: "polygamma", name: fmt.Sprintf("polygamma/%d", n), attrs: ops.PolygammaAttrs{N: n}, ins: []*tensor.Dense{pos(2, 3)}})
	}
	// erfcx on both sides of 0; zeta, gammainc and gammaincc along their
	// second operand, broadcast, the first an int64 tensor (torch has no
	// gradient along it, and tref's rule fails for a float one:
	// TestNoGradientAlongFirstOperand).
	small := func(lo int, shape ...int) *tensor.Dense {
		return dense(tensor.Int64, shape, func(i int) float64 { return float64(lo + i%3) })
	}
	cs = append(cs, gcase{op: "erfcx", ins: []*tensor.Dense{dense(tensor.Float64, []int{2, 4}, func(i int) float64 { return -2.2 + float64(i)*0.8 })}},
		gcase{op: "zeta", ins: []*tensor.Dense{small(2, 3), pos(2, 3)}},
		gcase{op: "gammainc", ins: []*tensor.Dense{small(1, 2, 3), pos(3)}},
		gcase{op: "gammaincc", ins: []*tensor.Dense{small(1, 3), pos(2, 3)}})
	cs = append(cs, gcase{op: "acosh", ins: []*tensor.Dense{dense(tensor.Float64, []int{2, 3}, func(i int) float64 { return 1.2 + float64(i)*0.7 })}})
	for i := range cs {
		if cs[i].name == "" {
			cs[i].name = cs[i].op
		}
	}
	return cs
}

// firstOrderOnly are the backward kernels whose own rule fails clearly.
var firstOrderOnly = []string{"gelu_backward", "conv2d_backward_input", "conv2d_backward_weight", "max_pool2d_backward"}

// TestEveryOpHasAGradRule fails for an op added to the registry without a
// gradient rule or a mark saying it is not differentiable, and for a rule
// without a gradient check below.
func TestEveryOpHasAGradRule(t *testing.T) {
	checked := map[string]bool{}
	for _, c := range gradCases() {
		checked[c.op] = true
	}
	for i := 1; i < ops.Count(); i++ {
		name := ops.Op(i).Name()
		g := ops.Op(i).Def().Grad
		switch {
		case g == nil:
			t.Errorf("op %s has no gradient rule: add one in runtime/ops (a *_grad.go file), or mark it with notDifferentiable", name)
		case g.NotDifferentiable != "":
		case slices.Contains(firstOrderOnly, name):
		case !checked[name]:
			t.Errorf("op %s has a gradient rule but no gradient check: add a case to gradCases", name)
		}
	}
}

func newRT() *refs.Runtime { return refs.New(&cpu.Device{}, refs.Options{Lookahead: 8}) }

// loss submits Σ op(ins)·w.
func loss(t *testing.T, rt *refs.Runtime, c gcase, ins []*refs.Ref, w *refs.Ref) *refs.Ref {
	t.Helper()
	out, err := rt.Submit(refs.Site{}, ops.MustLookup(c.op), c.attrs, ins...)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	prod, err := rt.Submit(refs.Site{}, ops.Mul, nil, out, w)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	rt.Release(out)
	l, err := rt.Submit(refs.Site{}, ops.Sum, ops.ReduceAttrs{}, prod)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	rt.Release(prod)
	return l
}

func value(t *testing.T, rt *refs.Runtime, r *refs.Ref) *tensor.Dense {
	t.Helper()
	d, err := rt.Read(r)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestGradCheck compares every rule with central finite differences in
// float64.
func TestGradCheck(t *testing.T) {
	for _, c := range gradCases() {
		t.Run(c.name, func(t *testing.T) {
			rt := newRT()
			ins := make([]*refs.Ref, len(c.ins))
			for i, d := range c.ins {
				ins[i] = rt.FromHost(refs.Site{}, d.Clone())
			}
			m, err := ops.MustLookup(c.op).Def().Infer(metas(c.ins), c.attrs)
			if err != nil {
				t.Fatal(err)
			}
			w := rt.FromHost(refs.Site{}, dense(tensor.Float64, m.Shape, func(int) float64 { return gen.NormFloat64() }))
			tape := autograd.Start(rt, ins)
			l := loss(t, rt, c, ins, w)
			cot, err := tape.Backward(l)
			if err != nil {
				t.Fatal(err)
			}
			rt.Release(l)
			const eps = 1e-6
			for i, d := range c.ins {
				if d.DType != tensor.Float64 || slices.Contains(c.constant, i) {
					if cot[ins[i]] != nil {
						t.Errorf("input %d (%s) got a gradient", i, d.DType)
					}
					continue
				}
				g := cot[ins[i]]
				if g == nil && d.Numel() == 0 {
					continue // an empty input (cat skips it) needs none
				}
				if g == nil {
					t.Fatalf("input %d got no gradient", i)
				}
				got := value(t, rt, g)
				if !got.Shape.Equal(d.Shape) || got.DType != tensor.Float64 {
					t.Fatalf("input %d: gradient %v for an input %v", i, got.Meta, d.Meta)
				}
				for j := range d.Numel() {
					mirror := j
					if c.symmetric {
						n := d.Shape[len(d.Shape)-1]
						r, col := j/n%n, j%n
						if r < col {
							continue // checked with its mirror
						}
						mirror = j - r*n - col + col*n + r
					}
					f := func(delta float64) float64 {
						p := d.Clone()
						p.Set(j, d.At(j)+delta)
						if mirror != j {
							p.Set(mirror, d.At(mirror)+delta)
						}
						args := slices.Clone(ins)
						args[i] = rt.FromHost(refs.Site{}, p)
						l := loss(t, rt, c, args, w)
						v := value(t, rt, l).At(0)
						rt.Release(l)
						rt.Release(args[i])
						return v
					}
					num := (f(eps) - f(-eps)) / (2 * eps)
					// Written so that a NaN on either side fails.
					a := got.At(j)
					if mirror != j {
						a += got.At(mirror)
					}
					if !(math.Abs(a-num) <= 1e-5+1e-5*math.Abs(num)) {
						t.Errorf("input %d element %d: gradient %.9g, finite differences %.9g", i, j, a, num)
					}
				}
				rt.Release(g)
			}
			for _, r := range ins {
				rt.Release(r)
			}
			rt.Release(w)
			if n := rt.LiveRefs(); n != 0 {
				t.Errorf("%d refs alive after the check", n)
			}
		})
	}
}

func metas(ds []*tensor.Dense) []tensor.Meta {
	out := make([]tensor.Meta, len(ds))
	for i, d := range ds {
		out[i] = d.Meta
	}
	return out
}

// TestFirstOrderOnly: grad of grad through a backward kernel without a
// rule of its own fails, naming the forward op.
func TestFirstOrderOnly(t *testing.T) {
	rt := newRT()
	x := rt.FromHost(refs.Site{}, randn(4))
	outer := autograd.Start(rt, []*refs.Ref{x})
	inner := autograd.Start(rt, []*refs.Ref{x})
	y, _ := rt.Submit(refs.Site{}, ops.Gelu, nil, x)
	s, _ := rt.Submit(refs.Site{}, ops.Sum, ops.ReduceAttrs{}, y)
	rt.Release(y)
	cot, err := inner.Backward(s)
	if err != nil {
		t.Fatal(err)
	}
	g := cot[x]
	s2, _ := rt.Submit(refs.Site{}, ops.Sum, ops.ReduceAttrs{}, g)
	_, err = outer.Backward(s2)
	if err == nil || !strings.Contains(err.Error(), "grad of grad through gelu is not supported") {
		t.Fatalf("got %v, want an error about gelu's second derivative", err)
	}
	for _, r := range []*refs.Ref{s, g, s2, x} {
		rt.Release(r)
	}
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs alive", n)
	}
}

// TestNoGradientAlongFirstOperand: zeta, gammainc and gammaincc have no
// gradient along their first operand (nor has torch): differentiating
// along a float one fails, naming the operand.
func TestNoGradientAlongFirstOperand(t *testing.T) {
	for _, c := range []struct{ op, operand string }{{"zeta", "x (input)"}, {"gammainc", "a (input)"}, {"gammaincc", "a (input)"}} {
		rt := newRT()
		a, x := rt.FromHost(refs.Site{}, pos(3)), rt.FromHost(refs.Site{}, pos(3))
		tape := autograd.Start(rt, []*refs.Ref{a, x})
		y, err := rt.Submit(refs.Site{}, ops.MustLookup(c.op), nil, a, x)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := rt.Submit(refs.Site{}, ops.Sum, ops.ReduceAttrs{}, y)
		rt.Release(y)
		want := "gradient of " + c.op + ": not implemented with respect to " + c.operand
		if _, err := tape.Backward(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error %q", c.op, err, want)
		}
		for _, r := range []*refs.Ref{s, a, x} {
			rt.Release(r)
		}
		if n := rt.LiveRefs(); n != 0 {
			t.Errorf("%s: %d refs alive", c.op, n)
		}
	}
}

// scalarGradCases check the rules of the binary ops and where with a
// number for one value operand (ops.ScalarOperand, on either side): the
// tensors get their gradients, the number none.
func scalarGradCases() []gcase {
	f := func(v float64) ops.Scalar { return ops.FloatScalar(v, tensor.Float64) }
	right := func(v ops.Scalar) ops.ScalarOperand { return ops.ScalarOperand{Value: v} }
	left := func(v ops.Scalar) ops.ScalarOperand { return ops.ScalarOperand{Value: v, Left: true} }
	return []gcase{
		{name: "add_scalar", op: "add", attrs: right(f(0.5)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "scalar_sub", op: "sub", attrs: left(f(1.5)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "sub_int_scalar", op: "sub", attrs: right(ops.IntScalar(2)), ins: []*tensor.Dense{randn(3)}},
		{name: "mul_f32_scalar", op: "mul", attrs: right(ops.FloatScalar(0.05, tensor.Float32)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "scalar_mul", op: "mul", attrs: left(f(-3)), ins: []*tensor.Dense{randn(4)}},
		{name: "div_scalar", op: "div", attrs: right(f(1.7)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "scalar_div", op: "div", attrs: left(f(2)), ins: []*tensor.Dense{pos(2, 3)}},
		{name: "mod_scalar", op: "mod", attrs: right(f(10)), ins: []*tensor.Dense{pos(2, 3)}},
		{name: "scalar_mod", op: "mod", attrs: left(f(0.25)), ins: []*tensor.Dense{pos(3)}},
		{name: "pow_scalar", op: "pow", attrs: right(f(3)), ins: []*tensor.Dense{pos(2, 3)}},
		{name: "pow_int_scalar", op: "pow", attrs: right(ops.IntScalar(2)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "scalar_pow", op: "pow", attrs: left(f(2)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "maximum_scalar", op: "maximum", attrs: right(f(0.1)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "scalar_minimum", op: "minimum", attrs: left(f(-0.2)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "atan2_scalar", op: "atan2", attrs: right(f(-0.7)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "scalar_atan2", op: "atan2", attrs: left(f(0.3)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "fmod_scalar", op: "fmod", attrs: right(f(0.3)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "scalar_fmod", op: "fmod", attrs: left(f(-2.5)), ins: []*tensor.Dense{pos(3)}},
		{name: "hypot_scalar", op: "hypot", attrs: right(f(1.5)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "scalar_copysign", op: "copysign", attrs: left(f(2)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "copysign_scalar", op: "copysign", attrs: right(f(-1)), ins: []*tensor.Dense{randn(2, 3)}},
		{name: "scalar_zeta", op: "zeta", attrs: left(f(2.5)), ins: []*tensor.Dense{pos(2, 3)}},
		{name: "scalar_gammainc", op: "gammainc", attrs: left(f(1.7)), ins: []*tensor.Dense{pos(2, 3)}},
		{name: "scalar_gammaincc", op: "gammaincc", attrs: left(ops.FloatScalar(0.6, tensor.Float32)), ins: []*tensor.Dense{pos(3)}},
		{name: "where_scalar", op: "where", attrs: right(f(0)), ins: []*tensor.Dense{mask(2, 3), randn(2, 3)}},
		{name: "where_scalar_first", op: "where", attrs: left(f(-1.5)), ins: []*tensor.Dense{mask(2, 3), randn(3)}},
	}
}

// opCounter counts the ops a runtime makes, by name.
type opCounter map[string]int

func (c opCounter) Created(_ *refs.Ref, op *refs.Op) {
	if op != nil {
		c[op.Op.Name()]++
	}
}

func (opCounter) Read(*refs.Ref) {}

// TestSlicesAccumulateWhereTheyLand: the cotangents of many slices of
// one tensor (overlapping, positions, steps) sum to the dense gradient,
// and only the first is made full-size (index_backward); the others are
// added into the part of the sum they slice.
func TestSlicesAccumulateWhereTheyLand(t *testing.T) {
	rt := newRT()
	xd := randn(6, 4)
	x := rt.FromHost(refs.Site{}, xd)
	tape := autograd.Start(rt, []*refs.Ref{x})
	items := [][]ops.IndexItem{
		{{Kind: ops.IndexAt, At: 0}},
		{slice(0, 3, 1)},
		{slice(1, 4, 1)},
		{{Kind: ops.IndexAt, At: 5}, slice(1, 4, 2)},
		{ops.FullSlice, slice(0, 4, 3)},
		{slice(5, 0, -2)},
	}
	want := make([]float64, xd.Numel())
	var loss *refs.Ref
	for k, it := range items {
		p, err := rt.Submit(refs.Site{}, ops.Index, ops.IndexAttrs{Items: it}, x)
		if err != nil {
			t.Fatal(err)
		}
		// Σ p·(k+1): x's gradient gains k+1 where the slice reads
		s, _ := rt.Submit(refs.Site{}, ops.Sum, ops.ReduceAttrs{}, p)
		ks, _ := rt.Submit(refs.Site{}, ops.Mul, ops.ScalarOperand{Value: ops.FloatScalar(float64(k+1), tensor.Float64)}, s)
		rt.Release(p)
		rt.Release(s)
		if loss == nil {
			loss = ks
		} else {
			n, _ := rt.Submit(refs.Site{}, ops.Add, nil, loss, ks)
			rt.Release(loss)
			rt.Release(ks)
			loss = n
		}
	}
	// the expected gradient, by reading each slice's positions
	for k, it := range items {
		pos := tensor.NewDense(tensor.Meta{Shape: xd.Shape, DType: tensor.Float64})
		for i := range pos.Numel() {
			pos.Set(i, float64(i))
		}
		pr := rt.FromHost(refs.Site{}, pos)
		sel, err := rt.Submit(refs.Site{}, ops.Index, ops.IndexAttrs{Items: it}, pr)
		if err != nil {
			t.Fatal(err)
		}
		d, err := rt.Read(sel)
		if err != nil {
			t.Fatal(err)
		}
		for i := range d.Numel() {
			want[int(d.At(i))] += float64(k + 1)
		}
		rt.Release(sel)
		rt.Release(pr)
	}
	count := opCounter{}
	rt.SetObserver(count)
	cot, err := tape.Backward(loss)
	if err != nil {
		t.Fatal(err)
	}
	rt.SetObserver(nil)
	g, err := rt.Read(cot[x])
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if g.At(i) != w {
			t.Fatalf("gradient %v, want %v", g.F64(), want)
		}
	}
	if count["index_backward"] != 1 || count["index_assign"] != len(items)-1 {
		t.Errorf("backward made %d index_backward and %d index_assign ops, want 1 and %d", count["index_backward"], count["index_assign"], len(items)-1)
	}
	for _, r := range []*refs.Ref{cot[x], loss, x} {
		rt.Release(r)
	}
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs alive", n)
	}
}
