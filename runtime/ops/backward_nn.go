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
