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
	defineGrads(notDifferentiable("searchsorted gives int64 indices", Searchsorted))
	defineGrads(notDifferentiable("cummax and cummin locate elements: their values are a gather at these indices", CummaxIndices, CumminIndices))
	defineGrads(map[Op]*Grad{
		// torch's rule (after TensorFlow's cumulative_logsumexp): the
		// positive and the negative parts of g, each summed in log space
		// by a reversed logcumsumexp, so that no exp overflows.
		Logcumsumexp: {Saves: []int{0}, SavesOut: true, VJP: logcumsumexpGrad},
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

// cumprodGrad is exact where x has zeros (no division by x), and a
// polynomial in x and g, so that its own gradient is exact too: with k
// and j positions along the scanned dimension,
//
//	dx_k = E_k · T_k,  E_k = Π_{i<k} x_i,  T_k = Σ_{j≥k} g_j · Π_{k<i≤j} x_i,
//
// E being the running product shifted one place, and T the solution of
// T_k = g_k + x_{k+1} · T_{k+1} from the end, a linear recurrence that
// log₂(n) doubling steps of whole-tensor ops solve: O(n log n) work and
// O(n) memory, where the matrix of the products Π_{k<i≤j} would take
// O(n²) (a cumprod over 2^18 elements asked for 256 GiB).
func cumprodGrad(b *Builder, a *GradArgs, g T) []T {
	xs := a.In[0].Shape
	if len(xs) == 0 {
		return []T{g}
	}
	d := scanDim(a)
	n := xs[d]
	x := b.Cast(a.X[0], a.OutMeta.DType)
	rank := len(xs)
	e := shift(b, b.Op(Cumprod, ScanAttrs{Dim: d}, x), rank, d, 1, 1)
	// Reversed, the recurrence is u_r = c_r + m_r · u_{r-1}: c is g
	// reversed, m is x_{k+1} reversed (m_0 = 0: u starts at c_0). Each
	// step makes u_r = c_r + m_r · u_{r-2s}, folding in the terms s
	// places back; nothing lies before the start.
	c := reverse(b, g, d)
	m := reverse(b, shift(b, x, rank, d, -1, 0), d)
	for s := 1; s < n; s *= 2 {
		c, m = b.Add(c, b.Mul(m, shift(b, c, rank, d, s, 0))), b.Mul(m, shift(b, m, rank, d, s, 0))
	}
	return []T{b.Mul(e, reverse(b, c, d))}
}

// shift moves the elements of x (of the given rank) s places along
// dimension d (toward the end if s > 0, else toward the start), filling
// the places left with fill. (x is nil after a failure: the builder's
// ops ignore it.)
func shift(b *Builder, x T, rank, d, s int, fill float64) T {
	pads := make([]int, 2*(rank-d))
	pads[len(pads)-2], pads[len(pads)-1] = s, -s
	return b.Op(Pad, PadAttrs{Pads: pads, Mode: PadConstant, Value: fill}, x)
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

// logcumsumexpGrad is exp(rev(log g⁺ - out) + x) - exp(rev(log g⁻ - out)
// + x), rev the logcumsumexp from the end of dim, log g± the logarithm of
// g's positive (negative) part and the lowest float elsewhere.
func logcumsumexpGrad(b *Builder, a *GradArgs, g T) []T {
	sa, _ := AttrsAs[ScanAttrs]("logcumsumexp", a.Attrs)
	s := a.In[0].Shape
	if len(s) == 0 || s.Numel() == 0 {
		return []T{g}
	}
	dim := sa.Dim
	if dim < 0 {
		dim += len(s)
	}
	dt := g.Meta().DType
	flip := func(x T) T {
		items := FullSlices(len(s))
		items[dim].Step = -1
		return b.Op(Index, &IndexAttrs{Items: items}, x)
	}
	reversed := func(x T) T { return flip(b.Op(Logcumsumexp, ScanAttrs{Dim: dim}, flip(x))) }
	lowest := -dt.MaxFinite()
	logAbs := b.Op(Log, nil, b.Op(Abs, nil, g))
	zero := b.Zero(g)
	part := func(cmp Op) T {
		lg := b.Where(b.Op(cmp, nil, g, zero), logAbs, b.Scalar(lowest, dt))
		return b.Op(Exp, nil, b.Add(reversed(b.Sub(lg, a.Out)), a.X[0]))
	}
	return []T{b.Sub(part(Gt), part(Lt))}
}
