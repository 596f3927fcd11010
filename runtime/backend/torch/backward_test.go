package torch

import (
	"math/rand"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// backwardOnHost are the backward kernels of gradient rules that the
// plugin does not run: they fall back to the host. (Those of the
// transformer's training, matmul_tn, gelu_backward, index_backward and
// cross_entropy_backward, it runs: backwardRows.)
var backwardOnHost = []ops.Op{ops.Conv2dBackwardInput, ops.Conv2dBackwardWeight, ops.MaxPool2dBackward, ops.AvgPool2dBackward, ops.AdaptiveAvgPool2dBackward, ops.PadBackward}

// TestBackwardOpsFallBack runs each backward kernel on torch:cpu: it falls
// back to the host once and agrees with the cpu backend.
func TestBackwardOpsFallBack(t *testing.T) {
	plugin(t)
	conv := ops.Conv2dAttrs{Stride: [2]int{1, 1}, PadLo: [2]int{1, 1}, PadHi: [2]int{1, 1}, Dilation: [2]int{1, 1}, Groups: 1}
	pool := ops.Pool2dAttrs{Kernel: [2]int{2, 2}, Stride: [2]int{2, 2}, Dilation: [2]int{1, 1}}
	cases := []opCase{
		{op: ops.Conv2dBackwardInput, attrs: ops.Conv2dBackwardAttrs{Conv: conv, Shape: tensor.Shape{1, 2, 4, 4}}, in: []tensor.Meta{m(f32, 1, 3, 4, 4), m(f32, 3, 2, 3, 3)}},
		{op: ops.Conv2dBackwardWeight, attrs: ops.Conv2dBackwardAttrs{Conv: conv, Shape: tensor.Shape{3, 2, 3, 3}}, in: []tensor.Meta{m(f32, 1, 2, 4, 4), m(f32, 1, 3, 4, 4)}},
		{op: ops.MaxPool2dBackward, attrs: pool, in: []tensor.Meta{m(f32, 1, 1, 4, 4), m(f32, 1, 1, 2, 2)}},
		{op: ops.AvgPool2dBackward, attrs: ops.PoolBackwardAttrs{Pool: ops.AvgPool2dAttrs{Kernel: [2]int{2, 2}, Stride: [2]int{2, 2}}, Shape: tensor.Shape{1, 4, 4}}, in: []tensor.Meta{m(f32, 1, 2, 2)}},
		{op: ops.AdaptiveAvgPool2dBackward, attrs: ops.PoolBackwardAttrs{Pool: ops.AdaptivePool2dAttrs{Out: [2]int{2, 3}}, Shape: tensor.Shape{1, 1, 5, 5}}, in: []tensor.Meta{m(f32, 1, 1, 2, 3)}},
		{op: ops.PadBackward, attrs: ops.PadBackwardAttrs{Pad: ops.PadAttrs{Pads: []int{2, 1}, Mode: ops.PadReflect}, Shape: tensor.Shape{2, 4}}, in: []tensor.Meta{m(f32, 2, 7)}},
	}
	if len(cases) != len(backwardOnHost) {
		t.Fatalf("%d cases for %d backward ops", len(cases), len(backwardOnHost))
	}
	r := rand.New(rand.NewSource(1))
	for _, c := range cases {
		inputs := make([]*tensor.Dense, len(c.in))
		for i, mt := range c.in {
			inputs[i] = tensor.NewDense(mt)
			if mt.DType == i64 { // class targets
				for j, p := 0, inputs[i].I64(); j < len(p); j++ {
					p[j] = int64(j % 3)
				}
				continue
			}
			for j, p := 0, inputs[i].F32(); j < len(p); j++ {
				p[j] = float32(r.NormFloat64())
			}
		}
		want, got, reasons := runFallingBack(t, c, inputs)
		if len(reasons.r) != 1 {
			t.Errorf("%s: fallbacks %q, want one", c.op, reasons.r)
		}
		if msg := agree(got, want); msg != "" {
			t.Errorf("%s: %s", c.op, msg)
		}
	}
}
