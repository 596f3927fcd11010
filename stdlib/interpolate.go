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
	register("interpolate", "interpolate(input, size=none, scale_factor=none, mode=\"nearest\", align_corners=none, recompute_scale_factor=none): resample the spatial dimensions of [N, C, L] or [N, C, H, W] to size (or the sizes scaled by scale_factor, rounded down), mode \"nearest\", \"nearest-exact\", \"linear\" (3-d), \"bilinear\" (4-d) or \"area\", with torch 1.13's source positions and weights, as F.interpolate", interpolateBuiltin)
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
	if spatial < 1 || spatial > 2 {
		return nil, fmt.Errorf("%s: the input must be [N, C, L] or [N, C, H, W], got shape %v", b.Name, s)
	}
	switch mode {
	case "nearest", "nearest-exact", "area":
	case "linear", "bilinear":
		if want := map[string]int{"linear": 1, "bilinear": 2}[mode]; want != spatial {
			return nil, fmt.Errorf("%s: mode %q takes a %d-d input, got shape %v", b.Name, mode, want+2, s)
		}
	default:
		return nil, fmt.Errorf("%s: mode %q is not supported (nearest, nearest-exact, linear, bilinear, area)", b.Name, mode)
	}
	if antialias {
		return nil, fmt.Errorf("%s: antialias is not supported", b.Name)
	}
	align := false
	if _, none := alignV.(eval.NoneType); !none {
		if mode != "linear" && mode != "bilinear" {
			return nil, fmt.Errorf("%s: align_corners is only for the linear modes, not %q", b.Name, mode)
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
		if spatial == 1 {
			return nil, fmt.Errorf("%s: mode \"area\" takes a 4-d input here (adaptive_avg_pool2d), got shape %v", b.Name, s)
		}
		size := eval.NewList(sz)
		defer eval.Release(th.RT, size)
		return eval.CallBuiltin(th, Universe()["adaptive_avg_pool2d"], []eval.Value{eval.Tensor{Ref: x}}, []eval.Kwarg{{Name: "output_size", Value: size}})
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
	i0, i1 := make([]int64, m), make([]int64, m)
	w0, w1 := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{m}, DType: x.DType()}), tensor.NewDense(tensor.Meta{Shape: tensor.Shape{m}, DType: x.DType()})
	source := linearSource[float32]
	if x.DType() == tensor.Float64 {
		source = linearSource[float64]
	}
	for j := range m {
		a, b, l0, l1 := source(j, n, m, scale, align)
		i0[j], i1[j] = int64(a), int64(b)
		w0.Set(j, l0)
		w1.Set(j, l1)
	}
	// The weights broadcast along dimension d: [m, 1, ..., 1].
	lay := make(tensor.Shape, len(x.Shape())-d)
	for k := range lay {
		lay[k] = 1
	}
	lay[0] = m
	weight := func(w *tensor.Dense) *refs.Ref {
		return c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: lay}, c.Host(w))
	}
	a := c.Op(ops.Mul, nil, c.Op(ops.IndexSelect, ops.DimAttrs{Dim: d}, x, idx(i0)), weight(w0))
	b := c.Op(ops.Mul, nil, c.Op(ops.IndexSelect, ops.DimAttrs{Dim: d}, x, idx(i1)), weight(w1))
	return c.Op(ops.Add, nil, a, b)
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
func linearSource[T float32 | float64](j, n, m int, scale float64, align bool) (i0, i1 int, l0, l1 float64) {
	var s T
	switch {
	case align && m > 1:
		s = T(n-1) / T(m-1)
	case align:
		s = 0
	default:
		s = scaleValue[T](scale, n, m)
	}
	var real T
	if align {
		real = s * T(j)
	} else {
		real = max(T(s*(T(j)+0.5))-0.5, 0) // no fused multiply-add: torch rounds the product
	}
	i0 = int(real)
	i1 = min(i0+1, n-1)
	w := real - T(i0)
	return i0, i1, float64(1 - w), float64(w)
}
