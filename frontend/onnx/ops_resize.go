package onnx

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Resize (and Upsample, its predecessor) is separable: each resized axis
// is a weighted sum of taps gathered along it, the taps' indices and
// weights computed on the host from the output size, the coordinate
// transformation and the mode (nearest: 1 tap, linear: 2, cubic: 4).

func init() {
	lower([]string{"Resize", "Upsample"}, lowerResize)
}

func lowerResize(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	r := len(x.meta.Shape)
	if c.attrInt("antialias", 0) != 0 {
		return nil, fmt.Errorf("antialias is not supported")
	}
	if p := c.attrString("keep_aspect_ratio_policy", "stretch"); p != "stretch" {
		return nil, fmt.Errorf("keep_aspect_ratio_policy %q is not supported", p)
	}
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	if a, ok := c.attrInts("axes"); ok {
		var err error
		if axes, err = normAxes(a, r); err != nil {
			return nil, err
		}
	}
	// The inputs: Upsample (scales attribute before 9, input 1 after);
	// Resize 10 (X, scales); Resize 11+ (X, roi, scales, sizes).
	var scaleIn, sizeIn, roiIn *value
	switch {
	case c.node.OpType == "Upsample" || c.opset < 11:
		scaleIn = input(ins, 1)
	default:
		roiIn, scaleIn, sizeIn = input(ins, 1), input(ins, 2), input(ins, 3)
	}
	scales := make([]float64, r)
	outs := make([]int, r)
	for i := range r {
		scales[i], outs[i] = 1, x.meta.Shape[i]
	}
	switch {
	case sizeIn != nil && sizeIn.meta.Shape.Numel() > 0:
		sz, err := c.ints(sizeIn, "sizes")
		if err != nil {
			return nil, err
		}
		if len(sz) != len(axes) {
			return nil, fmt.Errorf("%d sizes for %d axes", len(sz), len(axes))
		}
		for i, ax := range axes {
			if sz[i] < 0 || sz[i] > tensor.MaxElements {
				return nil, fmt.Errorf("size %d", sz[i])
			}
			outs[ax] = int(sz[i])
			scales[ax] = float64(sz[i]) / float64(x.meta.Shape[ax])
		}
	default:
		var sc []float64
		if scaleIn != nil && scaleIn.meta.Shape.Numel() > 0 {
			d, err := c.host(scaleIn)
			if err != nil {
				return nil, err
			}
			for i := range d.Numel() {
				sc = append(sc, d.At(i))
			}
		} else if a := c.attr("scales"); a != nil {
			for _, f := range a.Floats {
				sc = append(sc, float64(f))
			}
		} else {
			return nil, fmt.Errorf("needs scales or sizes")
		}
		if len(sc) != len(axes) {
			return nil, fmt.Errorf("%d scales for %d axes", len(sc), len(axes))
		}
		for i, ax := range axes {
			if !(sc[i] > 0) || math.IsInf(sc[i], 0) {
				return nil, fmt.Errorf("scale %v", sc[i])
			}
			scales[ax] = sc[i]
			o := math.Floor(float64(x.meta.Shape[ax]) * sc[i])
			if o > float64(tensor.MaxElements) {
				return nil, fmt.Errorf("scale %v gives %v elements", sc[i], o)
			}
			outs[ax] = int(o)
		}
	}
	if _, err := tensor.CheckedNumel(tensor.Shape(outs)); err != nil {
		return nil, err
	}
	var roi []float64
	if roiIn != nil && roiIn.meta.Shape.Numel() > 0 {
		d, err := c.host(roiIn)
		if err != nil {
			return nil, err
		}
		for i := range d.Numel() {
			roi = append(roi, d.At(i))
		}
	}
	mode := c.attrString("mode", "nearest")
	ct := c.attrString("coordinate_transformation_mode", "half_pixel")
	if c.node.OpType == "Upsample" || c.opset < 11 {
		ct = "asymmetric"
	}
	rz := resizer{
		mode: mode, transform: ct,
		nearest:   c.attrString("nearest_mode", "round_prefer_floor"),
		cubicA:    c.attrFloat("cubic_coeff_a", -0.75),
		exclude:   c.attrInt("exclude_outside", 0) != 0,
		extrapVal: c.attrFloat("extrapolation_value", 0),
	}
	if c.node.OpType == "Upsample" {
		rz.nearest = "floor" // Upsample repeats elements
	}
	if mode != "nearest" && mode != "linear" && mode != "cubic" && mode != "bilinear" {
		return nil, fmt.Errorf("mode %q is not supported", mode)
	}
	if rz.mode == "bilinear" {
		rz.mode = "linear"
	}
	y := x
	var outside *value
	for ax := range r {
		in, out := x.meta.Shape[ax], outs[ax]
		if in == out && scales[ax] == 1 && ct != "tf_crop_and_resize" {
			continue
		}
		lo, hi := 0.0, 1.0
		if ct == "tf_crop_and_resize" {
			if len(roi) != 2*len(axes) {
				return nil, fmt.Errorf("roi of %d values for %d axes", len(roi), len(axes))
			}
			for i, a := range axes {
				if a == ax {
					lo, hi = roi[i], roi[len(axes)+i]
				}
			}
		}
		taps, err := rz.axis(in, out, scales[ax], lo, hi)
		if err != nil {
			return nil, err
		}
		if y, err = c.resizeAxis(y, ax, taps); err != nil {
			return nil, err
		}
		if taps.outside != nil {
			o := taps.outside
			shape := make(tensor.Shape, r)
			for i := range shape {
				shape[i] = 1
			}
			shape[ax] = out
			m := c.keep(&value{meta: tensor.Meta{Shape: shape, DType: tensor.Bool}, c: &tensor.Dense{Meta: tensor.Meta{Shape: shape, DType: tensor.Bool}, Buf: o}})
			if outside == nil {
				outside = m
			} else if outside, err = c.op(ops.Where, nil, outside, c.scalar(tensor.Bool, 1), m); err != nil {
				return nil, err
			}
		}
	}
	if outside != nil {
		return one(c.op(ops.Where, nil, outside, c.scalar(y.meta.DType, rz.extrapVal), y))
	}
	if y == x {
		return lowerVariadic(c, []*value{x})
	}
	return []*value{y}, nil
}

// resizer holds a Resize node's interpolation settings.
type resizer struct {
	mode, transform, nearest string
	cubicA                   float64
	exclude                  bool
	extrapVal                float64
}

// taps are the gather indices and weights of one resized axis: idx[k][o]
// and w[k][o] for tap k of output position o; outside marks positions
// that tf_crop_and_resize puts outside the input (1 byte per position).
type taps struct {
	idx     [][]int64
	w       [][]float64
	outside []byte
}

// source maps output position o to a coordinate in the input. As in the
// ONNX reference, the output length the transformations divide by is
// scale * in, not the rounded size.
func (rz resizer) source(o, in int, scale, lo, hi float64) float64 {
	x := float64(o)
	out := scale * float64(in)
	switch rz.transform {
	case "asymmetric":
		return x / scale
	case "pytorch_half_pixel":
		if out > 1 {
			return (x+0.5)/scale - 0.5
		}
		return -0.5
	case "align_corners":
		if out == 1 {
			return 0
		}
		return x * float64(in-1) / (out - 1)
	case "tf_half_pixel_for_nn":
		return (x + 0.5) / scale
	case "tf_crop_and_resize":
		if out > 1 {
			return lo*float64(in-1) + x*(hi-lo)*float64(in-1)/(out-1)
		}
		return 0.5 * (lo + hi) * float64(in-1)
	case "half_pixel_symmetric":
		adj := float64(int(out)) / out
		center := float64(in) / 2
		return center*(1-adj) + (x+0.5)/scale - 0.5
	}
	return (x+0.5)/scale - 0.5 // half_pixel
}

// axis computes the taps of one axis.
func (rz resizer) axis(in, out int, scale, lo, hi float64) (*taps, error) {
	switch rz.transform {
	case "asymmetric", "pytorch_half_pixel", "align_corners", "tf_half_pixel_for_nn", "tf_crop_and_resize", "half_pixel", "half_pixel_symmetric":
	default:
		return nil, fmt.Errorf("coordinate_transformation_mode %q is not supported", rz.transform)
	}
	if in == 0 {
		return nil, fmt.Errorf("cannot resize an empty axis")
	}
	k := map[string]int{"nearest": 1, "linear": 2, "cubic": 4}[rz.mode]
	t := &taps{idx: make([][]int64, k), w: make([][]float64, k)}
	for j := range k {
		t.idx[j], t.w[j] = make([]int64, out), make([]float64, out)
	}
	clampI := func(i int) int64 { return int64(min(max(i, 0), in-1)) }
	for o := range out {
		xs := rz.source(o, in, scale, lo, hi)
		if rz.transform == "tf_crop_and_resize" && (xs < 0 || xs > float64(in-1)) {
			if t.outside == nil {
				t.outside = make([]byte, out)
			}
			t.outside[o] = 1
		}
		switch rz.mode {
		case "nearest":
			var i float64
			switch rz.nearest {
			case "floor":
				i = math.Floor(xs)
			case "ceil":
				i = math.Ceil(xs)
			case "round_prefer_ceil":
				i = math.Floor(xs + 0.5)
			case "round_prefer_floor":
				if xs-math.Floor(xs) == 0.5 {
					i = math.Floor(xs)
				} else {
					i = math.Round(xs)
				}
			default:
				return nil, fmt.Errorf("nearest_mode %q is not supported", rz.nearest)
			}
			t.idx[0][o], t.w[0][o] = clampI(int(i)), 1
		case "linear":
			xs = min(max(xs, 0), float64(in-1))
			f := math.Floor(xs)
			r := xs - f
			t.idx[0][o], t.w[0][o] = clampI(int(f)), 1-r
			t.idx[1][o], t.w[1][o] = clampI(int(f)+1), r
		case "cubic":
			f := math.Floor(xs)
			r := xs - f
			a := rz.cubicA
			cw := [4]float64{
				((a*(r+1)-5*a)*(r+1)+8*a)*(r+1) - 4*a,
				((a+2)*r-(a+3))*r*r + 1,
				((a+2)*(1-r)-(a+3))*(1-r)*(1-r) + 1,
				((a*(2-r)-5*a)*(2-r)+8*a)*(2-r) - 4*a,
			}
			sum := 0.0
			for j := range 4 {
				i := int(f) - 1 + j
				if rz.exclude && (i < 0 || i >= in) {
					cw[j] = 0
				}
				sum += cw[j]
			}
			for j := range 4 {
				if rz.exclude && sum != 0 {
					cw[j] /= sum
				}
				t.idx[j][o], t.w[j][o] = clampI(int(f)-1+j), cw[j]
			}
		}
	}
	return t, nil
}

// resizeAxis is sum_k gather(x, idx_k, ax) * w_k.
func (c *ctx) resizeAxis(x *value, ax int, t *taps) (*value, error) {
	r := len(x.meta.Shape)
	out := len(t.idx[0])
	var acc *value
	for k := range t.idx {
		idx := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{out}, DType: tensor.Int64})
		copy(idx.I64(), t.idx[k])
		g, err := c.gather(x, c.keep(&value{meta: idx.Meta, c: idx}), ax)
		if err != nil {
			return nil, err
		}
		if len(t.idx) == 1 {
			return g, nil
		}
		ws := make(tensor.Shape, r)
		for i := range ws {
			ws[i] = 1
		}
		ws[ax] = out
		wd := tensor.NewDense(tensor.Meta{Shape: ws, DType: x.meta.DType})
		for o, v := range t.w[k] {
			wd.Set(o, v)
		}
		term, err := c.op(ops.Mul, nil, g, c.keep(&value{meta: wd.Meta, c: wd}))
		if err != nil {
			return nil, err
		}
		if acc == nil {
			acc = term
		} else if acc, err = c.op(ops.Add, nil, acc, term); err != nil {
			return nil, err
		}
	}
	return acc, nil
}
