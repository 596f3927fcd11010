package ops

import "fmt"

// The gradient rule of scatter_reduce (scatter_reduce.go; see grad.go),
// torch's for sum, mean, amax and amin: amax and amin share each result's
// cotangent evenly among the values equal to it (x's element and src's).
// With IncludeSelf false, x's elements that src's replace get none, and
// a mean counts src's values only. prod, and amax or amin with a src
// larger than index, fail with a clear error.

func init() {
	defineGrads(map[Op]*Grad{
		ScatterReduce: {Saves: []int{0, 1, 2}, SavesOut: true, VJP: scatterReduceGrad},
	})
}

func scatterReduceGrad(b *Builder, a *GradArgs, g T) []T {
	r, _ := scatterReduceAttrs(a.Attrs)
	x, idx, src := a.X[0], a.X[1], a.X[2]
	dim := DimAttrs{Dim: r.Dim}
	byDim := *a
	byDim.Attrs = dim
	dt := g.Meta().DType
	fail := func(why string) []T {
		b.Fail(fmt.Errorf("the gradient of scatter_reduce with %s is not supported", why))
		return []T{nil, nil, nil}
	}
	// replaced zeroes x's elements that src's replace (IncludeSelf false).
	replaced := func(t T) T {
		if r.IncludeSelf {
			return t
		}
		return b.Op(Scatter, dim, t, idx, b.Zero(t))
	}
	switch r.Reduce {
	case "sum":
		return []T{replaced(g), nil, srcGrad(b, &byDim, g)}
	case "mean":
		// N counts the values averaged into each element (x's own
		// unless replaced); an element no value reached counts 1.
		ones := b.Expand(b.Scalar(1, dt), a.In[1].Shape)
		n := b.Op(ScatterAdd, dim, replaced(b.Expand(b.Scalar(1, dt), a.In[0].Shape)), idx, ones)
		if !r.IncludeSelf {
			n = b.Op(Maximum, nil, n, b.Scalar(1, dt))
		}
		gn := b.Div(g, n)
		return []T{replaced(gn), nil, srcGrad(b, &byDim, gn)}
	case "amax", "amin":
		if !a.In[2].Shape.Equal(a.In[1].Shape) {
			return fail(r.Reduce + " and a src larger than index")
		}
		selfIs := replaced(b.Cast(b.Op(Eq, nil, x, a.Out), dt))
		srcIs := b.Cast(b.Op(Eq, nil, src, b.Op(Gather, dim, a.Out, idx)), dt)
		n := b.Op(ScatterAdd, dim, selfIs, idx, srcIs)
		gn := b.Div(g, n)
		return []T{b.Mul(selfIs, gn), nil, b.Mul(srcIs, b.Op(Gather, dim, gn, idx))}
	}
	return fail("reduce=" + r.Reduce)
}
