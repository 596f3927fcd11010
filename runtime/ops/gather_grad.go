package ops

import "github.com/tref-lang/tref/runtime/tensor"

// Gradient rules of the gather family (gather.go; see grad.go). Indices
// get no cotangent. Where scatter writes one element twice, src's
// cotangent still reaches every write (gather of g), as in torch.

func init() {
	defineGrads(notDifferentiable("one_hot gives int64 indicators of int64 classes", OneHot))
	defineGrads(map[Op]*Grad{
		// x's cotangent: g added back where each element was read.
		Gather: {Saves: []int{1}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Op(ScatterAdd, a.Attrs, zerosOf(b, a.In[0].Shape, g), a.X[1], g), nil}
		}},
		// x's cotangent: g but where overwritten; src's: g where written.
		Scatter: {Saves: []int{1}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			out := []T{nil, nil, nil}
			if a.Need[0] {
				out[0] = b.Op(Scatter, a.Attrs, g, a.X[1], b.Zero(g))
			}
			if a.Need[2] {
				out[2] = srcGrad(b, a, g)
			}
			return out
		}},
		ScatterAdd: {Saves: []int{1}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			out := []T{g, nil, nil}
			if a.Need[2] {
				out[2] = srcGrad(b, a, g)
			}
			return out
		}},
		// x's cotangent: each selected slice's g added back at its index
		// (a scatter_add with the index broadcast over the slices).
		IndexSelect: {Saves: []int{1}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			xs := a.In[0].Shape
			if len(xs) == 0 {
				return []T{g, nil}
			}
			d, _ := dimAttr("index_select", a.Attrs, len(xs))
			gs := g.Meta().Shape
			at := make(tensor.Shape, len(gs))
			for i := range at {
				at[i] = 1
			}
			at[d] = gs[d]
			idx := b.Expand(b.Reshape(a.X[1], at), gs)
			return []T{b.Op(ScatterAdd, a.Attrs, zerosOf(b, xs, g), idx, g), nil}
		}},
	})
}

// zerosOf is a zero tensor of shape s in like's dtype.
func zerosOf(b *Builder, s tensor.Shape, like T) T {
	return b.Expand(b.Zero(like), s)
}

// srcGrad is the cotangent of scatter's src: g read at the written
// positions (index's shape), padded with zeros to src's shape; the tape
// sums it to a 0-d src.
func srcGrad(b *Builder, a *GradArgs, g T) T {
	gs := b.Op(Gather, a.Attrs, g, a.X[1])
	src, is := a.In[2].Shape, a.In[1].Shape
	if len(src) == 0 || src.Equal(is) {
		return gs
	}
	pads := make([]int, 0, 2*len(src))
	for d := len(src) - 1; d >= 0; d-- {
		pads = append(pads, 0, src[d]-is[d])
	}
	return b.Op(Pad, PadAttrs{Pads: pads, Mode: PadConstant}, gs)
}
