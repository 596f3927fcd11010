// Package compose holds the compositions of ops that more than one
// frontend offers — the builtins of stdlib and the ONNX importer's
// lowerings — written once against ops.Builder, so that both get the
// same values, the same gradients and the same fixes.
package compose

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// GridSample modes and padding modes.
var (
	GridSampleModes   = []string{"bilinear", "nearest", "bicubic"}
	GridSamplePadding = []string{"zeros", "border", "reflection"}
)

// CheckGridSample checks the operands of GridSample: input x [N, C, H, W]
// with grid [N, H_out, W_out, 2], or x [N, C, D, H, W] with grid [N,
// D_out, H_out, W_out, 3] (not in mode "bicubic"), floats of one dtype,
// the input's spatial dimensions non-empty. Its errors name no function.
func CheckGridSample(x, grid tensor.Meta, mode, padding string) error {
	if !slices.Contains(GridSampleModes, mode) {
		return fmt.Errorf("mode %q is not supported (\"bilinear\", \"nearest\" or \"bicubic\")", mode)
	}
	if !slices.Contains(GridSamplePadding, padding) {
		return fmt.Errorf("padding_mode must be \"zeros\", \"border\" or \"reflection\", not %q", padding)
	}
	xs, gs := x.Shape, grid.Shape
	if !x.DType.IsFloat() {
		return fmt.Errorf("the input must be floating point, got %s", x.DType)
	}
	if len(xs) != 4 && len(xs) != 5 {
		return fmt.Errorf("the input must be [N, C, H, W] or [N, C, D, H, W], got shape %v", xs)
	}
	k := len(xs) - 2
	if len(gs) != len(xs) || gs[len(gs)-1] != k {
		want := "[N, H_out, W_out, 2]"
		if k == 3 {
			want = "[N, D_out, H_out, W_out, 3]"
		}
		return fmt.Errorf("the grid must be %s for an input of shape %v, got shape %v", want, xs, gs)
	}
	if k == 3 && mode == "bicubic" {
		return fmt.Errorf("mode \"bicubic\" takes 4-d inputs [N, C, H, W], got shape %v", xs)
	}
	if gs[0] != xs[0] {
		return fmt.Errorf("the grid's batch size %d differs from the input's %d", gs[0], xs[0])
	}
	if grid.DType != x.DType {
		return fmt.Errorf("the input and the grid must have the same dtype, got %s and %s", x.DType, grid.DType)
	}
	if slices.Contains(xs[2:], 0) {
		return fmt.Errorf("the input's spatial dimensions must be non-empty, got shape %v", xs)
	}
	taps := map[string]int{"bilinear": 2, "nearest": 1, "bicubic": 4}[mode]
	corners := 1
	for range k {
		corners *= taps
	}
	if _, err := tensor.CheckedNumel(tensor.Shape{xs[0], xs[1], corners, gs[1 : 1+k].Numel()}); err != nil {
		return err
	}
	return nil
}

// GridSample is torch's grid_sample (and ONNX GridSample) of x at the
// normalised positions grid holds (x, then y, then z), operands checked
// by CheckGridSample, with the formulas of torch's CPU kernel
// (GridSamplerKernel.cpp): each component unnormalised (align_corners),
// then for "border" clipped to the image and for "reflection" reflected
// about its borders and clipped — bicubic pads each tap instead. Bilinear
// weighs the 2^k taps around the point by 1 − frac and frac per axis,
// bicubic the 4×4 ones by the cubic convolution (A = −0.75), nearest
// takes the tap the point rounds to (half to even). The taps' values are
// gathered from the flattened input at once, a tap outside the image
// reading 0. The gradient reaches x through the gather and the grid
// through the weights (zero for nearest), the clips passing none on and
// beyond the borders, as torch's clip_coordinates_set_grad. Halves are
// sampled in float32 and rounded.
func GridSample(b *ops.Builder, x, grid ops.T, mode, padding string, align bool) ops.T {
	if dt := x.Meta().DType; dt == tensor.Float16 || dt == tensor.BFloat16 {
		// Halves hold integers exactly only up to 2048 (bfloat16: 256):
		// the coordinates, weights and sums in float32, as torch's CUDA
		// kernel computes them.
		wide := GridSample(b, b.Cast(x, tensor.Float32), b.Cast(grid, tensor.Float32), mode, padding, align)
		return b.Cast(wide, dt)
	}
	xs, gs := x.Meta().Shape, grid.Meta().Shape
	dt := x.Meta().DType
	k := len(xs) - 2
	n, ch := xs[0], xs[1]
	outSpatial := gs[1 : 1+k]
	p := outSpatial.Numel()
	s := func(v float64) ops.T { return b.Scalar(v, dt) }
	// Per grid component j (x, y, z), indexing the input's spatial
	// dimension d (counted from the last): its taps' weights, in-image
	// masks and flat indices, laid out to broadcast over the taps
	// [N, taps (z), taps (y), taps (x), P], z-major as torch sums them.
	var weight, mask, flat ops.T
	stride, corners := 1, 1
	for j := range k {
		d := k - 1 - j
		size := xs[2+d]
		g := b.Reshape(b.Op(ops.Index, &ops.IndexAttrs{Items: ops.AtAlong(k+1, j)}, grid), tensor.Shape{n, p})
		pos := unnormalize(b, g, size, align)
		var taps, ws []ops.T
		switch mode {
		case "nearest":
			taps = []ops.T{b.Op(ops.Round, ops.RoundAttrs{}, pad(b, pos, size, padding, align))}
		case "bilinear":
			pos = pad(b, pos, size, padding, align)
			lo := b.Op(ops.Floor, nil, pos)
			frac := b.Sub(pos, lo)
			taps, ws = []ops.T{lo, b.Add(lo, s(1))}, []ops.T{b.Sub(s(1), frac), frac}
		default: // bicubic: the taps padded, the point not
			lo := b.Op(ops.Floor, nil, pos)
			ws = cubicWeights(b, b.Sub(pos, lo))
			for t := range 4 {
				taps = append(taps, pad(b, b.Add(lo, s(float64(t-1))), size, padding, align))
			}
		}
		lay := slices.Repeat(tensor.Shape{1}, k+2)
		lay[0], lay[1+d], lay[k+1] = n, len(taps), p
		at := b.Reshape(b.Op(ops.Stack, ops.CatAttrs{Dim: 1}, taps...), lay)
		in := b.Op(ops.BitwiseAnd, nil, b.Op(ops.Ge, nil, at, s(0)), b.Op(ops.Le, nil, at, s(float64(size-1))))
		idx := b.Cast(b.Where(in, at, s(0)), tensor.Int64)
		if stride != 1 {
			idx = b.Mul(idx, ops.IntScalar(int64(stride)))
		}
		stride *= size
		corners *= len(taps)
		var w ops.T
		if ws != nil {
			w = b.Reshape(b.Op(ops.Stack, ops.CatAttrs{Dim: 1}, ws...), lay)
		}
		if j == 0 {
			weight, mask, flat = w, in, idx
			continue
		}
		if w != nil {
			weight = b.Mul(weight, w)
		}
		mask = b.Op(ops.BitwiseAnd, nil, mask, in)
		flat = b.Add(flat, idx)
	}
	src := b.Reshape(x, tensor.Shape{n, ch, stride})
	idx := b.Expand(b.Reshape(flat, tensor.Shape{n, 1, corners * p}), tensor.Shape{n, ch, corners * p})
	vals := b.Reshape(b.Op(ops.Gather, ops.DimAttrs{Dim: 2}, src, idx), tensor.Shape{n, ch, corners, p})
	cs := tensor.Shape{n, 1, corners, p}
	vals = b.Where(b.Reshape(mask, cs), vals, s(0))
	if weight != nil {
		vals = b.Mul(vals, b.Reshape(weight, cs))
	}
	out := b.Sum(vals, []int{2}, false)
	return b.Reshape(out, slices.Concat(tensor.Shape{n, ch}, outSpatial))
}

// unnormalize maps a normalised grid component to a source coordinate
// along an input dimension of size positions: −1 and 1 are the first and
// last positions (align) or half a pixel beyond them.
func unnormalize(b *ops.Builder, g ops.T, size int, align bool) ops.T {
	dt := g.Meta().DType
	shifted := b.Add(g, b.Scalar(1, dt))
	if align {
		return b.Mul(shifted, b.Scalar(float64(size-1)/2, dt))
	}
	return b.Sub(b.Mul(shifted, b.Scalar(float64(size)/2, dt)), b.Scalar(0.5, dt))
}

// pad applies the padding mode to a source coordinate (torch's
// compute_coordinates): "border" clips it to [0, size-1], "reflection"
// reflects it about the borders (align: the first and last positions;
// else half a pixel beyond them) and clips, "zeros" leaves it.
func pad(b *ops.Builder, pos ops.T, size int, padding string, align bool) ops.T {
	dt := pos.Meta().DType
	switch padding {
	case "border":
		return clip(b, pos, size)
	case "reflection":
		if align && size <= 1 {
			// An empty span reflects everything to 0.
			return b.Expand(b.Scalar(0, dt), pos.Meta().Shape)
		}
		// |pos - low| folded into [0, span] with period twice the span:
		// reflect_coordinates, as the vectorised kernel computes it.
		low, twice := 0.0, float64(2*(size-1))
		if !align {
			low, twice = -0.5, float64(2*size)
		}
		a := pos
		if low != 0 {
			a = b.Sub(pos, b.Scalar(low, dt))
		}
		a = b.Op(ops.Abs, nil, a)
		span2 := b.Scalar(twice, dt)
		flips := b.Op(ops.Trunc, nil, b.Div(a, span2))
		extra := b.Sub(a, b.Mul(flips, span2))
		r := b.Op(ops.Minimum, nil, extra, b.Sub(span2, extra))
		if low != 0 {
			r = b.Add(r, b.Scalar(low, dt))
		}
		return clip(b, r, size)
	}
	return pos
}

// clip is torch's clip_coordinates: pos clamped to [0, size-1], NaN to 0,
// with a gradient of 1 strictly inside and 0 on the borders and beyond.
func clip(b *ops.Builder, pos ops.T, size int) ops.T {
	dt := pos.Meta().DType
	zero, hi := b.Scalar(0, dt), b.Scalar(float64(size-1), dt)
	t := b.Where(b.Op(ops.Gt, nil, pos, zero), pos, zero)
	return b.Where(b.Op(ops.Lt, nil, t, hi), t, hi)
}

// cubicWeights are the weights of the four taps at floor − 1 … floor + 2
// for the fraction t: torch's cubic convolution with A = −0.75.
func cubicWeights(b *ops.Builder, t ops.T) []ops.T {
	const a = -0.75
	dt := t.Meta().DType
	s := func(v float64) ops.T { return b.Scalar(v, dt) }
	// near(x) = ((a + 2)x − (a + 3))x² + 1 for |x| ≤ 1; far(x) = ((a·x −
	// 5a)x + 8a)x − 4a for 1 < |x| < 2.
	near := func(x ops.T) ops.T {
		return b.Add(b.Mul(b.Mul(b.Sub(b.Mul(x, s(a+2)), s(a+3)), x), x), s(1))
	}
	far := func(x ops.T) ops.T {
		return b.Sub(b.Mul(b.Add(b.Mul(b.Sub(b.Mul(x, s(a)), s(5*a)), x), s(8*a)), x), s(4*a))
	}
	u := b.Sub(s(1), t)
	return []ops.T{far(b.Add(t, s(1))), near(t), near(u), far(b.Add(u, s(1)))}
}
