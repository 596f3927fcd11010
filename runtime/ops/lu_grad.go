package ops

import "github.com/tref-lang/tref/runtime/tensor"

// lu's gradient rule (decompose.go): torch's linalg_lu_backward, as
// lu_factor's backward reaches it, written with ops that have rules of
// their own. Only LU has a cotangent (the pivots and the permutation are
// integers); L's is its first k columns and U's its first k rows. The
// triangular solves divide by U's diagonal: a singular A gives inf or
// NaN, as torch's.

func init() {
	defineGrads(map[Op]*Grad{LU: {SavesOut: true, VJP: luVJP}})
}

// LUFactors are the parts of an lu op's packed result over an input of
// meta in: the permutation matrix P [..., m, m] (A = P·L·U), L [..., m,
// k] (unit lower triangular) and U [..., k, n] (upper triangular).
func (b *Builder) LUFactors(packed T, in tensor.Meta) (p, l, u T) {
	f := b.Unpack(packed, in, LUAttrs{})
	if b.err != nil {
		return nil, nil, nil
	}
	l, u = b.LUTriangles(f[0])
	return b.PermutationMatrix(f[2]), l, u
}

// LUTriangles are L [..., m, k] (its unit diagonal added) and U [...,
// k, n] read from the packed factors lu [..., m, n] (k = min(m, n)).
func (b *Builder) LUTriangles(lu T) (l, u T) {
	if b.err != nil || lu == nil {
		return b.missing(Trilu), nil
	}
	s := lu.Meta().Shape
	r := len(s)
	m, n := s[r-2], s[r-1]
	k := min(m, n)
	l = b.Add(b.Op(Trilu, TriluAttrs{Diagonal: -1}, b.narrow(lu, r-1, k)), b.EyeRect(m, k, lu.Meta().DType))
	u = b.Op(Trilu, TriluAttrs{Upper: true}, b.narrow(lu, r-2, k))
	return l, u
}

// PermutationMatrix is P [..., m, m] in perm's (float) dtype with P[j,
// i] = 1 where perm[i] = j, for perm [..., m]: Pᵀ·A has row perm[i] of A
// as its row i.
func (b *Builder) PermutationMatrix(perm T) T {
	if b.err != nil || perm == nil {
		return b.missing(Eq)
	}
	s, dt := perm.Meta().Shape, perm.Meta().DType
	m := s[len(s)-1]
	return b.Cast(b.Op(Eq, nil, b.Reshape(perm, append(s[:len(s)-1].Clone(), 1, m)), b.Cast(b.Iota(m, tensor.Shape{m, 1}), dt)), dt)
}

// luVJP, with gL = g[..., :, :k] and gU = g[..., :k, :] (k = min(m, n)):
//
//	m = n: gA = P·L⁻ᵀ·(tril(Lᵀ·gL, −1) + triu(gU·Uᵀ))·U⁻ᵀ
//	m < n: X = tril(Lᵀ·gL − triu(gU)·Uᵀ, −1)·U₁⁻ᵀ,
//	       gA = P·L⁻ᵀ·[X + triu(gU₁) | gU₂]
//	m > n: X = L₁⁻ᵀ·triu(gU·Uᵀ − Lᵀ·tril(gL, −1)),
//	       gA = P·[X + tril(gL₁, −1) ; gL₂]·U⁻ᵀ
//
// with U = [U₁ | U₂] (U₁ square) and L = [L₁ ; L₂] (L₁ square).
func luVJP(b *Builder, a *GradArgs, g T) []T {
	in := a.In[0]
	s := in.Shape
	r := len(s)
	m, n := s[r-2], s[r-1]
	k := min(m, n)
	p, l, u := b.LUFactors(a.Out, in)
	glu := b.Unpack(g, in, LUAttrs{})
	if b.err != nil {
		return nil
	}
	gl, gu := b.narrow(glu[0], r-1, k), b.narrow(glu[0], r-2, k)
	lower := func(x T, diag int) T { return b.Op(Trilu, TriluAttrs{Diagonal: diag}, x) }
	upper := func(x T) T { return b.Op(Trilu, TriluAttrs{Upper: true}, x) }
	// X·U⁻ᵀ for square U is (U⁻¹·Xᵀ)ᵀ; L⁻ᵀ·X for square L a solve with
	// Lᵀ's unit upper triangle.
	rightUT := func(x, u T) T {
		return b.Transpose(b.Op(TriangularSolve, TriangularAttrs{Upper: true}, u, b.Transpose(x)))
	}
	leftLT := func(l, x T) T {
		return b.Op(TriangularSolve, TriangularAttrs{Upper: true, Unit: true}, b.Transpose(l), x)
	}
	lt := b.Transpose(l)
	var ga T
	switch {
	case m == n:
		x := b.Add(lower(b.Matmul(lt, gl), -1), upper(b.Matmul(gu, b.Transpose(u))))
		ga = leftLT(l, rightUT(x, u))
	case m < n:
		u1 := b.narrow(u, r-1, k)
		x := b.Sub(b.Matmul(lt, gl), b.Matmul(upper(gu), b.Transpose(u)))
		x = rightUT(lower(x, -1), u1)
		x = b.Op(Cat, CatAttrs{Dim: r - 1}, b.Add(x, upper(b.narrow(gu, r-1, k))), b.rest(gu, r-1, k))
		ga = leftLT(l, x)
	default:
		l1 := b.narrow(l, r-2, k)
		x := b.Sub(b.Matmul(gu, b.Transpose(u)), b.Matmul(lt, lower(gl, -1)))
		x = leftLT(l1, upper(x))
		x = b.Op(Cat, CatAttrs{Dim: r - 2}, b.Add(x, lower(b.narrow(gl, r-2, k), -1)), b.rest(gl, r-2, k))
		ga = rightUT(x, u)
	}
	return []T{b.Matmul(p, ga)}
}
