package onnx

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// GridSample for 2-d inputs in nearest, bilinear and bicubic modes,
// composed from the runtime's ops as torch's grid_sample computes it: the
// grid's normalized coordinates unnormalized (align_corners), the padding
// mode applied to them (border clamps, reflection reflects then clamps;
// bicubic applies it to each tap's coordinates), and each tap's value
// gathered from the flattened plane and weighted, zero where the tap
// falls outside the input.

func init() {
	lower([]string{"GridSample"}, lowerGridSample)
}

// gs is the state of one GridSample lowering.
type gs struct {
	c     *ctx
	dt    tensor.DType
	err   error
	align bool
}

func (g *gs) op(op ops.Op, attrs any, ins ...*value) *value {
	if g.err != nil {
		return nil
	}
	v, err := g.c.op(op, attrs, ins...)
	g.err = err
	return v
}

func (g *gs) and(a, b *value) *value {
	if g.err != nil {
		return nil
	}
	v, err := g.c.and(a, b)
	g.err = err
	return v
}

func (g *gs) s(v float64) *value { return g.c.scalar(g.dt, v) }

func (g *gs) clamp(v *value, lo, hi float64) *value {
	return g.op(ops.Clamp, ops.ClampAttrs{Min: lo, Max: hi, HasMin: true, HasMax: true, MinFloat: true, MaxFloat: true}, v)
}

// unnormalize maps normalized coordinates to pixel ones along an axis of
// size n.
func (g *gs) unnormalize(v *value, n int) *value {
	if g.align {
		return g.op(ops.Mul, nil, g.op(ops.Add, nil, v, g.s(1)), g.s(float64(n-1)/2))
	}
	return g.op(ops.Mul, nil, g.op(ops.Sub, nil, g.op(ops.Mul, nil, g.op(ops.Add, nil, v, g.s(1)), g.s(float64(n))), g.s(1)), g.s(0.5))
}

// pad applies the padding mode to pixel coordinates along an axis of
// size n (zeros leaves them as they are).
func (g *gs) pad(x *value, n int, padding string) *value {
	switch padding {
	case "border":
		return g.clamp(x, 0, float64(n-1))
	case "reflection":
		lo, hi := -1.0, float64(2*n-1)
		if g.align {
			lo, hi = 0, float64(2*(n-1))
		}
		if lo == hi {
			return g.op(ops.Mul, nil, x, g.s(0))
		}
		// torch's reflect_coordinates: |x - min| folded by span.
		mn, span := lo/2, (hi-lo)/2
		a := g.op(ops.Abs, nil, g.op(ops.Sub, nil, x, g.s(mn)))
		extra := g.op(ops.Mod, nil, a, g.s(span))
		flips := g.op(ops.Floor, nil, g.op(ops.Div, nil, a, g.s(span)))
		even := g.op(ops.Eq, nil, g.op(ops.Mod, nil, flips, g.s(2)), g.s(0))
		r := g.op(ops.Where, nil, even, g.op(ops.Add, nil, extra, g.s(mn)), g.op(ops.Add, nil, g.op(ops.Sub, nil, g.s(span), extra), g.s(mn)))
		return g.clamp(r, 0, float64(n-1))
	}
	return x
}

// cubic are the weights of the four taps at floor - 1 .. floor + 2 for the
// fraction t, torch's cubic convolution with A = -0.75.
func (g *gs) cubic(t *value) [4]*value {
	const a = -0.75
	// conv1(x) = ((a + 2)x - (a + 3))x² + 1 for |x| <= 1;
	// conv2(x) = ((a·x - 5a)x + 8a)x - 4a for 1 < |x| < 2.
	conv1 := func(x *value) *value {
		p := g.op(ops.Sub, nil, g.op(ops.Mul, nil, x, g.s(a+2)), g.s(a+3))
		return g.op(ops.Add, nil, g.op(ops.Mul, nil, g.op(ops.Mul, nil, p, x), x), g.s(1))
	}
	conv2 := func(x *value) *value {
		p := g.op(ops.Sub, nil, g.op(ops.Mul, nil, x, g.s(a)), g.s(5*a))
		p = g.op(ops.Add, nil, g.op(ops.Mul, nil, p, x), g.s(8*a))
		return g.op(ops.Sub, nil, g.op(ops.Mul, nil, p, x), g.s(4*a))
	}
	u := g.op(ops.Sub, nil, g.s(1), t)
	return [4]*value{conv2(g.op(ops.Add, nil, t, g.s(1))), conv1(t), conv1(u), conv2(g.op(ops.Add, nil, u, g.s(1)))}
}

func lowerGridSample(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x, grid := ins[0], ins[1]
	xs, gsh := x.meta.Shape, grid.meta.Shape
	if len(xs) != 4 || len(gsh) != 4 || gsh[0] != xs[0] || gsh[3] != 2 {
		return nil, fmt.Errorf("X %v and grid %v must be [N, C, H, W] and [N, Ho, Wo, 2]", xs, gsh)
	}
	if !x.meta.DType.IsFloat() || grid.meta.DType != x.meta.DType {
		return nil, fmt.Errorf("X %s and grid %s must be floats of one dtype", x.meta, grid.meta)
	}
	mode := c.attrString("mode", "bilinear")
	padding := c.attrString("padding_mode", "zeros")
	if mode != "bilinear" && mode != "nearest" && mode != "bicubic" {
		return nil, fmt.Errorf("mode %q is not supported", mode)
	}
	if padding != "zeros" && padding != "border" && padding != "reflection" {
		return nil, fmt.Errorf("padding_mode %q is not supported", padding)
	}
	n, ch, h, w := xs[0], xs[1], xs[2], xs[3]
	p := gsh[1] * gsh[2]
	g := &gs{c: c, dt: x.meta.DType, align: c.attrInt("align_corners", 0) != 0}
	axis := func(k int) *value {
		s, err := c.slice(grid, 3, k, k+1, 1)
		if err != nil {
			g.err = err
			return nil
		}
		r, err := c.reshape(s, tensor.Shape{n, 1, p})
		if err != nil {
			g.err = err
		}
		return r
	}
	// bicubic pads each tap's coordinates (torch's get_value_bounded); the
	// other modes pad the sampling point.
	ix, iy := g.unnormalize(axis(0), w), g.unnormalize(axis(1), h)
	if mode != "bicubic" {
		ix, iy = g.pad(ix, w, padding), g.pad(iy, h, padding)
	}
	if g.err != nil {
		return nil, g.err
	}
	flat, err := c.reshape(x, tensor.Shape{n, ch, h * w})
	if err != nil {
		return nil, err
	}
	// tap gathers x at (ty, tx), [N, 1, P] pixel coordinates holding
	// integers, weighted by wt and zero outside the input.
	tap := func(tx, ty, wt *value) *value {
		in := func(v *value, n int) *value {
			return g.and(g.op(ops.Ge, nil, v, g.s(0)), g.op(ops.Le, nil, v, g.s(float64(n-1))))
		}
		valid := g.and(in(tx, w), in(ty, h))
		pos := g.op(ops.Add, nil, g.op(ops.Mul, nil, g.clamp(ty, 0, float64(h-1)), g.s(float64(w))), g.clamp(tx, 0, float64(w-1)))
		idx := g.op(ops.Astype, ops.CastAttrs{To: tensor.Int64}, pos)
		idx = g.op(ops.Expand, ops.ExpandAttrs{Shape: tensor.Shape{n, ch, p}}, idx)
		v := g.op(ops.Gather, ops.DimAttrs{Dim: 2}, flat, idx)
		if wt != nil {
			v = g.op(ops.Mul, nil, v, wt)
		}
		return g.op(ops.Where, nil, valid, v, g.s(0))
	}
	var y *value
	add := func(v *value) {
		if y == nil {
			y = v
		} else {
			y = g.op(ops.Add, nil, y, v)
		}
	}
	switch mode {
	case "bicubic":
		x0, y0 := g.op(ops.Floor, nil, ix), g.op(ops.Floor, nil, iy)
		wx, wy := g.cubic(g.op(ops.Sub, nil, ix, x0)), g.cubic(g.op(ops.Sub, nil, iy, y0))
		for j := range 4 {
			ty := g.pad(g.op(ops.Add, nil, y0, g.s(float64(j-1))), h, padding)
			for i := range 4 {
				tx := g.pad(g.op(ops.Add, nil, x0, g.s(float64(i-1))), w, padding)
				add(tap(tx, ty, g.op(ops.Mul, nil, wx[i], wy[j])))
			}
		}
	case "nearest":
		r := ops.RoundAttrs{}
		y = tap(g.op(ops.Round, r, ix), g.op(ops.Round, r, iy), nil)
	default:
		x0, y0 := g.op(ops.Floor, nil, ix), g.op(ops.Floor, nil, iy)
		x1, y1 := g.op(ops.Add, nil, x0, g.s(1)), g.op(ops.Add, nil, y0, g.s(1))
		wx1, wy1 := g.op(ops.Sub, nil, ix, x0), g.op(ops.Sub, nil, iy, y0)
		wx0, wy0 := g.op(ops.Sub, nil, g.s(1), wx1), g.op(ops.Sub, nil, g.s(1), wy1)
		for _, t := range [][4]*value{{x0, y0, wx0, wy0}, {x1, y0, wx1, wy0}, {x0, y1, wx0, wy1}, {x1, y1, wx1, wy1}} {
			add(tap(t[0], t[1], g.op(ops.Mul, nil, t[2], t[3])))
		}
	}
	if g.err != nil {
		return nil, g.err
	}
	return one(c.reshape(y, tensor.Shape{n, ch, gsh[1], gsh[2]}))
}
