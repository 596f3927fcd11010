package ops

import "fmt"

// The gradient rule of scatter_reduce (scatter_reduce.go; see grad.go),
// torch's for sum, mean, amax and amin: amax and amin share each result's
// cotangent evenly among the values equal to it (x's element and src's).
// With IncludeSelf false, x's elements that src's replace get none, and
// a mean counts src's values only. prod's cotangents are the products of
// the other factors, computed where a factor is zero by reducing again
// with it made one. amax, amin and prod with a src larger than index
// fail with a clear error.

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
	case "prod":
		if !a.In[2].Shape.Equal(a.In[1].Shape) {
			return fail("prod and a src larger than index")
		}
		return scatterProdGrad(b, a, dim, g, replaced)
	}
	return fail("reduce=" + r.Reduce)
}

// scatterProdGrad is torch's gradient of scatter_reduce's prod. x's
// cotangent is g times the product of the other factors: the product
// with x's zeros made ones, over x so made. A src element's is g times
// the result over it, or, where it is its position's only zero, g times
// the product with it made one (where two are zero, the result and so
// the cotangent is zero).
func scatterProdGrad(b *Builder, a *GradArgs, dim DimAttrs, g T, replaced func(T) T) []T {
	x, idx, src := a.X[0], a.X[1], a.X[2]
	dt := g.Meta().DType
	one, zero := b.Scalar(1, dt), b.Scalar(0, dt)
	selfOnes := b.Where(b.Op(Eq, nil, x, zero), one, x)
	gx := b.Div(b.Mul(g, b.Op(ScatterReduce, a.Attrs, selfOnes, idx, src)), selfOnes)
	srcZero := b.Op(Eq, nil, src, zero)
	zeros := b.Op(Gather, dim, b.Op(ScatterAdd, dim, zerosOf(b, a.In[0].Shape, g), idx, b.Cast(srcZero, dt)), idx)
	onlyZero := b.Op(BitwiseAnd, nil, srcZero, b.Op(Eq, nil, zeros, one))
	withOne := b.Op(ScatterReduce, a.Attrs, x, idx, b.Where(onlyZero, one, src))
	gsrc := b.Where(onlyZero, b.Op(Gather, dim, b.Mul(g, withOne), idx),
		b.Div(b.Op(Gather, dim, b.Mul(g, a.Out), idx), b.Where(srcZero, one, src)))
	return []T{replaced(gx), nil, gsrc}
}
