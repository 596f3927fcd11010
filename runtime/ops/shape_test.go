package ops

import (
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

func f32(s ...int) tensor.Meta { return tensor.Meta{Shape: s, DType: tensor.Float32} }

func infer(t *testing.T, op string, attrs any, in ...tensor.Meta) (tensor.Meta, error) {
	t.Helper()
	return MustLookup(op).Def().Infer(in, attrs)
}

func wantShape(t *testing.T, op string, attrs any, want tensor.Shape, in ...tensor.Meta) {
	t.Helper()
	m, err := infer(t, op, attrs, in...)
	if err != nil {
		t.Fatalf("%s%v: %v", op, attrs, err)
	}
	if !m.Shape.Equal(want) {
		t.Fatalf("%s%v: shape %v, want %v", op, attrs, m.Shape, want)
	}
}

func wantErr(t *testing.T, op string, attrs any, substr string, in ...tensor.Meta) {
	t.Helper()
	_, err := infer(t, op, attrs, in...)
	if err == nil || !strings.Contains(err.Error(), substr) {
		t.Fatalf("%s%v: error %v, want one containing %q", op, attrs, err, substr)
	}
}

func TestInferReshape(t *testing.T) {
	wantShape(t, "reshape", ReshapeAttrs{tensor.Shape{3, -1}}, tensor.Shape{3, 4}, f32(2, 6))
	wantShape(t, "reshape", &ReshapeAttrs{tensor.Shape{}}, tensor.Shape{}, f32(1, 1))
	wantShape(t, "reshape", ReshapeAttrs{tensor.Shape{-1, 5}}, tensor.Shape{0, 5}, f32(5, 0))
	wantErr(t, "reshape", ReshapeAttrs{tensor.Shape{0, -1}}, "ambiguous", f32(0, 3))
	wantErr(t, "reshape", ReshapeAttrs{tensor.Shape{4, 2}}, "cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)", f32(2, 3))
	wantErr(t, "reshape", ReshapeAttrs{tensor.Shape{4, -1}}, "6 is not a multiple of 4", f32(2, 3))
	wantErr(t, "reshape", ReshapeAttrs{tensor.Shape{-1, -1}}, "only one dimension can be -1", f32(2, 3))
	wantErr(t, "reshape", ReshapeAttrs{tensor.Shape{-2, 3}}, "negative", f32(2, 3))
	wantErr(t, "reshape", ReshapeAttrs{tensor.Shape{1 << 30, 1 << 30, 1 << 30}}, "too large", f32(2, 3))
	wantErr(t, "reshape", PermuteAttrs{}, "attributes are ops.PermuteAttrs", f32(2, 3))
}

func TestInferPermute(t *testing.T) {
	wantShape(t, "permute", PermuteAttrs{[]int{2, 0, 1}}, tensor.Shape{4, 2, 3}, f32(2, 3, 4))
	wantShape(t, "permute", PermuteAttrs{[]int{-1, -2}}, tensor.Shape{3, 2}, f32(2, 3))
	wantShape(t, "permute", PermuteAttrs{}, tensor.Shape{}, f32())
	wantErr(t, "permute", PermuteAttrs{[]int{0, 0}}, "repeats dimension 0", f32(2, 3))
	wantErr(t, "permute", PermuteAttrs{[]int{0}}, "has 1 dimensions, the tensor has 2", f32(2, 3))
	wantErr(t, "permute", PermuteAttrs{[]int{0, 2}}, "out of range", f32(2, 3))
}

func TestInferExpand(t *testing.T) {
	wantShape(t, "expand", ExpandAttrs{tensor.Shape{4, 2, 3}}, tensor.Shape{4, 2, 3}, f32(1, 3))
	wantShape(t, "expand", ExpandAttrs{tensor.Shape{-1, 5}}, tensor.Shape{2, 5}, f32(2, 1))
	wantShape(t, "expand", ExpandAttrs{tensor.Shape{2, 0}}, tensor.Shape{2, 0}, f32(1))
	wantErr(t, "expand", ExpandAttrs{tensor.Shape{4, 3}}, "dimension 0 has size 2, which must be 1 or 4", f32(2, 3))
	wantErr(t, "expand", ExpandAttrs{tensor.Shape{3}}, "fewer dimensions", f32(2, 3))
	wantErr(t, "expand", ExpandAttrs{tensor.Shape{-1, 3}}, "new dimension 0", f32(3))
}

func TestInferCatStack(t *testing.T) {
	wantShape(t, "cat", CatAttrs{1}, tensor.Shape{2, 7}, f32(2, 3), f32(2, 4))
	wantShape(t, "cat", CatAttrs{-2}, tensor.Shape{5, 3}, f32(2, 3), f32(0), f32(3, 3))
	wantShape(t, "cat", CatAttrs{0}, tensor.Shape{0}, f32(0), f32(0))
	m, err := infer(t, "cat", CatAttrs{0}, tensor.Meta{Shape: tensor.Shape{2}, DType: tensor.Int64}, f32(3))
	if err != nil || m.DType != tensor.Float32 {
		t.Fatalf("cat int64 with float32: %v %v, want float32", m, err)
	}
	wantErr(t, "cat", CatAttrs{0}, "they must match except in dimension 0", f32(2, 3), f32(2, 4))
	wantErr(t, "cat", CatAttrs{0}, "same number of dimensions", f32(2, 3), f32(3))
	wantErr(t, "cat", CatAttrs{2}, "out of range", f32(2, 3))
	wantErr(t, "cat", CatAttrs{0}, "0-d", f32())
	wantErr(t, "cat", CatAttrs{0}, "at least one", []tensor.Meta{}...)

	wantShape(t, "stack", CatAttrs{0}, tensor.Shape{3, 2}, f32(2), f32(2), f32(2))
	wantShape(t, "stack", CatAttrs{-1}, tensor.Shape{2, 3, 2}, f32(2, 3), f32(2, 3))
	wantShape(t, "stack", CatAttrs{0}, tensor.Shape{2}, f32(), f32())
	wantErr(t, "stack", CatAttrs{0}, "tensor 1 has shape [3]", f32(2), f32(3))
	wantErr(t, "stack", CatAttrs{3}, "out of range", f32(2, 3))
}
