package ops

import "github.com/tref-lang/tref/runtime/tensor"

// Gradient rules of the reductions (see grad.go): the cotangent of the
// reduced result is broadcast back over the reduced dimensions.

func init() {
	defineGrads(notDifferentiable("an index or a bool is not differentiable", Argmax, Argmin, Any, All))
	defineGrads(map[Op]*Grad{
		Sum: {VJP: func(b *Builder, a *GradArgs, g T) []T { return []T{unreduce(b, a, g)} }},
		Mean: {VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.MulScalar(unreduce(b, a, g), 1/float64(reducedCount(a)))}
		}},
		// amax/amin: the cotangent is shared evenly by the tied extrema.
		Max:  {Saves: []int{0}, SavesOut: true, VJP: extremaGrad},
		Min:  {Saves: []int{0}, SavesOut: true, VJP: extremaGrad},
		Var:  {Saves: []int{0}, VJP: varGrad(false)},
		Std:  {Saves: []int{0}, SavesOut: true, VJP: varGrad(true)},
		Prod: {Saves: []int{0}, SavesOut: true, VJP: prodGrad},
	})
}

// reduceAttrs reads a reduction's dims (normalised) and keepdim.
func reduceAttrs(a *GradArgs) ([]int, bool) {
	r, _ := AttrsAs[ReduceAttrs]("reduce", a.Attrs)
	dims, _ := ReduceDims(r.Dims, len(a.In[0].Shape))
	return dims, r.Keepdim
}

// reducedCount is the number of elements each result element reduced.
func reducedCount(a *GradArgs) int {
	dims, _ := reduceAttrs(a)
	n := 1
	for _, d := range dims {
		n *= a.In[0].Shape[d]
	}
	return n
}

// keepdims reshapes a reduced tensor t to its keepdim shape, ready to
// broadcast against the input.
func keepdims(b *Builder, a *GradArgs, t T) T {
	dims, _ := reduceAttrs(a)
	return b.Reshape(t, ReduceShape(a.In[0].Shape, dims, true))
}

// unreduce broadcasts g over the reduced dimensions of input 0.
func unreduce(b *Builder, a *GradArgs, g T) T {
	return b.Expand(keepdims(b, a, g), a.In[0].Shape)
}

func extremaGrad(b *Builder, a *GradArgs, g T) []T {
	x := a.X[0]
	hit := b.Cast(b.Op(Eq, nil, x, keepdims(b, a, a.Out)), a.OutMeta.DType)
	dims, _ := reduceAttrs(a)
	count := b.Sum(hit, dims, true)
	return []T{b.Mul(b.Div(hit, count), keepdims(b, a, g))}
}

// varGrad: d var = 2(x - mean)/(N - correction); d std = that / (2 std).
func varGrad(std bool) VJPFunc {
	return func(b *Builder, a *GradArgs, g T) []T {
		r, _ := AttrsAs[ReduceAttrs]("var", a.Attrs)
		dims, _ := reduceAttrs(a)
		x := a.X[0]
		centred := b.Sub(x, b.Op(Mean, ReduceAttrs{Dims: dims, Keepdim: true}, x))
		n := float64(reducedCount(a) - r.Correction)
		gk := keepdims(b, a, g)
		if std {
			return []T{b.Mul(b.Div(gk, keepdims(b, a, a.Out)), b.MulScalar(centred, 1/n))}
		}
		return []T{b.Mul(gk, b.MulScalar(centred, 2/n))}
	}
}

// prodGrad is out/x, computed as the product of the other elements where x
// is 0 (so that a single zero gets the product of the rest, as in torch).
func prodGrad(b *Builder, a *GradArgs, g T) []T {
	x := a.X[0]
	dt := a.OutMeta.DType
	if !dt.IsFloat() {
		return []T{nil}
	}
	dims, _ := reduceAttrs(a)
	zero := b.Scalar(0, dt)
	isZero := b.Op(Eq, nil, x, zero)
	// Replace zeros by 1: p is the product of the non-zero elements.
	safe := b.Where(isZero, b.Scalar(1, dt), x)
	p := b.Op(Prod, ReduceAttrs{Dims: dims, Keepdim: true}, safe)
	zeros := b.Sum(b.Cast(isZero, tensor.Int64), dims, true)
	// No zero: out/x. One zero: p at the zero, 0 elsewhere. More: 0.
	none := b.Div(b.Expand(p, x.Meta().Shape), safe)
	one := b.Where(isZero, b.Expand(p, x.Meta().Shape), zero)
	d := b.Where(b.Op(Eq, nil, zeros, b.Scalar(0, tensor.Int64)), none,
		b.Where(b.Op(Eq, nil, zeros, b.Scalar(1, tensor.Int64)), one, zero))
	return []T{b.Mul(d, keepdims(b, a, g))}
}
