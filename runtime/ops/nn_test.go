package ops

import (
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

func TestInferNN(t *testing.T) {
	i64 := func(s ...int) tensor.Meta { return tensor.Meta{Shape: s, DType: tensor.Int64} }
	wantShape(t, "softmax", SoftmaxAttrs{-1}, tensor.Shape{2, 3}, f32(2, 3))
	wantErr(t, "softmax", SoftmaxAttrs{2}, "out of range", f32(2, 3))
	if m, _ := infer(t, "log_softmax", SoftmaxAttrs{0}, i64(3)); m.DType != tensor.Float32 {
		t.Errorf("log_softmax of int64 gives %v, want float32", m.DType)
	}

	wantShape(t, "layer_norm", NormAttrs{Eps: 1e-5, HasWeight: true, HasBias: true}, tensor.Shape{2, 4}, f32(2, 4), f32(4), f32(4))
	wantShape(t, "layer_norm", NormAttrs{Eps: 1e-5, HasBias: true}, tensor.Shape{4}, f32(4), f32(4))
	wantErr(t, "layer_norm", NormAttrs{HasBias: true}, "the bias has shape [3], expected [4]", f32(2, 4), f32(3))
	wantErr(t, "layer_norm", NormAttrs{HasWeight: true}, "attributes call for 2", f32(2, 4))
	wantErr(t, "rms_norm", NormAttrs{}, "0-d", f32())
	wantErr(t, "rms_norm", NormAttrs{HasBias: true}, "no bias", f32(2), f32(2))

	wantShape(t, "embedding", nil, tensor.Shape{2, 3, 8}, i64(2, 3), f32(10, 8))
	wantErr(t, "embedding", nil, "ids must be int64, got float32", f32(2), f32(10, 8))
	wantErr(t, "embedding", nil, "must be 2-d", i64(2), f32(10))

	mask := tensor.Meta{Shape: tensor.Shape{2, 3}, DType: tensor.Bool}
	wantShape(t, "dropout", DropoutAttrs{0.5}, tensor.Shape{2, 3}, f32(2, 3), mask)
	wantErr(t, "dropout", DropoutAttrs{1.5}, "must be in [0, 1]", f32(2, 3), mask)
	wantErr(t, "dropout", DropoutAttrs{0.5}, "expected a bool tensor of shape [3, 2]", f32(3, 2), mask)

	ce := CrossEntropyAttrs{IgnoreIndex: DefaultIgnoreIndex}
	wantShape(t, "cross_entropy", ce, tensor.Shape{}, f32(4, 10), i64(4))
	wantShape(t, "cross_entropy", ce, tensor.Shape{}, f32(10), i64())
	wantShape(t, "cross_entropy", ce, tensor.Shape{}, f32(2, 5, 3, 4), i64(2, 3, 4))
	wantErr(t, "cross_entropy", ce, "need targets of shape [4], got [5]", f32(4, 10), i64(5))
	wantErr(t, "cross_entropy", ce, "targets must be int64", f32(4, 10), f32(4))

	wantShape(t, "mse", nil, tensor.Shape{}, f32(2, 3), f32(3))
	wantErr(t, "mse", nil, "cannot be broadcast", f32(2, 3), f32(2))
}
