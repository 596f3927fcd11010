package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Gradient rules of the averaging pools, pad, batch_norm and
// conv_transpose2d (see grad.go).

// PoolBackwardAttrs are the attributes of "avg_pool2d_backward" (Pool is
// AvgPool2dAttrs) and "adaptive_avg_pool2d_backward" (AdaptivePool2dAttrs):
// the forward pool's attributes and its input's shape. The input is the
// cotangent of the pool's result; each window's cotangent is spread evenly
// (by the forward's divisor) over the window.
type PoolBackwardAttrs struct {
	Pool  any
	Shape tensor.Shape
}

// The averaging pools' backward kernels (linear: their own rule is the
// forward pool).
var (
	AvgPool2dBackward         = Register(&Def{Name: "avg_pool2d_backward", Infer: inferPoolSpread("avg_pool2d_backward")})
	AdaptiveAvgPool2dBackward = Register(&Def{Name: "adaptive_avg_pool2d_backward", Infer: inferPoolSpread("adaptive_avg_pool2d_backward")})
)

// PoolSpreadLayout lays out a pool backward op: the forward's layout.
func PoolSpreadLayout(op string, a PoolBackwardAttrs) (ConvDims, error) {
	switch p := a.Pool.(type) {
	case AvgPool2dAttrs:
		return AvgPool2dLayout(a.Shape, p)
	case AdaptivePool2dAttrs:
		return AdaptiveAvgPool2dLayout(a.Shape, p)
	}
	return ConvDims{}, fmt.Errorf("%s: pool attributes are %T", op, a.Pool)
}

func inferPoolSpread(op string) InferFunc {
	return func(in []tensor.Meta, attrs any) (tensor.Meta, error) {
		g, a, err := singleWithAttrs[PoolBackwardAttrs](op, in, attrs)
		if err != nil {
			return tensor.Meta{}, err
		}
		d, err := PoolSpreadLayout(op, a)
		if err != nil {
			return tensor.Meta{}, err
		}
		if !d.Shape.Equal(g.Shape) || !g.DType.IsFloat() {
			return tensor.Meta{}, fmt.Errorf("%s: the cotangent is %v, the pool of %v gives %v", op, g, a.Shape, d.Shape)
		}
		return tensor.Meta{Shape: a.Shape.Clone(), DType: g.DType}, nil
	}
}

func init() {
	defineGrads(map[Op]*Grad{
		AvgPool2d: {VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Op(AvgPool2dBackward, PoolBackwardAttrs{Pool: a.Attrs, Shape: a.In[0].Shape}, g)}
		}},
		AdaptiveAvgPool2d: {VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Op(AdaptiveAvgPool2dBackward, PoolBackwardAttrs{Pool: a.Attrs, Shape: a.In[0].Shape}, g)}
		}},
		AvgPool2dBackward: {VJP: func(b *Builder, a *GradArgs, g T) []T {
			p, _ := AttrsAs[PoolBackwardAttrs]("avg_pool2d_backward", a.Attrs)
			return []T{b.Op(AvgPool2d, p.Pool, g)}
		}},
		AdaptiveAvgPool2dBackward: {VJP: func(b *Builder, a *GradArgs, g T) []T {
			p, _ := AttrsAs[PoolBackwardAttrs]("adaptive_avg_pool2d_backward", a.Attrs)
			return []T{b.Op(AdaptiveAvgPool2d, p.Pool, g)}
		}},
		// Constant padding is linear: its cotangent is g with the padding
		// cropped (the negated amounts; a crop pads back zeros). The other
		// modes read input elements several times: pad_backward adds up
		// their cotangents, and its own cotangent is the forward pad.
		Pad: {VJP: func(b *Builder, a *GradArgs, g T) []T {
			p, _ := AttrsAs[PadAttrs]("pad", a.Attrs)
			if p.Mode != PadConstant {
				return []T{b.Op(PadBackward, PadBackwardAttrs{Pad: p, Shape: a.In[0].Shape}, g)}
			}
			neg := make([]int, len(p.Pads))
			for i, v := range p.Pads {
				neg[i] = -v
			}
			return []T{b.Op(Pad, PadAttrs{Pads: neg, Mode: PadConstant}, g)}
		}},
		PadBackward: {VJP: func(b *Builder, a *GradArgs, g T) []T {
			p, _ := AttrsAs[PadBackwardAttrs]("pad_backward", a.Attrs)
			return []T{b.Op(Pad, p.Pad, g)}
		}},
		BatchNorm:       {Saves: []int{0, 1, 2, 3}, VJP: batchNormGrad},
		ConvTranspose2d: {Saves: []int{0, 1}, VJP: convTransposeGrad},
	})
}

// batchNormGrad: out = (x - mean)·r·w + bias, r = 1/√(var + eps), per
// channel (dim 1); mean and var are inputs, so training's batch
// statistics get their gradient through the reductions that made them.
func batchNormGrad(b *Builder, a *GradArgs, g T) []T {
	bn, _ := AttrsAs[BatchNormAttrs]("batch_norm", a.Attrs)
	xs := a.In[0].Shape
	dt := a.OutMeta.DType
	cs := make(tensor.Shape, len(xs))
	var others []int
	for i := range cs {
		cs[i] = 1
		if i != 1 {
			others = append(others, i)
		}
	}
	cs[1] = xs[1]
	c := tensor.Shape{xs[1]}
	perChannel := func(t T) T { return b.Reshape(b.Sum(t, others, false), c) }
	x, mean, vr := a.X[0], b.Reshape(a.X[1], cs), b.Reshape(a.X[2], cs)
	r := b.Op(Rsqrt, nil, b.Add(vr, b.Scalar(bn.Eps, dt)))
	centred := b.Sub(x, mean)
	gw := g
	if bn.HasWeight {
		gw = b.Mul(g, b.Reshape(a.X[3], cs))
	}
	out := []T{
		needed(a, 0, func() T { return b.Mul(gw, r) }),
		needed(a, 1, func() T { return b.Neg(perChannel(b.Mul(gw, r))) }),
		needed(a, 2, func() T {
			r3 := b.Mul(r, b.Mul(r, r))
			return b.Reshape(b.MulScalar(b.Mul(perChannel(b.Mul(gw, centred)), b.Reshape(r3, c)), -0.5), c)
		}),
	}
	if bn.HasWeight {
		out = append(out, needed(a, 3, func() T { return perChannel(b.Mul(g, b.Mul(centred, r))) }))
	}
	if bn.HasBias {
		out = append(out, needed(a, len(out), func() T { return perChannel(g) }))
	}
	return out
}

// convTransposeGrad: conv_transpose2d(x, w) is conv2d's input gradient of
// x through w, so x's cotangent is conv2d(g, w) and w's is conv2d's weight
// gradient with g as the input and x as the result's cotangent.
func convTransposeGrad(b *Builder, a *GradArgs, g T) []T {
	t, _ := AttrsAs[ConvTranspose2dAttrs]("conv_transpose2d", a.Attrs)
	conv := Conv2dAttrs{Stride: t.Stride, PadLo: t.Padding, PadHi: t.Padding, Dilation: t.Dilation, Groups: t.Groups}
	x, w := a.X[0], a.X[1]
	dt := a.OutMeta.DType
	out := []T{
		needed(a, 0, func() T { return b.Op(Conv2d, conv, g, b.Cast(w, dt)) }),
		needed(a, 1, func() T {
			return b.Op(Conv2dBackwardWeight, Conv2dBackwardAttrs{Conv: conv, Shape: a.In[1].Shape}, g, b.Cast(x, dt))
		}),
	}
	if len(a.In) == 3 {
		dims := []int{0, 2, 3}
		if len(a.OutMeta.Shape) == 3 {
			dims = []int{1, 2}
		}
		out = append(out, needed(a, 2, func() T { return b.Sum(g, dims, false) }))
	}
	return out
}
