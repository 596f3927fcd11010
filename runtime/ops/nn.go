package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// SoftmaxAttrs are the attributes of "softmax" and "log_softmax".
type SoftmaxAttrs struct {
	Dim int
}

// NormAttrs are the attributes of "layer_norm" (inputs x, then the weight
// when HasWeight, then the bias when HasBias) and "rms_norm" (x, then the
// weight when HasWeight; HasBias must be false). Both normalise over the
// last dimension; weight and bias have that dimension's size.
type NormAttrs struct {
	Eps       float64
	HasWeight bool
	HasBias   bool
}

// DropoutAttrs are the attributes of "dropout", whose inputs are x and a
// keep-mask (bool or uint8, x's shape) drawn on the host: out = x * mask /
// (1 - P).
type DropoutAttrs struct {
	P float64
}

// CrossEntropyAttrs are the attributes of "cross_entropy" (inputs logits
// and int64 class targets; mean over the targets not equal to IgnoreIndex,
// -100 by default as in PyTorch).
type CrossEntropyAttrs struct {
	IgnoreIndex int
}

// DefaultIgnoreIndex is PyTorch's ignore_index default for cross_entropy.
const DefaultIgnoreIndex = -100

// The neural-network ops. The norms and dropout read each element before
// writing the same position, so their result may take over x's buffer.
var (
	// Softmax takes SoftmaxAttrs.
	Softmax = Register(&Def{Name: "softmax", Infer: inferSoftmax, Flops: nnPerElement(5)})
	// LogSoftmax takes SoftmaxAttrs.
	LogSoftmax = Register(&Def{Name: "log_softmax", Infer: inferSoftmax, Flops: nnPerElement(5)})
	// LayerNorm is layer_norm(x[, weight[, bias]]) with NormAttrs.
	LayerNorm = Register(&Def{Name: "layer_norm", Infer: inferNorm("layer_norm"), Flops: nnPerElement(8), Inplace: []int{0}})
	// RMSNorm is rms_norm(x[, weight]) with NormAttrs.
	RMSNorm = Register(&Def{Name: "rms_norm", Infer: inferNorm("rms_norm"), Flops: nnPerElement(5), Inplace: []int{0}})
	// Embedding is embedding(ids, table).
	Embedding = Register(&Def{Name: "embedding", Infer: inferEmbedding})
	// Dropout is dropout(x, mask) with DropoutAttrs.
	Dropout = Register(&Def{Name: "dropout", Infer: inferDropout, Inplace: []int{0}})
	// CrossEntropy is cross_entropy(logits, targets) with CrossEntropyAttrs.
	CrossEntropy = Register(&Def{Name: "cross_entropy", Infer: inferCrossEntropy, Flops: nnInputElements(5)})
	// MSE is the mean squared error of two tensors.
	MSE = Register(&Def{Name: "mse", Infer: inferMSE, Flops: nnInputElements(3)})
)

// nnPerElement estimates k flops per output element.
func nnPerElement(k int64) CostFunc {
	return func(_ []tensor.Meta, out tensor.Meta, _ any) int64 { return k * int64(out.Shape.Numel()) }
}

// nnInputElements estimates k flops per element of the first input.
func nnInputElements(k int64) CostFunc {
	return func(in []tensor.Meta, _ tensor.Meta, _ any) int64 { return k * int64(in[0].Shape.Numel()) }
}

// nnFloatDType is the dtype of an op that computes in floating point: float
// inputs keep their dtype, integers and bools give float32 (like `/`).
func nnFloatDType(d tensor.DType) tensor.DType {
	if d.IsFloat() {
		return d
	}
	return tensor.Float32
}

func inferSoftmax(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[SoftmaxAttrs]("softmax", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if _, err := tensor.NormDim(a.Dim, len(x.Shape)); err != nil {
		return tensor.Meta{}, fmt.Errorf("softmax over shape %v: %v", x.Shape, err)
	}
	return tensor.Meta{Shape: x.Shape, DType: nnFloatDType(x.DType)}, nil
}

func inferNorm(op string) InferFunc {
	return func(in []tensor.Meta, attrs any) (tensor.Meta, error) {
		a, err := AttrsAs[NormAttrs](op, attrs)
		if err != nil {
			return tensor.Meta{}, err
		}
		if op == "rms_norm" && a.HasBias {
			return tensor.Meta{}, fmt.Errorf("rms_norm has no bias")
		}
		want := 1
		if a.HasWeight {
			want++
		}
		if a.HasBias {
			want++
		}
		if len(in) != want {
			return tensor.Meta{}, fmt.Errorf("%s: got %d tensors, the attributes call for %d", op, len(in), want)
		}
		x := in[0]
		if len(x.Shape) == 0 {
			return tensor.Meta{}, fmt.Errorf("%s needs a tensor with at least one dimension, got a 0-d tensor", op)
		}
		d := x.Shape[len(x.Shape)-1]
		names := []string{"weight", "bias"}
		if !a.HasWeight {
			names = names[1:]
		}
		for i, m := range in[1:] {
			if len(m.Shape) != 1 || m.Shape[0] != d {
				return tensor.Meta{}, fmt.Errorf("%s over the last dimension of %v: the %s has shape %v, expected [%d]",
					op, x.Shape, names[i], m.Shape, d)
			}
		}
		return tensor.Meta{Shape: x.Shape, DType: nnFloatDType(x.DType)}, nil
	}
}

func inferEmbedding(in []tensor.Meta, _ any) (tensor.Meta, error) {
	if len(in) != 2 {
		return tensor.Meta{}, fmt.Errorf("embedding takes ids and a table, got %d tensors", len(in))
	}
	ids, table := in[0], in[1]
	if !ids.DType.IsInt() {
		return tensor.Meta{}, fmt.Errorf("embedding: ids must be int64, got %s", ids.DType)
	}
	if len(table.Shape) != 2 {
		return tensor.Meta{}, fmt.Errorf("embedding: the table must be 2-d [rows, dim], got shape %v", table.Shape)
	}
	s := append(ids.Shape.Clone(), table.Shape[1])
	return tensor.Meta{Shape: s, DType: table.DType}, nil
}

func inferDropout(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	a, err := AttrsAs[DropoutAttrs]("dropout", attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if len(in) != 2 {
		return tensor.Meta{}, fmt.Errorf("dropout takes x and a mask, got %d tensors", len(in))
	}
	if a.P < 0 || a.P > 1 {
		return tensor.Meta{}, fmt.Errorf("dropout probability must be in [0, 1], got %v", a.P)
	}
	x, mask := in[0], in[1]
	if !mask.Shape.Equal(x.Shape) || (mask.DType != tensor.Bool && mask.DType != tensor.Uint8) {
		return tensor.Meta{}, fmt.Errorf("dropout: the mask is %v, expected a bool tensor of shape %v", mask, x.Shape)
	}
	return tensor.Meta{Shape: x.Shape, DType: nnFloatDType(x.DType)}, nil
}

// CrossEntropyLayout splits logits of shape [C] or [N, C, d1, ...] into the
// number of rows (outer), classes (C) and positions per row (inner), and
// gives the targets' expected shape ([] or [N, d1, ...]).
func CrossEntropyLayout(logits tensor.Shape) (outer, classes, inner int, targets tensor.Shape) {
	if len(logits) == 1 {
		return 1, logits[0], 1, tensor.Shape{}
	}
	outer, classes, inner = logits[0], logits[1], 1
	for _, d := range logits[2:] {
		inner *= d
	}
	targets = append(tensor.Shape{logits[0]}, logits[2:]...)
	return outer, classes, inner, targets
}

func inferCrossEntropy(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if _, err := AttrsAs[CrossEntropyAttrs]("cross_entropy", attrs); err != nil {
		return tensor.Meta{}, err
	}
	if len(in) != 2 {
		return tensor.Meta{}, fmt.Errorf("cross_entropy takes logits and targets, got %d tensors", len(in))
	}
	logits, targets := in[0], in[1]
	if len(logits.Shape) == 0 {
		return tensor.Meta{}, fmt.Errorf("cross_entropy: logits must be [C] or [N, C, ...], got a 0-d tensor")
	}
	if targets.DType != tensor.Int64 && targets.DType != tensor.Uint8 {
		return tensor.Meta{}, fmt.Errorf("cross_entropy: targets must be int64 class indices, got %s", targets.DType)
	}
	_, _, _, want := CrossEntropyLayout(logits.Shape)
	if !targets.Shape.Equal(want) {
		return tensor.Meta{}, fmt.Errorf("cross_entropy: logits of shape %v need targets of shape %v, got %v",
			logits.Shape, want, targets.Shape)
	}
	return tensor.Meta{Shape: tensor.Shape{}, DType: nnFloatDType(logits.DType)}, nil
}

func inferMSE(in []tensor.Meta, _ any) (tensor.Meta, error) {
	if len(in) != 2 {
		return tensor.Meta{}, fmt.Errorf("mse takes 2 tensors, got %d", len(in))
	}
	if _, err := tensor.Broadcast(in[0].Shape, in[1].Shape); err != nil {
		return tensor.Meta{}, fmt.Errorf("mse: %v", err)
	}
	return tensor.Meta{Shape: tensor.Shape{}, DType: nnFloatDType(tensor.ResultType(in[0], in[1]))}, nil
}
