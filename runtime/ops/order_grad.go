package ops

import (
	"math"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Gradient rules of the scans, logsumexp and norm (order.go; see
// grad.go), with torch 1.13's conventions where the derivative is not
// defined (a zero norm gives a zero cotangent; the inf-norm's cotangent is
// shared evenly by the tied extrema).

func init() {
	defineGrads(notDifferentiable("argsort gives int64 indices", Argsort))
	defineGrads(map[Op]*Grad{
		// The reversed running sum of g.
		Cumsum: {VJP: func(b *Builder, a *GradArgs, g T) []T {
			if len(a.In[0].Shape) == 0 {
				return []T{g}
			}
			d := scanDim(a)
			return []T{reverse(b, b.Op(Cumsum, a.Attrs, reverse(b, g, d)), d)}
		}},
		Cumprod: {Saves: []int{0}, VJP: cumprodGrad},
		// g · exp(x - logsumexp(x)).
		Logsumexp: {Saves: []int{0}, SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := b.Cast(a.X[0], a.OutMeta.DType)
			return []T{b.Mul(unreduce(b, a, g), b.Op(Exp, nil, b.Sub(x, keepdims(b, a, a.Out))))}
		}},
		Norm: {Saves: []int{0}, SavesOut: true, VJP: vectorNormGrad},
	})
}

// scanDim is a scan's dimension, normalised.
func scanDim(a *GradArgs) int {
	s, _ := AttrsAs[ScanAttrs]("scan", a.Attrs)
	d, _ := tensor.NormDim(s.Dim, max(len(a.In[0].Shape), 1))
	return d
}

// reverse is x read backwards along dimension d.
func reverse(b *Builder, x T, d int) T {
	items := FullSlices(d + 1)
	items[d].Step = -1
	return b.Op(Index, IndexAttrs{Items: items}, x)
}

// cumprodGrad is exact where x has zeros (no division by x): with the
// scanned dimension last, n long, and k, j positions along it,
//
//	dx_k = E_k · Σ_{j ≥ k} g_j · Q_kj,  E_k = Π_{i<k} x_i,  Q_kj = Π_{k<i≤j} x_i,
//
// Q being the running product of the [n, n] matrix x_j (j > k) or 1, and
// E the product of x_j (j < k) or 1: O(n²) work and memory per line.
func cumprodGrad(b *Builder, a *GradArgs, g T) []T {
	xs := a.In[0].Shape
	if len(xs) == 0 {
		return []T{g}
	}
	d, r := scanDim(a), len(xs)
	dt := a.OutMeta.DType
	perm, back := make([]int, 0, r), make([]int, r)
	for i := range r {
		if i != d {
			perm = append(perm, i)
		}
	}
	perm = append(perm, d)
	for i, p := range perm {
		back[p] = i
	}
	x := b.Permute(b.Cast(a.X[0], dt), perm)
	gp := b.Permute(g, perm)
	n := xs[d]
	ps := make(tensor.Shape, 0, r)
	for _, p := range perm {
		ps = append(ps, xs[p])
	}
	row := append(ps[:r-1:r-1], 1, n) // [..., 1, n]
	sq := append(ps[:r-1:r-1], n, n)  // [..., n, n]
	xj := b.Expand(b.Reshape(x, row), sq)
	k := b.Iota(n, tensor.Shape{n, 1})
	j := b.Iota(n, tensor.Shape{1, n})
	one := b.Scalar(1, dt)
	q := b.Op(Cumprod, ScanAttrs{Dim: -1}, b.Where(b.Op(Gt, nil, j, k), xj, one))
	e := b.Op(Prod, ReduceAttrs{Dims: []int{-1}}, b.Where(b.Op(Lt, nil, j, k), xj, one))
	t := b.Sum(b.Where(b.Op(Ge, nil, j, k), b.Mul(b.Reshape(gp, row), q), b.Zero(g)), []int{-1}, false)
	return []T{b.Permute(b.Mul(e, t), back)}
}

func vectorNormGrad(b *Builder, a *GradArgs, g T) []T {
	na, _ := AttrsAs[VectorNormAttrs]("norm", a.Attrs)
	xs := a.In[0].Shape
	dims, _ := ReduceDims(na.Dims, len(xs))
	keep := ReduceShape(xs, dims, true)
	x := a.X[0]
	gk, out := b.Reshape(g, keep), b.Reshape(a.Out, keep)
	zero := b.Zero(g)
	sign := b.Op(Sign, nil, x)
	p := na.P
	switch {
	case p == 0:
		return []T{zerosOf(b, xs, g)}
	case p == 1:
		return []T{b.Mul(gk, sign)}
	case math.IsInf(p, 0):
		hit := b.Cast(b.Op(Eq, nil, b.Op(Abs, nil, x), out), g.Meta().DType)
		count := b.Sum(hit, dims, true)
		return []T{b.Mul(b.Mul(gk, sign), b.Div(hit, count))}
	case p == 2:
		return []T{b.Where(b.Op(Eq, nil, out, zero), zero, b.Div(b.Mul(gk, x), out))}
	}
	e := b.Scalar(p-1, g.Meta().DType)
	num := b.Mul(b.Mul(gk, sign), b.Op(Pow, nil, b.Op(Abs, nil, x), e))
	return []T{b.Where(b.Op(Eq, nil, out, zero), zero, b.Div(num, b.Op(Pow, nil, out, e)))}
}
