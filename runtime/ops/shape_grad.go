package ops

import "github.com/tref-lang/tref/runtime/tensor"

// Gradient rules of the shape ops and indexing (see grad.go).

func init() {
	defineGrads(map[Op]*Grad{
		Reshape: {VJP: func(b *Builder, a *GradArgs, g T) []T { return []T{b.Reshape(g, a.In[0].Shape)} }},
		Permute: {VJP: func(b *Builder, a *GradArgs, g T) []T {
			p, _ := AttrsAs[PermuteAttrs]("permute", a.Attrs)
			dims, err := NormPerm(p.Dims, len(a.In[0].Shape))
			if err != nil || len(dims) == 0 {
				return []T{g}
			}
			inv := make([]int, len(dims))
			for i, d := range dims {
				inv[d] = i
			}
			return []T{b.Permute(g, inv)}
		}},
		Expand: {VJP: func(_ *Builder, _ *GradArgs, g T) []T { return []T{g} }}, // Fit sums it back
		Cat:    {VJP: catGrad},
		Stack: {VJP: func(b *Builder, a *GradArgs, g T) []T {
			c, _ := AttrsAs[CatAttrs]("stack", a.Attrs)
			dim, _ := tensor.NormDim(c.Dim, len(a.In[0].Shape)+1)
			out := make([]T, len(a.In))
			for i := range out {
				out[i] = needed(a, i, func() T {
					return b.Op(Index, IndexAttrs{Items: AtAlong(dim, i)}, g)
				})
			}
			return out
		}},
		Index: {VJP: func(b *Builder, a *GradArgs, g T) []T {
			ia, _ := AttrsAs[IndexAttrs]("index", a.Attrs)
			return []T{b.Op(IndexBackward, IndexBackwardAttrs{Items: ia.Items, Shape: a.In[0].Shape}, g)}
		}},
		// index_assign passes g on to x where x was kept and to v (summed
		// over its broadcast) where v was written.
		IndexAssign: {VJP: func(b *Builder, a *GradArgs, g T) []T {
			ia, _ := AttrsAs[IndexAttrs]("index_assign", a.Attrs)
			return []T{
				needed(a, 0, func() T { return b.Op(IndexAssign, IndexAttrs{Items: ia.Items}, g, b.Zero(g)) }),
				needed(a, 1, func() T { return b.Fit(b.Op(Index, IndexAttrs{Items: ia.Items}, g), a.In[1]) }),
			}
		}},
		// index_backward is linear: its cotangent is the same index.
		IndexBackward: {VJP: func(b *Builder, a *GradArgs, g T) []T {
			ia, _ := AttrsAs[IndexBackwardAttrs]("index_backward", a.Attrs)
			return []T{b.Op(Index, IndexAttrs{Items: ia.Items}, g)}
		}},
	})
}

// catGrad slices each input's part out of g along the joined dimension
// (skipped 1-d empty inputs get none).
func catGrad(b *Builder, a *GradArgs, g T) []T {
	c, _ := AttrsAs[CatAttrs]("cat", a.Attrs)
	out := make([]T, len(a.In))
	rank := len(a.OutMeta.Shape)
	dim, err := tensor.NormDim(c.Dim, rank)
	if err != nil {
		return out
	}
	off := 0
	for i, m := range a.In {
		if CatSkips(m) {
			continue
		}
		n := m.Shape[dim]
		start := off
		off += n
		out[i] = needed(a, i, func() T {
			return b.Op(Index, IndexAttrs{Items: SliceAlong(dim, start, start+n)}, g)
		})
	}
	return out
}
