package stdlib

import (
	"fmt"
	"math"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	register("interpolate", "interpolate(input, size=none, scale_factor=none, mode=\"nearest\", align_corners=none, recompute_scale_factor=none): resample the spatial dimensions of [N, C, L], [N, C, H, W] or [N, C, D, H, W] to size (or the sizes scaled by scale_factor, rounded down), mode \"nearest\", \"nearest-exact\", \"linear\" (3-d), \"bilinear\" (4-d), \"bicubic\" (4-d; the cubic convolution with A = -0.75, taps clamped to the border, so values may overshoot the input's range), \"trilinear\" (5-d) or \"area\" (adaptive average pooling), with torch 1.13's source positions and weights, as F.interpolate", interpolateBuiltin)
}

func interpolateBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var sizeV, scaleV, alignV, recomputeV eval.Value = eval.None, eval.None, eval.None, eval.None
	mode := "nearest"
	antialias := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "size?", &sizeV, "scale_factor?", &scaleV, "mode?", &mode,
		"align_corners?", &alignV, "recompute_scale_factor?", &recomputeV, "antialias?", &antialias); err != nil {
		return nil, err
	}
	s := x.Shape()
	spatial := len(s) - 2
	if spatial < 1 || spatial > 3 {
		return nil, fmt.Errorf("%s: the input must be [N, C, L], [N, C, H, W] or [N, C, D, H, W], got shape %v", b.Name, s)
	}
	switch mode {
	case "nearest", "nearest-exact", "area":
	case "linear", "bilinear", "bicubic", "trilinear":
		if want := linearModes[mode]; want != spatial {
			return nil, fmt.Errorf("%s: mode %q takes a %d-d input, got shape %v", b.Name, mode, want+2, s)
		}
	default:
		return nil, fmt.Errorf("%s: mode %q is not supported (nearest, nearest-exact, linear, bilinear, bicubic, trilinear, area)", b.Name, mode)
	}
	if antialias {
		return nil, fmt.Errorf("%s: antialias is not supported", b.Name)
	}
	align := false
	if _, none := alignV.(eval.NoneType); !none {
		if _, ok := linearModes[mode]; !ok {
			return nil, fmt.Errorf("%s: align_corners is only for the linear and cubic modes, not %q", b.Name, mode)
		}
		v, ok := alignV.(eval.Bool)
		if !ok {
			return nil, fmt.Errorf("%s: align_corners must be a bool, not %s", b.Name, eval.Describe(alignV))
		}
		align = bool(v)
	}
	recompute := false
	if v, ok := recomputeV.(eval.Bool); ok {
		recompute = bool(v)
	}
	in := []int(s[2:])
	out := make([]int, spatial)
	scales := make([]float64, spatial) // 0: none (the kernel uses in/out)
	_, noSize := sizeV.(eval.NoneType)
	_, noScale := scaleV.(eval.NoneType)
	switch {
	case noSize == noScale:
		return nil, fmt.Errorf("%s: give exactly one of size and scale_factor", b.Name)
	case !noSize:
		sz, err := spatialInts(th, b.Name, "size", sizeV, spatial)
		if err != nil {
			return nil, err
		}
		for i, v := range sz {
			if v <= 0 {
				return nil, fmt.Errorf("%s: size must be positive, got %v", b.Name, sz)
			}
			out[i] = v
		}
	default:
		sf, err := spatialFloats(th, b.Name, scaleV, spatial)
		if err != nil {
			return nil, err
		}
		for i, f := range sf {
			if !(f > 0) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("%s: scale_factor must be positive and finite, got %v", b.Name, sf)
			}
			o := math.Floor(float64(in[i]) * f)
			if o < 1 || o > 1<<40 {
				return nil, fmt.Errorf("%s: scale_factor %v gives an output size of %v for an input size of %d", b.Name, f, o, in[i])
			}
			out[i] = int(o)
			if !recompute {
				scales[i] = f
			}
		}
	}
	outShape := slices.Concat(s[:2], tensor.Shape(out))
	if _, err := tensor.CheckedNumel(outShape); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	if mode == "area" {
		sz := make([]eval.Value, spatial)
		for i, o := range out {
			sz[i] = eval.Int(o)
		}
		size := eval.NewList(sz)
		defer eval.Release(th.RT, size)
		pool := fmt.Sprintf("adaptive_avg_pool%dd", spatial)
		return eval.CallBuiltin(th, Universe()[pool], []eval.Value{eval.Tensor{Ref: x}}, []eval.Kwarg{{Name: "output_size", Value: size}})
	}
	if !x.DType().IsFloat() && mode != "nearest" && mode != "nearest-exact" {
		return nil, fmt.Errorf("%s: mode %q needs a floating point input, got %s", b.Name, mode, x.DType())
	}
	c := newChain(th)
	cur := x
	// The last dimension first: torch's linear weights nest that way.
	for i := spatial - 1; i >= 0; i-- {
		cur = c.resample(cur, 2+i, in[i], out[i], scales[i], mode, align)
	}
	return c.Result(cur)
}

// linearModes are the modes that weigh neighbouring source positions,
// with the number of spatial dimensions each takes.
var linearModes = map[string]int{"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}

// spatialInts reads size: one int for every spatial dimension, or a list
// of n.
func spatialInts(th *eval.Thread, fname, param string, v eval.Value, n int) ([]int, error) {
	if k, ok := th.AsInt(v); ok {
		return slices.Repeat([]int{k}, n), nil
	}
	l, ok := v.(*eval.List)
	if !ok || len(l.Elems) != n {
		return nil, fmt.Errorf("%s: %s must be an int or a list of %d ints, not %s", fname, param, n, eval.Describe(v))
	}
	out := make([]int, n)
	for i, e := range l.Elems {
		k, ok := th.AsInt(e)
		if !ok {
			return nil, fmt.Errorf("%s: %s must be an int or a list of %d ints, not %s", fname, param, n, eval.Describe(v))
		}
		out[i] = k
	}
	return out, nil
}

// spatialFloats reads scale_factor like spatialInts.
func spatialFloats(th *eval.Thread, fname string, v eval.Value, n int) ([]float64, error) {
	if f, ok := th.AsFloat(v); ok {
		return slices.Repeat([]float64{f}, n), nil
	}
	l, ok := v.(*eval.List)
	if !ok || len(l.Elems) != n {
		return nil, fmt.Errorf("%s: scale_factor must be a number or a list of %d numbers, not %s", fname, n, eval.Describe(v))
	}
	out := make([]float64, n)
	for i, e := range l.Elems {
		f, ok := th.AsFloat(e)
		if !ok {
			return nil, fmt.Errorf("%s: scale_factor must be a number or a list of %d numbers, not %s", fname, n, eval.Describe(v))
		}
		out[i] = f
	}
	return out, nil
}

// resample resizes dimension d of x from n to m positions. scale is the
// scale_factor given for it (0: none), as torch's kernels take it.
func (c *chain) resample(x *refs.Ref, d, n, m int, scale float64, mode string, align bool) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	idx := func(v []int64) *refs.Ref {
		t := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{len(v)}, DType: tensor.Int64})
		copy(t.I64(), v)
		return c.Host(t)
	}
	if mode == "nearest" || mode == "nearest-exact" {
		pos := make([]int64, m)
		for j := range pos {
			pos[j] = int64(nearestSource(j, n, m, scale, mode == "nearest-exact"))
		}
		return c.Op(ops.IndexSelect, ops.DimAttrs{Dim: d}, x, idx(pos))
	}
	taps := 2
	source := linearSource[float32]
	switch {
	case mode == "bicubic" && x.DType() == tensor.Float64:
		taps, source = 4, cubicSource[float64]
	case mode == "bicubic":
		taps, source = 4, cubicSource[float32]
	case x.DType() == tensor.Float64:
		source = linearSource[float64]
	}
	pos := make([][]int64, taps)
	ws := make([]*tensor.Dense, taps)
	for t := range taps {
		pos[t] = make([]int64, m)
		ws[t] = tensor.NewDense(tensor.Meta{Shape: tensor.Shape{m}, DType: x.DType()})
	}
	for j := range m {
		is, w := source(j, n, m, scale, align)
		for t := range taps {
			pos[t][j] = int64(is[t])
			ws[t].Set(j, w[t])
		}
	}
	// The weights broadcast along dimension d: [m, 1, ..., 1].
	lay := make(tensor.Shape, len(x.Shape())-d)
	for k := range lay {
		lay[k] = 1
	}
	lay[0] = m
	var sum *refs.Ref
	for t := range taps {
		term := c.Op(ops.Mul, nil, c.Op(ops.IndexSelect, ops.DimAttrs{Dim: d}, x, idx(pos[t])), c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: lay}, c.Host(ws[t])))
		if sum == nil {
			sum = term
		} else {
			sum = c.Op(ops.Add, nil, sum, term)
		}
	}
	return sum
}

// scaleValue is torch's compute_scales_value in T: 1/scale when a scale
// was given, else in/out.
func scaleValue[T float32 | float64](scale float64, n, m int) T {
	if scale > 0 {
		return T(1 / scale)
	}
	return T(n) / T(m)
}

// nearestSource is the source position of output j (torch's nearest_idx
// and nearest-exact, in float32).
func nearestSource(j, n, m int, scale float64, exact bool) int {
	if exact {
		s := scaleValue[float32](scale, n, m)
		return min(int(float32(math.Floor(float64(float32((float32(j)+0.5)*s))))), n-1)
	}
	switch {
	case m == n:
		return j
	case m == 2*n:
		return j >> 1
	}
	s := scaleValue[float32](scale, n, m)
	return min(int(math.Floor(float64(float32(float32(j)*s)))), n-1)
}

// linearSource is torch 1.13's linear interpolation of output j: the two
// source positions and their weights, computed in T (float32 for float32
// and narrower inputs, float64 for float64), as
// compute_indices_weights_linear.
func linearSource[T float32 | float64](j, n, m int, scale float64, align bool) ([]int, []float64) {
	real := sourceIndex(sourceScale[T](n, m, scale, align), j, align, false)
	i0 := int(real)
	w := real - T(i0)
	return []int{i0, min(i0+1, n-1)}, []float64{float64(1 - w), float64(w)}
}

// sourceScale is torch's area_pixel_compute_scale in T: the step between
// the source positions of neighbouring outputs.
func sourceScale[T float32 | float64](n, m int, scale float64, align bool) T {
	switch {
	case align && m > 1:
		return T(n-1) / T(m-1)
	case align:
		return 0
	}
	return scaleValue[T](scale, n, m)
}

// sourceIndex is torch's area_pixel_compute_source_index in T: the
// source position of output j for the step s, clamped at 0 unless cubic.
func sourceIndex[T float32 | float64](s T, j int, align, cubic bool) T {
	if align {
		return s * T(j)
	}
	real := T(s*(T(j)+0.5)) - 0.5 // no fused multiply-add: torch rounds the product
	if cubic {
		return real
	}
	return max(real, 0)
}

// cubicSource is torch 1.13's bicubic interpolation of output j: the
// four source positions floor − 1 … floor + 2 (clamped to [0, n − 1])
// and their weights by the cubic convolution with A = −0.75, computed in
// T as upsample_bicubic2d's (the source position not clamped at 0).
func cubicSource[T float32 | float64](j, n, m int, scale float64, align bool) ([]int, []float64) {
	real := sourceIndex(sourceScale[T](n, m, scale, align), j, align, true)
	floor := T(math.Floor(float64(real)))
	t := real - floor
	const a = -0.75
	near := func(x T) T { return ((a+2)*x-(a+3))*x*x + 1 }  // |x| ≤ 1
	far := func(x T) T { return ((a*x-5*a)*x+8*a)*x - 4*a } // 1 < |x| < 2
	w := []float64{float64(far(t + 1)), float64(near(t)), float64(near(1 - t)), float64(far((1 - t) + 1))}
	is := make([]int, 4)
	for k := range is {
		is[k] = min(max(int(floor)-1+k, 0), n-1)
	}
	return is, w
}
