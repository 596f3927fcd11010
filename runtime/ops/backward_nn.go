package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Fused backward ops of the nn family: softmax's and log_softmax's
// gradients in one pass over each row, and the attention weights that
// attention's gradient recomputes, instead of the seven to twelve ops each
// was composed of. Their own rules (grad of grad) are in nn_grad.go.

var (
	// SoftmaxBackward(out, g) is softmax's gradient from its result:
	// out·(g - Σ g·out) over SoftmaxAttrs' dim.
	SoftmaxBackward = Register(&Def{Name: "softmax_backward", Infer: inferSoftmaxBackward("softmax_backward"), Flops: nnPerElement(4)})
	// LogSoftmaxBackward(out, g) is log_softmax's gradient from its
	// result: g - exp(out)·Σ g over SoftmaxAttrs' dim.
	LogSoftmaxBackward = Register(&Def{Name: "log_softmax_backward", Infer: inferSoftmaxBackward("log_softmax_backward"), Flops: nnPerElement(4)})
	// AttentionWeights(q, k) is the [..., L, S] matrix of attention
	// weights softmax(q·kᵀ·scale) (zero where causal masks), which
	// attention's gradient needs; it takes AttentionAttrs.
	AttentionWeights = Register(&Def{Name: "attention_weights", Infer: inferAttentionWeights, Flops: attentionWeightsFlops})
)

func inferSoftmaxBackward(op string) InferFunc {
	return func(in []tensor.Meta, attrs any) (tensor.Meta, error) {
		a, err := AttrsAs[SoftmaxAttrs](op, attrs)
		if err != nil {
			return tensor.Meta{}, err
		}
		if err := wantInputs(op, in, 2); err != nil {
			return tensor.Meta{}, err
		}
		if !in[0].Shape.Equal(in[1].Shape) || in[0].DType != in[1].DType || !in[0].DType.IsFloat() {
			return tensor.Meta{}, fmt.Errorf("%s: the result %v and the cotangent %v must be float tensors of one meta", op, in[0], in[1])
		}
		if _, err := tensor.NormDim(a.Dim, max(len(in[0].Shape), 1)); err != nil {
			return tensor.Meta{}, fmt.Errorf("%s: %w", op, err)
		}
		return in[1], nil
	}
}

// AttentionWeightsLayout checks q [..., L, E] and k [..., S, E] and gives
// the layout (with k as the values) and the weights' shape [..., L, S].
func AttentionWeightsLayout(q, k tensor.Shape) (AttentionDims, tensor.Shape, error) {
	d, err := AttentionLayout(q, k, k)
	if err != nil {
		return d, nil, err
	}
	return d, append(d.Batch.Clone(), d.L, d.S), nil
}

func inferAttentionWeights(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if _, err := AttrsAs[AttentionAttrs]("attention_weights", attrs); err != nil {
		return tensor.Meta{}, err
	}
	if err := wantInputs("attention_weights", in, 2); err != nil {
		return tensor.Meta{}, err
	}
	_, shape, err := AttentionWeightsLayout(in[0].Shape, in[1].Shape)
	if err != nil {
		return tensor.Meta{}, err
	}
	dt, err := FloatDType("attention_weights", in)
	if err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: shape, DType: dt}, nil
}

func attentionWeightsFlops(in []tensor.Meta, _ tensor.Meta, _ any) int64 {
	d, _, err := AttentionWeightsLayout(in[0].Shape, in[1].Shape)
	if err != nil {
		return 0
	}
	return int64(d.L) * int64(d.S) * (2*int64(d.E) + 5) * int64(d.Batch.Numel())
}

// NormBackwardAttrs are the attributes of "norm_backward" and
// "norm_backward_weight": layer_norm's (or, with RMS, rms_norm's) eps over
// the last dimension, and whether a weight is among the inputs.
type NormBackwardAttrs struct {
	Eps       float64
	HasWeight bool
	RMS       bool
}

var (
	// NormBackward(x, [w], g) is layer_norm's (rms_norm's) gradient with
	// respect to x, fused: with x̂ = (x - μ)·r, r = 1/√(σ² + eps) and
	// ĝ = g·w, r·(ĝ - mean ĝ - x̂·mean(ĝ·x̂)) per row (no μ and no mean ĝ
	// for RMS).
	NormBackward = Register(&Def{Name: "norm_backward", Infer: inferNormBackward, Flops: nnInputElements(12)})
	// NormBackwardWeight(x, g) is the weight's gradient: Σ g·x̂ over every
	// row, shaped like the weight [d].
	NormBackwardWeight = Register(&Def{Name: "norm_backward_weight", Infer: inferNormBackwardWeight, Flops: nnInputElements(8)})
)

func inferNormBackward(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	a, err := AttrsAs[NormBackwardAttrs]("norm_backward", attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	want := 2
	if a.HasWeight {
		want = 3
	}
	if err := wantInputs("norm_backward", in, want); err != nil {
		return tensor.Meta{}, err
	}
	x, g := in[0], in[want-1]
	if err := normRowsMeta("norm_backward", x, g); err != nil {
		return tensor.Meta{}, err
	}
	if a.HasWeight {
		if w := in[1]; !w.Shape.Equal(tensor.Shape{x.Shape[len(x.Shape)-1]}) || w.DType != x.DType {
			return tensor.Meta{}, fmt.Errorf("norm_backward: the weight %v does not fit x %v", w, x)
		}
	}
	return g, nil
}

func inferNormBackwardWeight(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if _, err := AttrsAs[NormBackwardAttrs]("norm_backward_weight", attrs); err != nil {
		return tensor.Meta{}, err
	}
	if err := wantInputs("norm_backward_weight", in, 2); err != nil {
		return tensor.Meta{}, err
	}
	x := in[0]
	if err := normRowsMeta("norm_backward_weight", x, in[1]); err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: tensor.Shape{x.Shape[len(x.Shape)-1]}, DType: x.DType}, nil
}

// normRowsMeta checks that x and the cotangent g are float tensors of one
// meta with at least one dimension (the normalised one).
func normRowsMeta(op string, x, g tensor.Meta) error {
	if !x.Shape.Equal(g.Shape) || x.DType != g.DType || !x.DType.IsFloat() || len(x.Shape) == 0 {
		return fmt.Errorf("%s: x %v and the cotangent %v must be float tensors of one meta with a dimension to normalise", op, x, g)
	}
	return nil
}
