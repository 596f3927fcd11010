package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// AttentionAttrs are the attributes of "attention" (inputs q [..., L, E],
// k [..., S, E], v [..., S, Ev]; leading dimensions broadcast):
// softmax(q·kᵀ·scale)·v, as torch's scaled_dot_product_attention. With
// Causal, query i attends to keys j ≤ i (the mask is aligned to the top
// left, like PyTorch's is_causal).
type AttentionAttrs struct {
	Causal bool
	// Scale multiplies q·kᵀ when HasScale; otherwise it is 1/sqrt(E).
	Scale    float64
	HasScale bool
}

// Attention is scaled dot-product attention over q, k, v (AttentionAttrs).
var Attention = Register(&Def{Name: "attention", Infer: inferAttention, Flops: attentionFlops})

// AttentionDims is the layout of one attention: Batch (broadcast) heads of
// L queries against S keys, E features per query and key, Ev per value.
// QBatch, KBatch and VBatch are the operands' batch dimensions left-padded
// with ones to Batch's rank.
type AttentionDims struct {
	L, S, E, Ev            int
	Batch                  tensor.Shape
	QBatch, KBatch, VBatch tensor.Shape
	Shape                  tensor.Shape
}

// AttentionLayout checks the shapes of q, k and v and lays out the result.
func AttentionLayout(q, k, v tensor.Shape) (AttentionDims, error) {
	var d AttentionDims
	if len(q) < 2 || len(k) < 2 || len(v) < 2 {
		return d, fmt.Errorf("attention: q, k and v need at least 2 dimensions ([..., L, E]), got %v, %v and %v", q, k, v)
	}
	d.L, d.E = q[len(q)-2], q[len(q)-1]
	d.S, d.Ev = k[len(k)-2], v[len(v)-1]
	if k[len(k)-1] != d.E {
		return d, fmt.Errorf("attention: q %v and k %v differ in the feature dimension (%d != %d)", q, k, d.E, k[len(k)-1])
	}
	if v[len(v)-2] != d.S {
		return d, fmt.Errorf("attention: k %v and v %v differ in the sequence dimension (%d != %d)", k, v, d.S, v[len(v)-2])
	}
	qb, kb, vb := q[:len(q)-2], k[:len(k)-2], v[:len(v)-2]
	batch, err := tensor.Broadcast(qb, kb)
	if err == nil {
		batch, err = tensor.Broadcast(batch, vb)
	}
	if err != nil {
		return d, fmt.Errorf("attention: the batch dimensions of q %v, k %v and v %v do not broadcast", q, k, v)
	}
	d.Batch = batch
	d.QBatch = PadOnes(qb, len(batch))
	d.KBatch = PadOnes(kb, len(batch))
	d.VBatch = PadOnes(vb, len(batch))
	d.Shape = append(batch.Clone(), d.L, d.Ev)
	return d, nil
}

func inferAttention(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if _, err := AttrsAs[AttentionAttrs]("attention", attrs); err != nil {
		return tensor.Meta{}, err
	}
	if len(in) != 3 {
		return tensor.Meta{}, fmt.Errorf("attention takes q, k and v, got %d tensors", len(in))
	}
	d, err := AttentionLayout(in[0].Shape, in[1].Shape, in[2].Shape)
	if err != nil {
		return tensor.Meta{}, err
	}
	dt, err := FloatDType("attention", in)
	if err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: d.Shape, DType: dt}, nil
}

func attentionFlops(in []tensor.Meta, _ tensor.Meta, _ any) int64 {
	d, err := AttentionLayout(in[0].Shape, in[1].Shape, in[2].Shape)
	if err != nil {
		return 0
	}
	per := int64(d.L) * int64(d.S) * (2*int64(d.E) + 2*int64(d.Ev) + 5)
	return per * int64(d.Batch.Numel())
}
