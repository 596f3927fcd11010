package torch

import (
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// nnConformanceRows covers pooling, padding, transposed convolution,
// batch_norm, nll_loss and the fused backward ops (positive keeps batch_norm's variance positive
// and nll_loss's int targets in 1..5, inside its 6 classes).
func nnConformanceRows() []opCase {
	return []opCase{
		{op: ops.AvgPool2d, in: []tensor.Meta{m(f32, 2, 3, 9, 8)},
			attrs: ops.AvgPool2dAttrs{Kernel: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, CeilMode: true}},
		{op: ops.AvgPool2d, in: []tensor.Meta{m(f64, 3, 6, 6)},
			attrs: ops.AvgPool2dAttrs{Kernel: [2]int{2, 3}, Stride: [2]int{2, 1}, Padding: [2]int{1, 1}, DivisorOverride: 5}},
		{op: ops.AdaptiveAvgPool2d, in: []tensor.Meta{m(f32, 2, 3, 7, 5)}, attrs: ops.AdaptivePool2dAttrs{Out: [2]int{3, 4}}},
		{op: ops.Pad, in: []tensor.Meta{m(f32, 2, 3, 4, 5)}, attrs: ops.PadAttrs{Pads: []int{1, 2, -1, 1}, Value: 1.5}},
		{op: ops.Pad, in: []tensor.Meta{m(i64, 2, 5)}, attrs: ops.PadAttrs{Pads: []int{2, 1}, Value: 3}},
		{op: ops.Pad, in: []tensor.Meta{m(f32, 2, 3, 4, 5)}, attrs: ops.PadAttrs{Pads: []int{1, 2, 3, 1}, Mode: ops.PadReflect}},
		{op: ops.Pad, in: []tensor.Meta{m(f64, 2, 3, 5)}, attrs: ops.PadAttrs{Pads: []int{3, 1}, Mode: ops.PadReplicate}},
		{op: ops.Pad, in: []tensor.Meta{m(f32, 1, 2, 3, 4, 5)}, attrs: ops.PadAttrs{Pads: []int{1, 1, 2, 0, 1, 2}, Mode: ops.PadCircular}},
		{op: ops.ConvTranspose2d, in: []tensor.Meta{m(f32, 2, 4, 5, 5), m(f32, 4, 3, 3, 3), m(f32, 6)},
			attrs: ops.ConvTranspose2dAttrs{Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, OutputPadding: [2]int{1, 0}, Dilation: [2]int{1, 1}, Groups: 2}},
		{op: ops.ConvTranspose2d, in: []tensor.Meta{m(f64, 3, 4, 4), m(f64, 3, 2, 2, 2)},
			attrs: ops.ConvTranspose2dAttrs{Stride: [2]int{1, 1}, Dilation: [2]int{2, 1}, Groups: 1}},
		{op: ops.BatchNorm, in: []tensor.Meta{m(f32, 4, 3, 5), m(f32, 3), m(f32, 3), m(f32, 3), m(f32, 3)},
			attrs: ops.BatchNormAttrs{Eps: 1e-5, HasWeight: true, HasBias: true}, positive: true},
		{op: ops.BatchNorm, in: []tensor.Meta{m(f64, 2, 3), m(f64, 3), m(f64, 3)}, attrs: ops.BatchNormAttrs{Eps: 0.1}, positive: true},
		{op: ops.NllLoss, in: []tensor.Meta{m(f32, 4, 6), m(i64, 4)}, attrs: ops.NllLossAttrs{IgnoreIndex: 3}, positive: true},
		// Halves: libtorch 1.13 has no cpu kernels of these for float16;
		// the plugin computes them in float32 as the cpu backend does.
		{op: ops.Pad, in: []tensor.Meta{m(tensor.Float16, 2, 3, 5)}, attrs: ops.PadAttrs{Pads: []int{2, 1}, Mode: ops.PadReflect}},
		{op: ops.AdaptiveAvgPool2d, in: []tensor.Meta{m(tensor.Float16, 1, 2, 4, 4)}, attrs: ops.AdaptivePool2dAttrs{Out: [2]int{2, 2}}},
		{op: ops.AvgPool2d, in: []tensor.Meta{m(tensor.BFloat16, 1, 2, 4, 4)},
			attrs: ops.AvgPool2dAttrs{Kernel: [2]int{2, 2}, Stride: [2]int{2, 2}, CountIncludePad: true}},
		{op: ops.BatchNorm, in: []tensor.Meta{m(tensor.Float16, 2, 3, 2), m(f32, 3), m(f32, 3)}, attrs: ops.BatchNormAttrs{Eps: 1e-5}, positive: true},
		{op: ops.NllLoss, in: []tensor.Meta{m(tensor.Float16, 4, 6), m(i64, 4)}, attrs: ops.NllLossAttrs{IgnoreIndex: -100}, positive: true},
		{op: ops.Conv2d, in: []tensor.Meta{m(tensor.Float16, 1, 2, 5, 5), m(tensor.Float16, 3, 2, 3, 3)},
			attrs: ops.Conv2dAttrs{Stride: [2]int{1, 1}, PadLo: [2]int{1, 1}, PadHi: [2]int{1, 1}, Dilation: [2]int{1, 1}, Groups: 1}},
		{op: ops.Attention, in: []tensor.Meta{m(tensor.BFloat16, 2, 3, 4), m(tensor.BFloat16, 2, 5, 4), m(tensor.BFloat16, 2, 5, 4)}, attrs: ops.AttentionAttrs{}},
		{op: ops.NllLoss, in: []tensor.Meta{m(f32, 3, 6, 2), m(i64, 3, 2), m(f32, 6)},
			attrs: ops.NllLossAttrs{Reduction: ops.ReduceNone, IgnoreIndex: 2, HasWeight: true, LabelSmoothing: 0.2}, positive: true},
		// [N, C, d...] goes to torch's loss over rows (nll_loss_rows).
		{op: ops.NllLoss, in: []tensor.Meta{m(f32, 2, 6, 3, 2), m(i64, 2, 3, 2), m(f32, 6)},
			attrs: ops.NllLossAttrs{IgnoreIndex: 2, HasWeight: true}, positive: true},
		{op: ops.NllLoss, in: []tensor.Meta{m(f64, 3, 6, 4), m(i64, 3, 4)}, attrs: ops.NllLossAttrs{Reduction: ops.ReduceSum, IgnoreIndex: -100}, positive: true},
		{op: ops.NllLoss, in: []tensor.Meta{m(f64, 6), m(i64), m(f64, 6)},
			attrs: ops.NllLossAttrs{Reduction: ops.ReduceSum, IgnoreIndex: -100, HasWeight: true, LabelSmoothing: 0.1}, positive: true},
		{op: ops.NllLoss, in: []tensor.Meta{m(f32, 5, 6), m(i64, 5), m(f32, 6)},
			attrs: ops.NllLossAttrs{IgnoreIndex: 1, HasWeight: true, LabelSmoothing: 0.3}, positive: true},
		// The fused backward ops of the nn family.
		{op: ops.SoftmaxBackward, attrs: ops.SoftmaxAttrs{Dim: 1}, in: []tensor.Meta{m(f32, 2, 3, 2), m(f32, 2, 3, 2)}},
		{op: ops.LogSoftmaxBackward, attrs: ops.SoftmaxAttrs{Dim: -1}, in: []tensor.Meta{m(f64, 3, 4), m(f64, 3, 4)}},
		{op: ops.AttentionWeights, attrs: ops.AttentionAttrs{Causal: true}, in: []tensor.Meta{m(f32, 2, 4, 3), m(f32, 2, 5, 3)}},
		{op: ops.AttentionWeights, attrs: ops.AttentionAttrs{Scale: 0.5, HasScale: true}, in: []tensor.Meta{m(f64, 2, 1, 4, 3), m(f64, 3, 5, 3)}},
		{op: ops.NormBackward, attrs: ops.NormBackwardAttrs{Eps: 1e-5, HasWeight: true}, in: []tensor.Meta{m(f32, 2, 3, 4), m(f32, 4), m(f32, 2, 3, 4)}},
		{op: ops.NormBackward, attrs: ops.NormBackwardAttrs{Eps: 1e-6, RMS: true}, in: []tensor.Meta{m(f64, 3, 5), m(f64, 3, 5)}},
		{op: ops.NormBackwardWeight, attrs: ops.NormBackwardAttrs{Eps: 1e-5}, in: []tensor.Meta{m(f32, 2, 3, 4), m(f32, 2, 3, 4)}},
		{op: ops.NormBackwardWeight, attrs: ops.NormBackwardAttrs{Eps: 1e-6, RMS: true}, in: []tensor.Meta{m(f32, 3, 4), m(f32, 3, 4)}},
	}
}
