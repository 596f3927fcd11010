package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// AvgPool2dAttrs are the attributes of "avg_pool2d" (input [N, C, H, W] or
// [C, H, W]), as torch.nn.functional.avg_pool2d: zero padding on both
// sides; each window's sum is divided by DivisorOverride when it is not 0,
// else by the window's size clipped to the padded input
// (CountIncludePad) or to the input alone.
type AvgPool2dAttrs struct {
	Kernel, Stride, Padding [2]int
	CeilMode                bool
	CountIncludePad         bool
	DivisorOverride         int
}

// AdaptivePool2dAttrs are the attributes of "adaptive_avg_pool2d": the
// output's height and width. Output row i averages input rows
// floor(i·H/OH) to ceil((i+1)·H/OH), as in torch.
type AdaptivePool2dAttrs struct {
	Out [2]int
}

// The averaging pools.
var (
	// AvgPool2d is avg_pool2d(x) with AvgPool2dAttrs.
	AvgPool2d = Register(&Def{Name: "avg_pool2d", Infer: inferAvgPool2d, Flops: avgPoolFlops})
	// AdaptiveAvgPool2d is adaptive_avg_pool2d(x) with AdaptivePool2dAttrs.
	AdaptiveAvgPool2d = Register(&Def{Name: "adaptive_avg_pool2d", Infer: inferAdaptiveAvgPool2d, Flops: nnInputElements(1)})
)

// AvgPool2dLayout checks avg_pool2d's input and attributes and lays out the
// result.
func AvgPool2dLayout(x tensor.Shape, a AvgPool2dAttrs) (ConvDims, error) {
	const op = "avg_pool2d"
	d, err := convImage(op, x)
	if err != nil {
		return d, err
	}
	if err := checkPairs(op, map[string][2]int{"kernel": a.Kernel, "stride": a.Stride, "padding": a.Padding},
		map[string]int{"kernel": 1, "stride": 1, "padding": 0}); err != nil {
		return d, err
	}
	for i := range 2 {
		if a.Padding[i] > a.Kernel[i]/2 {
			return d, fmt.Errorf("avg_pool2d: padding %s must be at most half of the kernel %s", pair(a.Padding), pair(a.Kernel))
		}
	}
	if a.DivisorOverride < 0 {
		return d, fmt.Errorf("avg_pool2d: divisor_override must be positive, got %d", a.DivisorOverride)
	}
	d.KH, d.KW, d.OutC = a.Kernel[0], a.Kernel[1], d.C
	if d.OH, err = windowOut(op, "height", d.H, d.KH, a.Stride[0], a.Padding[0], a.Padding[0], 1, a.CeilMode); err != nil {
		return d, err
	}
	if d.OW, err = windowOut(op, "width", d.W, d.KW, a.Stride[1], a.Padding[1], a.Padding[1], 1, a.CeilMode); err != nil {
		return d, err
	}
	d.Shape = poolShape(d)
	return d, nil
}

// poolShape is the result shape of a pooling laid out in d.
func poolShape(d ConvDims) tensor.Shape {
	if d.Unbatched {
		return tensor.Shape{d.C, d.OH, d.OW}
	}
	return tensor.Shape{d.Batch, d.C, d.OH, d.OW}
}

// poolFloatDType is the dtype of the averaging pools: floats only, as
// torch's cpu kernels.
func poolFloatDType(op string, dt tensor.DType) (tensor.DType, error) {
	if !dt.IsFloat() {
		return tensor.Invalid, fmt.Errorf("%s: expected a floating-point tensor, got %s", op, dt)
	}
	return dt, nil
}

func inferAvgPool2d(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[AvgPool2dAttrs]("avg_pool2d", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	dt, err := poolFloatDType("avg_pool2d", x.DType)
	if err != nil {
		return tensor.Meta{}, err
	}
	d, err := AvgPool2dLayout(x.Shape, a)
	if err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: d.Shape, DType: dt}, nil
}

func avgPoolFlops(in []tensor.Meta, out tensor.Meta, attrs any) int64 {
	a, err := AttrsAs[AvgPool2dAttrs]("avg_pool2d", attrs)
	if err != nil {
		return 0
	}
	return int64(out.Shape.Numel()) * int64(a.Kernel[0]*a.Kernel[1])
}

// AdaptiveAvgPool2dLayout checks adaptive_avg_pool2d's input and output size and
// lays out the result.
func AdaptiveAvgPool2dLayout(x tensor.Shape, a AdaptivePool2dAttrs) (ConvDims, error) {
	const op = "adaptive_avg_pool2d"
	d, err := convImage(op, x)
	if err != nil {
		return d, err
	}
	if a.Out[0] < 0 || a.Out[1] < 0 {
		return d, fmt.Errorf("%s: output_size must be non-negative, got %s", op, pair(a.Out))
	}
	if (d.H == 0 || d.W == 0) && a.Out[0]*a.Out[1] != 0 {
		return d, fmt.Errorf("%s: input %v has an empty plane, cannot pool it to %s", op, x, pair(a.Out))
	}
	d.OutC, d.OH, d.OW = d.C, a.Out[0], a.Out[1]
	d.Shape = poolShape(d)
	return d, nil
}

func inferAdaptiveAvgPool2d(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[AdaptivePool2dAttrs]("adaptive_avg_pool2d", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	dt, err := poolFloatDType("adaptive_avg_pool2d", x.DType)
	if err != nil {
		return tensor.Meta{}, err
	}
	d, err := AdaptiveAvgPool2dLayout(x.Shape, a)
	if err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: d.Shape, DType: dt}, nil
}

// AdaptiveRange is the input span [lo, hi) that output position i of n
// averages over an input of size size.
func AdaptiveRange(i, n, size int) (lo, hi int) {
	return i * size / n, ((i+1)*size + n - 1) / n
}
