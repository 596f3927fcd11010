package torch

import "github.com/tref-lang/tref/runtime/ops"

// marshalNN lays out the attributes of the pooling, padding, transposed
// convolution, batch_norm, nll_loss and norm_backward ops, and of the
// backward kernels of convolutions, pools and pad (the layouts are
// documented next to each op in nn_registry and backward_registry in
// csrc/tref_torch.cpp).
func marshalNN(attrs any) (ia []int64, fa []float64, ok bool) {
	switch a := attrs.(type) {
	case ops.AvgPool2dAttrs:
		return []int64{int64(a.Kernel[0]), int64(a.Kernel[1]), int64(a.Stride[0]), int64(a.Stride[1]),
			int64(a.Padding[0]), int64(a.Padding[1]), b2i(a.CeilMode), b2i(a.CountIncludePad), int64(a.DivisorOverride)}, nil, true
	case ops.AdaptivePool2dAttrs:
		return []int64{int64(a.Out[0]), int64(a.Out[1])}, nil, true
	case ops.PadAttrs:
		return append([]int64{int64(a.Mode)}, ints(a.Pads)...), []float64{a.Value}, true
	case ops.ConvTranspose2dAttrs:
		return []int64{int64(a.Stride[0]), int64(a.Stride[1]), int64(a.Padding[0]), int64(a.Padding[1]),
			int64(a.OutputPadding[0]), int64(a.OutputPadding[1]), int64(a.Dilation[0]), int64(a.Dilation[1]), int64(a.Groups)}, nil, true
	case ops.NllLossAttrs:
		return []int64{int64(a.Reduction), int64(a.IgnoreIndex), b2i(a.HasWeight)}, []float64{a.LabelSmoothing}, true
	case ops.BatchNormAttrs:
		return []int64{b2i(a.HasWeight), b2i(a.HasBias)}, []float64{a.Eps}, true
	case ops.NormBackwardAttrs:
		return []int64{b2i(a.HasWeight), b2i(a.RMS)}, []float64{a.Eps}, true
	case ops.Conv2dBackwardAttrs:
		return append(conv2d(a.Conv), ints(a.Shape)...), nil, true
	case ops.PoolBackwardAttrs:
		// The forward pool's attributes, then the input's shape.
		switch a.Pool.(type) {
		case ops.AvgPool2dAttrs, ops.AdaptivePool2dAttrs:
			ia, _, _ := marshalNN(a.Pool)
			return append(ia, ints(a.Shape)...), nil, true
		}
	case ops.PadBackwardAttrs:
		ia, fa, _ := marshalNN(a.Pad)
		return append(ia, ints(a.Shape)...), fa, true
	}
	return nil, nil, false
}
