package stdlib

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/compose"
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
// grid_sample is runtime/compose's GridSample, which the ONNX importer's
// GridSample runs too.

func init() {
	register("affine_grid", "affine_grid(theta, size, align_corners=none): the sampling grid of the affine maps theta [N, 2, 3] for an output of size [N, C, H, W], giving [N, H, W, 2] (or theta [N, 3, 4] and size [N, C, D, H, W], giving [N, D, H, W, 3]): each output position's normalised coordinates (x, y[, z], 1), which span [-1, 1] by the pixels' outer edges (align_corners false, the default) or their centres (true), times theta transposed; gradients reach theta (torch's F.affine_grid)", affineGridBuiltin)
	register("grid_sample", "grid_sample(input, grid, mode=\"bilinear\", padding_mode=\"zeros\", align_corners=none): input [N, C, H, W] sampled at the positions grid [N, H_out, W_out, 2] holds (x then y, normalised to [-1, 1] spanning the pixels' outer edges with align_corners false, the default, or their centres with true), giving [N, C, H_out, W_out]; also input [N, C, D, H, W] with grid [N, D_out, H_out, W_out, 3]; mode \"bilinear\", \"nearest\" (half to even) or \"bicubic\" (4-d), padding_mode \"zeros\", \"border\" or \"reflection\" for the positions outside; gradients reach input and grid (the grid gets zeros in mode \"nearest\") (torch's F.grid_sample, with ONNX GridSample's code; float16 and bfloat16 are taken, which torch's CPU kernel refuses)", gridSampleBuiltin)
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
	// The base grid and the result, checked before the host vectors are
	// made.
	if err := th.RT.HostPool().Check(2 * int64(spatial.Numel()) * int64(k+1) * int64(dt.Size())); err != nil {
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
	align, err := alignCorners(b.Name, alignV)
	if err != nil {
		return nil, err
	}
	if err := compose.CheckGridSample(x.Meta(), grid.Meta(), mode, padding); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	c := newChain(th)
	out := compose.GridSample(c.builder(), x, grid, mode, padding, align)
	if err := c.Err(); err != nil {
		return c.Abort(err)
	}
	return c.Result(out.(*refs.Ref))
}
