package ops

import (
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

func TestReduceInference(t *testing.T) {
	f32, f64, i64, u8, b := tensor.Float32, tensor.Float64, tensor.Int64, tensor.Uint8, tensor.Bool
	cases := []struct {
		op    string
		in    tensor.Meta
		attrs ReduceAttrs
		want  tensor.Meta
	}{
		{"sum", meta(f32, 2, 3, 4), ReduceAttrs{}, meta(f32)},
		{"sum", meta(f32, 2, 3, 4), ReduceAttrs{Dims: []int{1}}, meta(f32, 2, 4)},
		{"sum", meta(f32, 2, 3, 4), ReduceAttrs{Dims: []int{-1, 0}, Keepdim: true}, meta(f32, 1, 3, 1)},
		{"sum", meta(f32, 2, 3), ReduceAttrs{Keepdim: true}, meta(f32, 1, 1)},
		{"sum", meta(i64, 2, 3), ReduceAttrs{}, meta(i64)},
		{"sum", meta(b, 2, 3), ReduceAttrs{Dims: []int{0}}, meta(i64, 3)},
		{"prod", meta(u8, 4), ReduceAttrs{}, meta(i64)},
		{"mean", meta(f64, 4), ReduceAttrs{}, meta(f64)},
		{"max", meta(u8, 2, 3), ReduceAttrs{Dims: []int{1}}, meta(u8, 2)},
		{"argmax", meta(f32, 2, 3), ReduceAttrs{}, meta(i64)},
		{"argmax", meta(f32, 2, 3), ReduceAttrs{Keepdim: true}, meta(i64, 1, 1)},
		{"argmin", meta(f32, 2, 3), ReduceAttrs{Dims: []int{0}, Keepdim: true}, meta(i64, 1, 3)},
		{"any", meta(f32, 2, 3), ReduceAttrs{Dims: []int{1}}, meta(b, 2)},
		{"all", meta(u8, 2, 3), ReduceAttrs{}, meta(b)},
		{"std", meta(f32), ReduceAttrs{Dims: []int{0}}, meta(f32)},
		{"sum", meta(f32, 0, 3), ReduceAttrs{Dims: []int{0}}, meta(f32, 3)},
		{"max", meta(f32, 0, 3), ReduceAttrs{Dims: []int{1}}, meta(f32, 0)},
	}
	for _, c := range cases {
		got, err := MustLookup(c.op).Def().Infer([]tensor.Meta{c.in}, c.attrs)
		if err != nil || got.DType != c.want.DType || !got.Shape.Equal(c.want.Shape) {
			t.Errorf("%s(%v, %+v) = %v, %v; want %v", c.op, c.in, c.attrs, got, err, c.want)
		}
	}
}

func TestReduceInferenceErrors(t *testing.T) {
	cases := []struct {
		op    string
		in    tensor.Meta
		attrs any
		want  string
	}{
		{"mean", meta(tensor.Int64, 3), ReduceAttrs{}, "mean needs a float tensor; use astype"},
		{"var", meta(tensor.Bool, 3), ReduceAttrs{}, "var needs a float tensor"},
		{"argmax", meta(tensor.Bool, 3), ReduceAttrs{}, "not supported on bool"},
		{"sum", meta(tensor.Float32, 2, 3), ReduceAttrs{Dims: []int{2}}, "dimension 2 out of range"},
		{"sum", meta(tensor.Float32, 2, 3), ReduceAttrs{Dims: []int{1, -1}}, "appears more than once"},
		{"argmax", meta(tensor.Float32, 2, 3), ReduceAttrs{Dims: []int{0, 1}}, "takes one dim"},
		{"max", meta(tensor.Float32, 0, 3), ReduceAttrs{}, "empty tensor"},
		{"min", meta(tensor.Float32, 0, 3), ReduceAttrs{Dims: []int{0}}, "of size 0"},
		{"sum", meta(tensor.Float32, 3), nil, "ReduceAttrs"},
	}
	for _, c := range cases {
		_, err := MustLookup(c.op).Def().Infer([]tensor.Meta{c.in}, c.attrs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s(%v, %+v): got %v, want %q", c.op, c.in, c.attrs, err, c.want)
		}
	}
}

func TestReduceCosts(t *testing.T) {
	in := []tensor.Meta{meta(tensor.Float32, 8, 16)}
	if got := MustLookup("sum").Def().Flops(in, meta(tensor.Float32, 8), ReduceAttrs{}); got != 128 {
		t.Errorf("sum flops = %d, want 128 (one per input element)", got)
	}
	if got := MustLookup("add").Def().Flops([]tensor.Meta{meta(tensor.Float32, 8, 1), meta(tensor.Float32, 16)}, meta(tensor.Float32, 8, 16), nil); got != 128 {
		t.Errorf("add flops = %d, want 128 (one per output element)", got)
	}
}
