package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// BatchNormAttrs are the attributes of "batch_norm": inputs x [N, C, ...]
// (or [N, C]), the per-channel mean and variance to normalise with, then
// the weight when HasWeight and the bias when HasBias, all of shape [C]:
// out = (x - mean) / sqrt(var + Eps) · weight + bias, channel by channel.
// The statistics are inputs, so the op serves evaluation (running
// statistics) and training (batch statistics computed by reductions).
type BatchNormAttrs struct {
	Eps       float64
	HasWeight bool
	HasBias   bool
}

// BatchNorm is batch_norm(x, mean, var[, weight][, bias]) with
// BatchNormAttrs; its result may take over x's buffer.
var BatchNorm = Register(&Def{Name: "batch_norm", Infer: inferBatchNorm, Flops: nnPerElement(2), Inplace: []int{0}})

func inferBatchNorm(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	a, err := AttrsAs[BatchNormAttrs]("batch_norm", attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	want := 3
	names := []string{"running_mean", "running_var"}
	if a.HasWeight {
		want++
		names = append(names, "weight")
	}
	if a.HasBias {
		want++
		names = append(names, "bias")
	}
	if len(in) != want {
		return tensor.Meta{}, fmt.Errorf("batch_norm: got %d tensors, the attributes call for %d", len(in), want)
	}
	x := in[0]
	if len(x.Shape) < 2 {
		return tensor.Meta{}, fmt.Errorf("batch_norm: expected an input of shape [N, C, ...], got %v", x.Shape)
	}
	c := x.Shape[1]
	for i, m := range in[1:] {
		if len(m.Shape) != 1 || m.Shape[0] != c {
			return tensor.Meta{}, fmt.Errorf("batch_norm: input %v has %d channels, but %s has shape %v", x.Shape, c, names[i], m.Shape)
		}
	}
	if !x.DType.IsFloat() {
		return tensor.Meta{}, fmt.Errorf("batch_norm: expected a floating-point input, got %s", x.DType)
	}
	return tensor.Meta{Shape: x.Shape, DType: x.DType}, nil
}
