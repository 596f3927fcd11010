package stdlib

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch's F.affine_grid and F.grid_sample (spatial transformers), composed
// of existing ops, as many whatever the image size; their gradients are
// those ops' rules.
//
// affine_grid multiplies the base grid of normalised output positions
// (x, y[, z], 1), built from one host vector per axis, by theta
// transposed (torch's affine_grid_generator: base_grid.bmm(theta^T)).
//
// grid_sample maps each grid component to a source coordinate with
// torch's CPU kernel's formulas (GridSamplerKernel.cpp's ComputeLocation:
// unnormalize, then clip_coordinates for "border", reflect_coordinates and
// clip_coordinates for "reflection"), where the clip is two wheres so that
// the gradient is 0 on and beyond the borders as in torch's
// clip_coordinates_set_grad. Bilinear then takes, per axis, the floor and
// the two weights 1 - frac and frac (differentiable: the grid's gradient),
// and the 2^k corners' values are gathered from the flattened input with
// int64 indices (the input's gradient, a scatter-add): a corner outside
// the image reads position 0 and is masked to 0 by a where. Nearest rounds
// half to even (torch's nearbyint) and masks the same way.

func init() {
	register("affine_grid", "affine_grid(theta, size, align_corners=none): the sampling grid of the affine maps theta [N, 2, 3] for an output of size [N, C, H, W], giving [N, H, W, 2] (or theta [N, 3, 4] and size [N, C, D, H, W], giving [N, D, H, W, 3]): each output position's normalised coordinates (x, y[, z], 1), which span [-1, 1] by the pixels' outer edges (align_corners false, the default) or their centres (true), times theta transposed; gradients reach theta (torch's F.affine_grid)", affineGridBuiltin)
	register("grid_sample", "grid_sample(input, grid, mode=\"bilinear\", padding_mode=\"zeros\", align_corners=none): input [N, C, H, W] sampled at the positions grid [N, H_out, W_out, 2] holds (x then y, normalised to [-1, 1] spanning the pixels' outer edges with align_corners false, the default, or their centres with true), giving [N, C, H_out, W_out]; also input [N, C, D, H, W] with grid [N, D_out, H_out, W_out, 3]; mode \"bilinear\" or \"nearest\" (half to even), padding_mode \"zeros\", \"border\" or \"reflection\" for the positions outside; gradients reach input and grid (the grid gets zeros in mode \"nearest\") (torch's F.grid_sample; mode \"bicubic\" is not supported; float16 and bfloat16 are taken, which torch's CPU kernel refuses)", gridSampleBuiltin)
}

// alignCorners reads align_corners: none (torch's default, false) or a
// bool.
func alignCorners(fname string, v eval.Value) (bool, error) {
	switch v := v.(type) {
	case eval.NoneType:
		return false, nil
	case eval.Bool:
		return bool(v), nil
	}
	return false, fmt.Errorf("%s: align_corners must be a bool or none, not %s", fname, eval.Describe(v))
}

func affineGridBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var theta *refs.Ref
	var sizeL []int
	var alignV eval.Value = eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "theta", &theta, "size", &sizeL, "align_corners?", &alignV); err != nil {
		return nil, err
	}
	align, err := alignCorners(b.Name, alignV)
	if err != nil {
		return nil, err
	}
	size := tensor.Shape(sizeL)
	dt := theta.DType()
	if !dt.IsFloat() {
		return nil, fmt.Errorf("%s: theta must be floating point, got %s", b.Name, dt)
	}
	if len(size) != 4 && len(size) != 5 {
		return nil, fmt.Errorf("%s: size must be [N, C, H, W] or [N, C, D, H, W], got %v", b.Name, size)
	}
	k := len(size) - 2
	ts := theta.Shape()
	if len(ts) != 3 || ts[1] != k || ts[2] != k+1 {
		return nil, fmt.Errorf("%s: theta must be a batch of %d-d affine matrices [N, %d, %d] for size %v, got shape %v", b.Name, k, k, k+1, size, ts)
	}
	spatial := tensor.Shape(slices.Clone(size[2:]))
	// torch skips its positivity check for a unit spatial size with
	// align_corners (a zero size then gives an empty grid).
	if lo := slices.Min(size); lo < 0 || lo == 0 && !(align && slices.Min(spatial) == 1) {
		return nil, fmt.Errorf("%s: size must be positive, got %v", b.Name, size)
	}
	if ts[0] != size[0] {
		return nil, fmt.Errorf("%s: theta holds %d matrices but size asks for a batch of %d", b.Name, ts[0], size[0])
	}
	out := slices.Concat(tensor.Shape{size[0]}, spatial, tensor.Shape{k})
	if _, err := tensor.CheckedNumel(out); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	c := newChain(th)
	// The base grid [spatial..., k+1]: x varies along the last spatial
	// dimension, y along the one before, z along the first; then ones.
	cols := make([]*refs.Ref, 0, k+1)
	for j := range k {
		d := k - 1 - j
		lay := slices.Repeat(tensor.Shape{1}, k)
		lay[d] = spatial[d]
		v := linspaceFromNegOne(spatial[d], align, dt)
		cols = append(cols, c.Expand(c.Reshape(c.Host(v), lay), spatial))
	}
	cols = append(cols, c.Expand(c.scalar(1, dt), spatial))
	base := c.Reshape(c.Op(ops.Stack, ops.CatAttrs{Dim: k}, cols...), tensor.Shape{spatial.Numel(), k + 1})
	grid := c.Op(ops.Matmul, nil, base, c.Transpose(theta))
	return c.Result(c.Reshape(grid, out))
}

// linspaceFromNegOne is torch's linspace_from_neg_one in dtype dt: n
// points from -1 to 1 (linspace's two halves, from each end), scaled by
// (n-1)/n without align_corners; one point is 0.
func linspaceFromNegOne(n int, align bool, dt tensor.DType) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{n}, DType: dt})
	if dt == tensor.Float64 {
		fillLinspace[float64](d, n, align)
	} else {
		fillLinspace[float32](d, n, align)
	}
	return d
}

func fillLinspace[T float32 | float64](d *tensor.Dense, n int, align bool) {
	if n <= 1 {
		return // zeros
	}
	step := T(2) / T(n-1)
	for i := range n {
		var v T
		if i < n/2 {
			v = -1 + step*T(i)
		} else {
			v = 1 - step*T(n-1-i)
		}
		if !align {
			v = T(v*T(n-1)) / T(n)
		}
		d.Set(i, float64(v))
	}
}

func gridSampleBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, grid *refs.Ref
	mode, padding := "bilinear", "zeros"
	var alignV eval.Value = eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "grid", &grid, "mode?", &mode,
		"padding_mode?", &padding, "align_corners?", &alignV); err != nil {
		return nil, err
	}
	switch mode {
	case "bilinear", "nearest":
	default:
		return nil, fmt.Errorf("%s: mode %q is not supported (\"bilinear\" or \"nearest\")", b.Name, mode)
	}
	switch padding {
	case "zeros", "border", "reflection":
	default:
		return nil, fmt.Errorf("%s: padding_mode must be \"zeros\", \"border\" or \"reflection\", not %q", b.Name, padding)
	}
	align, err := alignCorners(b.Name, alignV)
	if err != nil {
		return nil, err
	}
	xs, gs := x.Shape(), grid.Shape()
	dt := x.DType()
	if !dt.IsFloat() {
		return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, dt)
	}
	if len(xs) != 4 && len(xs) != 5 {
		return nil, fmt.Errorf("%s: the input must be [N, C, H, W] or [N, C, D, H, W], got shape %v", b.Name, xs)
	}
	k := len(xs) - 2
	if len(gs) != len(xs) || gs[len(gs)-1] != k {
		want := "[N, H_out, W_out, 2]"
		if k == 3 {
			want = "[N, D_out, H_out, W_out, 3]"
		}
		return nil, fmt.Errorf("%s: the grid must be %s for an input of shape %v, got shape %v", b.Name, want, xs, gs)
	}
	if gs[0] != xs[0] {
		return nil, fmt.Errorf("%s: the grid's batch size %d differs from the input's %d", b.Name, gs[0], xs[0])
	}
	if grid.DType() != dt {
		return nil, fmt.Errorf("%s: the input and the grid must have the same dtype, got %s and %s", b.Name, dt, grid.DType())
	}
	if slices.Contains(xs[2:], 0) {
		return nil, fmt.Errorf("%s: the input's spatial dimensions must be non-empty, got shape %v", b.Name, xs)
	}
	n, ch := xs[0], xs[1]
	outSpatial := gs[1 : 1+k]
	p := outSpatial.Numel()
	corners := 1
	if mode == "bilinear" {
		corners = 1 << k
	}
	if _, err := tensor.CheckedNumel(tensor.Shape{n, ch, corners, p}); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	c := newChain(th)
	// Per grid component j (x, y, z), which indexes the input's spatial
	// dimension d (counted from the last): its weights, in-image mask and
	// flat index, laid out so that they broadcast over the corners
	// [N, 2 (z), 2 (y), 2 (x), P], z-major as torch sums them.
	var weight, mask, flat *refs.Ref
	stride := 1
	for j := range k {
		d := k - 1 - j
		size := xs[2+d]
		g := c.Reshape(c.Op(ops.Index, &ops.IndexAttrs{Items: ops.AtAlong(k+1, j)}, grid), tensor.Shape{n, p})
		pos := c.sourceCoord(g, size, padding, align)
		var at, w *refs.Ref
		if mode == "bilinear" {
			lay := slices.Repeat(tensor.Shape{1}, k+2)
			lay[0], lay[1+d], lay[k+1] = n, 2, p
			lo := c.Op(ops.Floor, nil, pos)
			frac := c.Op(ops.Sub, nil, pos, lo)
			w = c.Reshape(c.Op(ops.Stack, ops.CatAttrs{Dim: 1}, c.Op(ops.Sub, nil, c.scalar(1, dt), frac), frac), lay)
			at = c.Reshape(c.Op(ops.Stack, ops.CatAttrs{Dim: 1}, lo, c.Op(ops.Add, nil, lo, c.scalar(1, dt))), lay)
		} else {
			at = c.Op(ops.Round, ops.RoundAttrs{}, pos)
		}
		in := c.Op(ops.BitwiseAnd, nil, c.Op(ops.Ge, nil, at, c.scalar(0, dt)), c.Op(ops.Le, nil, at, c.scalar(float64(size-1), dt)))
		idx := c.Cast(c.Op(ops.Where, nil, in, at, c.scalar(0, dt)), tensor.Int64)
		if stride != 1 {
			idx = c.Op(ops.Mul, nil, idx, c.Constant(ops.IntScalar(int64(stride))))
		}
		stride *= size
		if j == 0 {
			weight, mask, flat = w, in, idx
			continue
		}
		if w != nil {
			weight = c.Op(ops.Mul, nil, weight, w)
		}
		mask = c.Op(ops.BitwiseAnd, nil, mask, in)
		flat = c.Op(ops.Add, nil, flat, idx)
	}
	src := c.Reshape(x, tensor.Shape{n, ch, stride})
	idx := c.Expand(c.Reshape(flat, tensor.Shape{n, 1, corners * p}), tensor.Shape{n, ch, corners * p})
	vals := c.Op(ops.Gather, ops.DimAttrs{Dim: 2}, src, idx)
	var out *refs.Ref
	if mode == "bilinear" {
		cs := tensor.Shape{n, 1, corners, p}
		vals = c.Reshape(vals, tensor.Shape{n, ch, corners, p})
		vals = c.Op(ops.Where, nil, c.Reshape(mask, cs), vals, c.scalar(0, dt))
		out = c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{2}}, c.Op(ops.Mul, nil, vals, c.Reshape(weight, cs)))
	} else {
		out = c.Op(ops.Where, nil, c.Reshape(mask, tensor.Shape{n, 1, p}), vals, c.scalar(0, dt))
	}
	return c.Result(c.Reshape(out, slices.Concat(tensor.Shape{n, ch}, outSpatial)))
}

// sourceCoord maps the normalised grid component g to a source coordinate
// along an input dimension of size positions, as torch's CPU kernel
// (ComputeLocation in GridSamplerKernel.cpp): unnormalize, then for
// "border" the clip to [0, size-1] and for "reflection" the reflection
// about the borders (align_corners: the first and last positions; else
// half a pixel beyond them) followed by the clip.
func (c *chain) sourceCoord(g *refs.Ref, size int, padding string, align bool) *refs.Ref {
	dt := g.DType()
	shifted := c.Op(ops.Add, nil, g, c.scalar(1, dt))
	var pos *refs.Ref
	if align {
		pos = c.Op(ops.Mul, nil, shifted, c.scalar(float64(size-1)/2, dt))
	} else {
		pos = c.Op(ops.Sub, nil, c.Op(ops.Mul, nil, shifted, c.scalar(float64(size)/2, dt)), c.scalar(0.5, dt))
	}
	switch padding {
	case "border":
		return c.clipCoord(pos, size)
	case "reflection":
		if align && size <= 1 {
			// An empty span reflects everything to 0.
			return c.Expand(c.scalar(0, dt), g.Shape())
		}
		// |pos - low| folded into [0, span] with period twice the span:
		// reflect_coordinates, as the vectorised kernel computes it.
		low, twice := 0.0, float64(2*(size-1))
		if !align {
			low, twice = -0.5, float64(2*size)
		}
		a := pos
		if low != 0 {
			a = c.Op(ops.Sub, nil, pos, c.scalar(low, dt))
		}
		a = c.Op(ops.Abs, nil, a)
		span2 := c.scalar(twice, dt)
		flips := c.Op(ops.Trunc, nil, c.Op(ops.Div, nil, a, span2))
		extra := c.Op(ops.Sub, nil, a, c.Op(ops.Mul, nil, flips, span2))
		r := c.Op(ops.Minimum, nil, extra, c.Op(ops.Sub, nil, span2, extra))
		if low != 0 {
			r = c.Op(ops.Add, nil, r, c.scalar(low, dt))
		}
		return c.clipCoord(r, size)
	}
	return pos
}

// clipCoord is torch's clip_coordinates: pos clamped to [0, size-1], NaN
// to 0, with a gradient of 1 strictly inside and 0 on the borders and
// beyond (clip_coordinates_set_grad counts the borders as outside).
func (c *chain) clipCoord(pos *refs.Ref, size int) *refs.Ref {
	dt := pos.DType()
	zero, hi := c.scalar(0, dt), c.scalar(float64(size-1), dt)
	t := c.Op(ops.Where, nil, c.Op(ops.Gt, nil, pos, zero), pos, zero)
	return c.Op(ops.Where, nil, c.Op(ops.Lt, nil, t, hi), t, hi)
}
