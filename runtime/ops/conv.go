package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Conv2dAttrs are the attributes of "conv2d" (inputs x [N, C, H, W] or
// [C, H, W], weight [Cout, C/Groups, kh, kw], and an optional bias
// [Cout]). Pairs are (height, width); PadLo pads the top and left, PadHi
// the bottom and right (they differ only for padding="same" with an even
// kernel, as in PyTorch).
type Conv2dAttrs struct {
	Stride, PadLo, PadHi, Dilation [2]int
	Groups                         int
}

// Pool2dAttrs are the attributes of "max_pool2d" (input [N, C, H, W] or
// [C, H, W]); padding is implicit -inf on both sides.
type Pool2dAttrs struct {
	Kernel, Stride, Padding, Dilation [2]int
	CeilMode                          bool
}

// The convolution and pooling ops.
var (
	// Conv2d is conv2d(x, w[, bias]) with Conv2dAttrs.
	Conv2d = Register(&Def{Name: "conv2d", Infer: inferConv2d, Flops: conv2dFlops})
	// MaxPool2d is max_pool2d(x) with Pool2dAttrs.
	MaxPool2d = Register(&Def{Name: "max_pool2d", Infer: inferMaxPool2d})
)

// ConvDims is the layout of one conv2d or pooling: Batch images (1 for an
// unbatched input) of C channels of H×W, giving OutC channels of OH×OW.
type ConvDims struct {
	Batch, C, H, W     int
	OutC, OH, OW       int
	KH, KW             int
	Unbatched          bool
	Shape              tensor.Shape // the result's
	ChannelsPerGroupIn int          // C / groups (conv2d)
}

// convImage reads x as [N, C, H, W] or [C, H, W].
func convImage(op string, x tensor.Shape) (d ConvDims, err error) {
	switch len(x) {
	case 4:
		d.Batch, d.C, d.H, d.W = x[0], x[1], x[2], x[3]
	case 3:
		d.Batch, d.C, d.H, d.W, d.Unbatched = 1, x[0], x[1], x[2], true
	default:
		return d, fmt.Errorf("%s: expected an input of shape [N, C, H, W] or [C, H, W], got %v", op, x)
	}
	return d, nil
}

// windowOut is the number of windows of a kernel of size k (dilated by dil)
// sliding by stride over n padded by lo and hi, or an error naming the
// dimension when none fits.
func windowOut(op, what string, n, k, stride, lo, hi, dil int, ceil bool) (int, error) {
	span := dil*(k-1) + 1
	room := n + lo + hi - span
	if room < 0 {
		return 0, fmt.Errorf("%s: the %s %d (padded to %d) is smaller than the kernel extent %d", op, what, n, n+lo+hi, span)
	}
	out := room/stride + 1
	if ceil {
		out = (room+stride-1)/stride + 1
		// The last window must start inside the input or the left padding.
		if (out-1)*stride >= n+lo {
			out--
		}
	}
	return out, nil
}

func checkPairs(op string, pairs map[string][2]int, minimum map[string]int) error {
	for _, name := range []string{"stride", "padding", "dilation", "kernel"} {
		p, ok := pairs[name]
		if !ok {
			continue
		}
		for _, v := range p {
			if v < minimum[name] {
				return fmt.Errorf("%s: %s must be at least %d, got %s", op, name, minimum[name], pair(p))
			}
		}
	}
	return nil
}

// pair formats a (height, width) pair the way shapes print: [1, 2].
func pair(p [2]int) string { return tensor.Shape(p[:]).String() }

// Conv2dLayout checks conv2d's operands and lays out the result.
func Conv2dLayout(x, w tensor.Shape, bias *tensor.Shape, a Conv2dAttrs) (ConvDims, error) {
	const op = "conv2d"
	d, err := convImage(op, x)
	if err != nil {
		return d, err
	}
	if len(w) != 4 {
		return d, fmt.Errorf("conv2d: expected a weight of shape [Cout, Cin/groups, kh, kw], got %v", w)
	}
	if err := checkPairs(op, map[string][2]int{"stride": a.Stride, "dilation": a.Dilation}, map[string]int{"stride": 1, "dilation": 1}); err != nil {
		return d, err
	}
	if min(a.PadLo[0], a.PadLo[1], a.PadHi[0], a.PadHi[1]) < 0 {
		return d, fmt.Errorf("conv2d: padding must be non-negative, got %s and %s", pair(a.PadLo), pair(a.PadHi))
	}
	if a.Groups < 1 {
		return d, fmt.Errorf("conv2d: groups must be at least 1, got %d", a.Groups)
	}
	d.OutC, d.KH, d.KW = w[0], w[2], w[3]
	if d.C%a.Groups != 0 || d.OutC%a.Groups != 0 {
		return d, fmt.Errorf("conv2d: %d input and %d output channels are not divisible by groups=%d", d.C, d.OutC, a.Groups)
	}
	d.ChannelsPerGroupIn = d.C / a.Groups
	if w[1] != d.ChannelsPerGroupIn {
		return d, fmt.Errorf("conv2d: input %v has %d channels, weight %v expects %d (×%d groups)", x, d.C, w, w[1], a.Groups)
	}
	if d.KH == 0 || d.KW == 0 {
		return d, fmt.Errorf("conv2d: the kernel of weight %v is empty", w)
	}
	if bias != nil && (len(*bias) != 1 || (*bias)[0] != d.OutC) {
		return d, fmt.Errorf("conv2d: bias of shape %v, expected [%d]", *bias, d.OutC)
	}
	if d.OH, err = windowOut(op, "height", d.H, d.KH, a.Stride[0], a.PadLo[0], a.PadHi[0], a.Dilation[0], false); err != nil {
		return d, err
	}
	if d.OW, err = windowOut(op, "width", d.W, d.KW, a.Stride[1], a.PadLo[1], a.PadHi[1], a.Dilation[1], false); err != nil {
		return d, err
	}
	d.Shape = tensor.Shape{d.Batch, d.OutC, d.OH, d.OW}
	if d.Unbatched {
		d.Shape = d.Shape[1:]
	}
	return d, nil
}

// FloatDType is the dtype of ops that only compute in floating point
// (conv2d, conv_transpose2d, attention): the promotion of the operands,
// which must be a float type (halves compute in float32 and round back).
func FloatDType(op string, in []tensor.Meta) (tensor.DType, error) {
	dt := PromoteAll(in)
	if !dt.IsFloat() {
		return tensor.Invalid, fmt.Errorf("%s: expected float32 or float64 tensors, got %s (float16 and bfloat16 work too)", op, describeDTypes(in))
	}
	return dt, nil
}

func describeDTypes(in []tensor.Meta) string {
	s := ""
	for i, m := range in {
		if i > 0 {
			s += ", "
		}
		s += m.DType.String()
	}
	return s
}

func inferConv2d(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	a, err := AttrsAs[Conv2dAttrs]("conv2d", attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if len(in) != 2 && len(in) != 3 {
		return tensor.Meta{}, fmt.Errorf("conv2d takes x, a weight and an optional bias, got %d tensors", len(in))
	}
	var bias *tensor.Shape
	if len(in) == 3 {
		bias = &in[2].Shape
	}
	d, err := Conv2dLayout(in[0].Shape, in[1].Shape, bias, a)
	if err != nil {
		return tensor.Meta{}, err
	}
	dt, err := FloatDType("conv2d", in)
	if err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: d.Shape, DType: dt}, nil
}

func conv2dFlops(in []tensor.Meta, out tensor.Meta, _ any) int64 {
	w := in[1].Shape
	if len(w) != 4 {
		return 0
	}
	return 2 * int64(out.Shape.Numel()) * int64(w[1]) * int64(w[2]) * int64(w[3])
}

// MaxPool2dLayout checks max_pool2d's input and attributes and lays out the
// result.
func MaxPool2dLayout(x tensor.Shape, a Pool2dAttrs) (ConvDims, error) {
	const op = "max_pool2d"
	d, err := convImage(op, x)
	if err != nil {
		return d, err
	}
	if err := checkPairs(op, map[string][2]int{"kernel": a.Kernel, "stride": a.Stride, "padding": a.Padding, "dilation": a.Dilation},
		map[string]int{"kernel": 1, "stride": 1, "padding": 0, "dilation": 1}); err != nil {
		return d, err
	}
	for i := range 2 {
		if a.Padding[i] > a.Kernel[i]/2 {
			return d, fmt.Errorf("max_pool2d: padding %s must be at most half of the kernel %s", pair(a.Padding), pair(a.Kernel))
		}
	}
	d.KH, d.KW, d.OutC = a.Kernel[0], a.Kernel[1], d.C
	if d.OH, err = windowOut(op, "height", d.H, d.KH, a.Stride[0], a.Padding[0], a.Padding[0], a.Dilation[0], a.CeilMode); err != nil {
		return d, err
	}
	if d.OW, err = windowOut(op, "width", d.W, d.KW, a.Stride[1], a.Padding[1], a.Padding[1], a.Dilation[1], a.CeilMode); err != nil {
		return d, err
	}
	d.Shape = tensor.Shape{d.Batch, d.C, d.OH, d.OW}
	if d.Unbatched {
		d.Shape = d.Shape[1:]
	}
	return d, nil
}

func inferMaxPool2d(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[Pool2dAttrs]("max_pool2d", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if x.DType == tensor.Bool || x.DType == tensor.Float16 || x.DType == tensor.BFloat16 {
		return tensor.Meta{}, fmt.Errorf("max_pool2d: expected a float32, float64, int64 or uint8 tensor, got %s", x.DType)
	}
	d, err := MaxPool2dLayout(x.Shape, a)
	if err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: d.Shape, DType: x.DType}, nil
}
