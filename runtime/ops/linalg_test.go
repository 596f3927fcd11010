package ops

import (
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

func TestInferMatmulRanks(t *testing.T) {
	for _, tc := range []struct {
		a, b, want tensor.Shape
	}{
		{tensor.Shape{3}, tensor.Shape{3}, tensor.Shape{}},
		{tensor.Shape{2, 3}, tensor.Shape{3, 4}, tensor.Shape{2, 4}},
		{tensor.Shape{3}, tensor.Shape{3, 4}, tensor.Shape{4}},
		{tensor.Shape{2, 3}, tensor.Shape{3}, tensor.Shape{2}},
		{tensor.Shape{5, 2, 3}, tensor.Shape{3, 4}, tensor.Shape{5, 2, 4}},
		{tensor.Shape{3}, tensor.Shape{5, 3, 4}, tensor.Shape{5, 4}},
		{tensor.Shape{5, 2, 3}, tensor.Shape{3}, tensor.Shape{5, 2}},
		{tensor.Shape{7, 1, 2, 3}, tensor.Shape{5, 3, 4}, tensor.Shape{7, 5, 2, 4}},
		{tensor.Shape{0, 2, 3}, tensor.Shape{3, 4}, tensor.Shape{0, 2, 4}},
	} {
		wantShape(t, "matmul", nil, tc.want, f32(tc.a...), f32(tc.b...))
	}
	wantErr(t, "matmul", nil, "matmul: shapes [2, 3] and [4, 5] do not align (3 != 4)", f32(2, 3), f32(4, 5))
	wantErr(t, "matmul", nil, "at least one dimension", f32(), f32(3))
	wantErr(t, "matmul", nil, "batch dimensions of shapes [2, 3, 4] and [3, 4, 5] do not broadcast", f32(2, 3, 4), f32(3, 4, 5))
	wantErr(t, "matmul", nil, "expected numeric tensors, got a bool operand", tensor.Meta{Shape: tensor.Shape{2}, DType: tensor.Bool}, f32(2))

	m, err := infer(t, "matmul", nil, tensor.Meta{Shape: tensor.Shape{2, 3}, DType: tensor.Int64}, tensor.Meta{Shape: tensor.Shape{3}, DType: tensor.Float64})
	if err != nil || m.DType != tensor.Float64 {
		t.Errorf("int64 @ float64 gives %v, %v; want float64", m, err)
	}
	d := MustLookup("matmul").Def()
	if got := d.Flops([]tensor.Meta{f32(4, 2, 3), f32(3, 5)}, tensor.Meta{}, nil); got != 2*4*2*3*5 {
		t.Errorf("matmul flops = %d, want %d", got, 2*4*2*3*5)
	}
}

func TestInferMatmulTN(t *testing.T) {
	wantShape(t, "matmul_tn", nil, tensor.Shape{3, 4}, f32(2, 3), f32(2, 4))
	wantShape(t, "matmul_tn", nil, tensor.Shape{3, 4}, f32(0, 3), f32(0, 4))
	wantErr(t, "matmul_tn", nil, "expected matrices [k, m] and [k, n], got shapes [2, 3] and [3, 4]", f32(2, 3), f32(3, 4))
	wantErr(t, "matmul_tn", nil, "expected matrices", f32(2, 3, 4), f32(2, 3, 4))
	wantErr(t, "matmul_tn", nil, "expected matrices", f32(3), f32(3))
	wantErr(t, "matmul_tn", nil, "takes 2 tensors", f32(2, 3))
	wantErr(t, "matmul_tn", nil, "expected numeric tensors", tensor.Meta{Shape: tensor.Shape{2, 2}, DType: tensor.Bool}, f32(2, 2))
	if got := MustLookup("matmul_tn").Def().Flops([]tensor.Meta{f32(2, 3), f32(2, 5)}, f32(3, 5), nil); got != 2*2*3*5 {
		t.Errorf("matmul_tn flops = %d, want %d", got, 2*2*3*5)
	}
}

func TestInferLinearAndOuter(t *testing.T) {
	wantShape(t, "linear", nil, tensor.Shape{4, 3}, f32(4, 5), f32(3, 5), f32(3))
	wantShape(t, "linear", nil, tensor.Shape{2, 7, 3}, f32(2, 7, 5), f32(3, 5))
	wantShape(t, "linear", nil, tensor.Shape{3}, f32(5), f32(3, 5))
	wantShape(t, "linear", nil, tensor.Shape{4}, f32(4, 5), f32(5))
	wantShape(t, "linear", nil, tensor.Shape{4, 3}, f32(4, 5), f32(3, 5), f32(4, 3))
	wantErr(t, "linear", nil, "linear: input shape [4, 5] and weight shape [3, 6] do not align (5 != 6)", f32(4, 5), f32(3, 6))
	wantErr(t, "linear", nil, "bias of shape [4] does not broadcast to the output shape [4, 3]", f32(4, 5), f32(3, 5), f32(4))
	wantErr(t, "linear", nil, "[out, in] or [in]", f32(4, 5), f32(1, 3, 5))
	wantErr(t, "linear", nil, "0-d", f32(), f32(3, 5))
	if got := MustLookup("linear").Def().Flops([]tensor.Meta{f32(2, 7, 5), f32(3, 5)}, tensor.Meta{}, nil); got != 2*14*5*3 {
		t.Errorf("linear flops = %d, want %d", got, 2*14*5*3)
	}

	wantShape(t, "outer", nil, tensor.Shape{3, 4}, f32(3), f32(4))
	wantErr(t, "outer", nil, "expected two 1-d tensors, got shapes [3, 1] and [4]", f32(3, 1), f32(4))
}

func TestInferConv2d(t *testing.T) {
	one := [2]int{1, 1}
	base := Conv2dAttrs{Stride: one, Dilation: one, Groups: 1}
	padded := base
	padded.PadLo, padded.PadHi = one, one
	wantShape(t, "conv2d", base, tensor.Shape{2, 4, 6, 6}, f32(2, 3, 8, 8), f32(4, 3, 3, 3), f32(4))
	wantShape(t, "conv2d", padded, tensor.Shape{4, 8, 8}, f32(3, 8, 8), f32(4, 3, 3, 3))
	strided := Conv2dAttrs{Stride: [2]int{2, 3}, PadLo: [2]int{1, 0}, PadHi: [2]int{1, 0}, Dilation: [2]int{2, 1}, Groups: 3}
	// H: (9 + 2 - 2·2 - 1)/2 + 1 = 4; W: (10 - 3)/3 + 1 = 3.
	wantShape(t, "conv2d", strided, tensor.Shape{1, 6, 4, 3}, f32(1, 3, 9, 10), f32(6, 1, 3, 3))
	wantErr(t, "conv2d", base, "input [1, 3, 8, 8] has 3 channels, weight [4, 2, 3, 3] expects 2", f32(1, 3, 8, 8), f32(4, 2, 3, 3))
	wantErr(t, "conv2d", base, "bias of shape [3], expected [4]", f32(1, 3, 8, 8), f32(4, 3, 3, 3), f32(3))
	wantErr(t, "conv2d", base, "the height 2 (padded to 2) is smaller than the kernel extent 3", f32(1, 3, 2, 8), f32(4, 3, 3, 3))
	wantErr(t, "conv2d", base, "[N, C, H, W] or [C, H, W]", f32(8, 8), f32(4, 3, 3, 3))
	wantErr(t, "conv2d", Conv2dAttrs{Dilation: one, Groups: 1}, "stride must be at least 1", f32(1, 3, 8, 8), f32(4, 3, 3, 3))
	wantErr(t, "conv2d", Conv2dAttrs{Stride: one, Dilation: one, Groups: 2}, "not divisible by groups=2", f32(1, 3, 8, 8), f32(4, 3, 3, 3))
	i64 := func(s ...int) tensor.Meta { return tensor.Meta{Shape: s, DType: tensor.Int64} }
	wantErr(t, "conv2d", base, "expected float32 or float64 tensors, got int64, int64", i64(1, 3, 8, 8), i64(4, 3, 3, 3))
	if m, err := infer(t, "conv2d", base, i64(1, 3, 8, 8), tensor.Meta{Shape: tensor.Shape{4, 3, 3, 3}, DType: tensor.Float64}); err != nil || m.DType != tensor.Float64 {
		t.Errorf("conv2d of int64 by float64 gives %v, %v; want float64", m, err)
	}
	wantErr(t, "conv2d", nil, "attributes", f32(1, 3, 8, 8), f32(4, 3, 3, 3))
}

func TestInferMaxPool2d(t *testing.T) {
	a := Pool2dAttrs{Kernel: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, Dilation: [2]int{1, 1}}
	wantShape(t, "max_pool2d", a, tensor.Shape{2, 3, 4, 4}, f32(2, 3, 7, 8))
	a.CeilMode = true
	// Ceil mode adds a window only when it starts inside the input: H 7 → 4, W 8 → 5.
	wantShape(t, "max_pool2d", a, tensor.Shape{2, 3, 4, 5}, f32(2, 3, 7, 8))
	a.Padding = [2]int{2, 2}
	wantErr(t, "max_pool2d", a, "padding [2, 2] must be at most half of the kernel [3, 3]", f32(2, 3, 7, 8))
	wantErr(t, "max_pool2d", Pool2dAttrs{Kernel: [2]int{2, 2}, Stride: [2]int{2, 2}, Dilation: [2]int{1, 1}}, "bool",
		tensor.Meta{Shape: tensor.Shape{1, 4, 4}, DType: tensor.Bool})
}

func TestInferAttention(t *testing.T) {
	wantShape(t, "attention", AttentionAttrs{}, tensor.Shape{2, 3, 5, 6}, f32(2, 3, 5, 8), f32(1, 3, 7, 8), f32(3, 7, 6))
	wantShape(t, "attention", AttentionAttrs{Causal: true}, tensor.Shape{5, 4}, f32(5, 8), f32(9, 8), f32(9, 4))
	wantErr(t, "attention", AttentionAttrs{}, "differ in the feature dimension (8 != 7)", f32(5, 8), f32(9, 7), f32(9, 4))
	wantErr(t, "attention", AttentionAttrs{}, "differ in the sequence dimension (9 != 8)", f32(5, 8), f32(9, 8), f32(8, 4))
	wantErr(t, "attention", AttentionAttrs{}, "do not broadcast", f32(2, 5, 8), f32(3, 9, 8), f32(3, 9, 4))
	wantErr(t, "attention", AttentionAttrs{}, "at least 2 dimensions", f32(8), f32(9, 8), f32(9, 4))
	// Per batch: L·S·(2E + 2Ev + 5) = 5·9·(16+8+5).
	if got := MustLookup("attention").Def().Flops([]tensor.Meta{f32(2, 5, 8), f32(2, 9, 8), f32(2, 9, 4)}, tensor.Meta{}, nil); got != 2*5*9*29 {
		t.Errorf("attention flops = %d, want %d", got, 2*5*9*29)
	}
}
