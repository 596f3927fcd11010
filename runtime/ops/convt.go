package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// ConvTranspose2dAttrs are the attributes of "conv_transpose2d" (inputs x
// [N, C, H, W] or [C, H, W], weight [C, Cout/Groups, kh, kw], and an
// optional bias [Cout]), as torch.nn.functional.conv_transpose2d: the
// result has (H-1)·stride - 2·padding + dilation·(kh-1) + output_padding + 1
// rows. Pairs are (height, width).
type ConvTranspose2dAttrs struct {
	Stride, Padding, OutputPadding, Dilation [2]int
	Groups                                   int
}

// ConvTranspose2d is conv_transpose2d(x, w[, bias]) with
// ConvTranspose2dAttrs.
var ConvTranspose2d = Register(&Def{Name: "conv_transpose2d", Infer: inferConvTranspose2d, Flops: convTranspose2dFlops})

// ConvTranspose2dLayout checks conv_transpose2d's operands and lays out the
// result (C is the input's channels, OutC the result's).
func ConvTranspose2dLayout(x, w tensor.Shape, bias *tensor.Shape, a ConvTranspose2dAttrs) (ConvDims, error) {
	const op = "conv_transpose2d"
	d, err := convImage(op, x)
	if err != nil {
		return d, err
	}
	if len(w) != 4 {
		return d, fmt.Errorf("%s: expected a weight of shape [Cin, Cout/groups, kh, kw], got %v", op, w)
	}
	if err := checkPairs(op, map[string][2]int{"stride": a.Stride, "dilation": a.Dilation, "padding": a.Padding},
		map[string]int{"stride": 1, "dilation": 1, "padding": 0}); err != nil {
		return d, err
	}
	if a.Groups < 1 {
		return d, fmt.Errorf("%s: groups must be at least 1, got %d", op, a.Groups)
	}
	for i := range 2 {
		if a.OutputPadding[i] < 0 || (a.OutputPadding[i] >= a.Stride[i] && a.OutputPadding[i] >= a.Dilation[i]) {
			return d, fmt.Errorf("%s: output_padding %s must be non-negative and smaller than either stride %s or dilation %s",
				op, pair(a.OutputPadding), pair(a.Stride), pair(a.Dilation))
		}
	}
	if w[0] != d.C {
		return d, fmt.Errorf("%s: input %v has %d channels, weight %v expects %d", op, x, d.C, w, w[0])
	}
	if d.C%a.Groups != 0 {
		return d, fmt.Errorf("%s: %d input channels are not divisible by groups=%d", op, d.C, a.Groups)
	}
	d.ChannelsPerGroupIn = d.C / a.Groups
	d.OutC, d.KH, d.KW = w[1]*a.Groups, w[2], w[3]
	if d.KH == 0 || d.KW == 0 {
		return d, fmt.Errorf("%s: the kernel of weight %v is empty", op, w)
	}
	if bias != nil && (len(*bias) != 1 || (*bias)[0] != d.OutC) {
		return d, fmt.Errorf("%s: bias of shape %v, expected [%d]", op, *bias, d.OutC)
	}
	d.OH = (d.H-1)*a.Stride[0] - 2*a.Padding[0] + a.Dilation[0]*(d.KH-1) + a.OutputPadding[0] + 1
	d.OW = (d.W-1)*a.Stride[1] - 2*a.Padding[1] + a.Dilation[1]*(d.KW-1) + a.OutputPadding[1] + 1
	if d.OH <= 0 || d.OW <= 0 {
		return d, fmt.Errorf("%s: input %v with weight %v gives an output of %d×%d; padding %s is too large",
			op, x, w, d.OH, d.OW, pair(a.Padding))
	}
	d.Shape = tensor.Shape{d.Batch, d.OutC, d.OH, d.OW}
	if d.Unbatched {
		d.Shape = d.Shape[1:]
	}
	if _, err := tensor.CheckedNumel(d.Shape); err != nil {
		return d, fmt.Errorf("%s: result %v: %v", op, d.Shape, err)
	}
	return d, nil
}

func inferConvTranspose2d(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	a, err := AttrsAs[ConvTranspose2dAttrs]("conv_transpose2d", attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if len(in) != 2 && len(in) != 3 {
		return tensor.Meta{}, fmt.Errorf("conv_transpose2d takes x, a weight and an optional bias, got %d tensors", len(in))
	}
	var bias *tensor.Shape
	if len(in) == 3 {
		bias = &in[2].Shape
	}
	d, err := ConvTranspose2dLayout(in[0].Shape, in[1].Shape, bias, a)
	if err != nil {
		return tensor.Meta{}, err
	}
	dt, err := FloatDType("conv_transpose2d", in)
	if err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: d.Shape, DType: dt}, nil
}

func convTranspose2dFlops(in []tensor.Meta, _ tensor.Meta, _ any) int64 {
	w := in[1].Shape
	if len(w) != 4 {
		return 0
	}
	return 2 * int64(in[0].Shape.Numel()) * int64(w[1]) * int64(w[2]) * int64(w[3])
}
