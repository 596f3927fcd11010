package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Backward-only ops: kernels that gradient rules submit where composing
// existing ops would be slow or impossible. Their rules are in the
// families' *_grad.go files.

// IndexBackwardAttrs are the attributes of "index_backward": the items of
// the forward index and the shape of the indexed tensor. Its input is the
// cotangent of the index's result; its result has Shape, zero except at
// the positions the index read, which take the cotangent.
type IndexBackwardAttrs struct {
	Items []IndexItem
	Shape tensor.Shape
}

var (
	// GeluBackward(x, g) is g·(Φ(x) + x·φ(x)), gelu's exact derivative.
	GeluBackward = Register(&Def{Name: "gelu_backward", Infer: inferGeluBackward, Flops: nnPerElement(12), Inplace: []int{1}})
	// IndexBackward takes IndexBackwardAttrs.
	IndexBackward = Register(&Def{Name: "index_backward", Infer: inferIndexBackward})
	// CrossEntropyBackward(logits, targets, g) is cross_entropy's
	// gradient with respect to the logits, fused: (softmax(logits) -
	// onehot(targets))·g/count over the targets not ignored; it takes
	// CrossEntropyAttrs.
	CrossEntropyBackward = Register(&Def{Name: "cross_entropy_backward", Infer: inferCrossEntropyBackward, Flops: nnInputElements(6)})
)

func inferCrossEntropyBackward(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if err := wantInputs("cross_entropy_backward", in, 3); err != nil {
		return tensor.Meta{}, err
	}
	out, err := inferCrossEntropy(in[:2], attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if !in[2].Shape.Equal(out.Shape) || in[2].DType != out.DType {
		return tensor.Meta{}, fmt.Errorf("cross_entropy_backward: the cotangent is %v, the loss %v", in[2], out)
	}
	return tensor.Meta{Shape: in[0].Shape, DType: out.DType}, nil
}

func inferGeluBackward(in []tensor.Meta, _ any) (tensor.Meta, error) {
	if err := wantInputs("gelu_backward", in, 2); err != nil {
		return tensor.Meta{}, err
	}
	if !in[0].Shape.Equal(in[1].Shape) || in[0].DType != in[1].DType || !in[0].DType.IsFloat() {
		return tensor.Meta{}, fmt.Errorf("gelu_backward: x %v and the cotangent %v must be float tensors of one meta", in[0], in[1])
	}
	return in[1], nil
}

func inferIndexBackward(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	g, a, err := singleWithAttrs[IndexBackwardAttrs]("index_backward", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	want, err := inferIndex([]tensor.Meta{{Shape: a.Shape, DType: g.DType}}, IndexAttrs{Items: a.Items})
	if err != nil {
		return tensor.Meta{}, err
	}
	if !want.Shape.Equal(g.Shape) {
		return tensor.Meta{}, fmt.Errorf("index_backward: the cotangent has shape %v, the index gives %v", g.Shape, want.Shape)
	}
	return tensor.Meta{Shape: a.Shape.Clone(), DType: g.DType}, nil
}
