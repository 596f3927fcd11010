package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Gradient rules of qr, eigh and svd (decompose.go; see grad.go): torch's
// (FunctionsManual's linalg_qr_backward, linalg_eig_backward and
// svd_backward) for real matrices, written with ops that have rules of
// their own, so that they differentiate again. Each reads the packed
// result and the packed cotangent, in which a factor the loss does not
// reach has zeros. Where torch's formulas divide by differences of
// eigenvalues or singular values, repeated ones give inf or NaN where
// the vectors' cotangents reach them, as in torch (a term whose numerator
// is 0 is 0); qr's solves with R, so a rank-deficient A gives inf or NaN,
// as torch's.

func init() {
	defineGrads(map[Op]*Grad{
		QR:   {SavesOut: true, VJP: qrVJP},
		Eigh: {SavesOut: true, VJP: eighVJP},
		SVD:  {SavesOut: true, VJP: svdVJP},
		Pinv: {Saves: []int{0}, SavesOut: true, VJP: pinvVJP},
	})
}

// qrVJP: for m ≥ n, A's cotangent is (gQ + Q·N)·R⁻ᵀ with M = gR·Rᵀ −
// Qᵀ·gQ and N = triu(M) + triu(M, 1)ᵀ. For m < n, A = [X | Y] with X =
// Q·R₁ square and R₂ = Qᵀ·Y: Y's cotangent is Q·gR₂ and X's the square
// rule's with gQ + Y·gR₂ᵀ for gQ.
func qrVJP(b *Builder, a *GradArgs, g T) []T {
	attrs := a.Attrs.(QRAttrs)
	s := a.In[0].Shape
	m, n := s[len(s)-2], s[len(s)-1]
	if attrs.Complete && m > n {
		b.Fail(fmt.Errorf("the gradient of qr with mode=\"complete\" is not defined for a matrix with more rows (%d) than columns (%d), as in torch: use mode=\"reduced\"", m, n))
		return nil
	}
	f, gf := b.Unpack(a.Out, a.In[0], attrs), b.Unpack(g, a.In[0], attrs)
	q, r, gq, gr := f[0], f[1], gf[0], gf[1]
	if m >= n {
		return []T{qrSquareVJP(b, q, r, gq, gr)}
	}
	last := len(s) - 1
	r1, r2, gr1, gr2 := b.narrow(r, last, m), b.rest(r, last, m), b.narrow(gr, last, m), b.rest(gr, last, m)
	y := b.Matmul(q, r2)
	gx := qrSquareVJP(b, q, r1, b.Add(gq, b.Matmul(y, b.Transpose(gr2))), gr1)
	return []T{b.Op(Cat, CatAttrs{Dim: last}, gx, b.Matmul(q, gr2))}
}

// qrSquareVJP is qr's rule where R is square (m ≥ n, reduced).
func qrSquareVJP(b *Builder, q, r, gq, gr T) T {
	m := b.Sub(b.Matmul(gr, b.Transpose(r)), b.Matmul(b.Transpose(q), gq))
	nsym := b.Add(b.Op(Trilu, TriluAttrs{Upper: true}, m), b.Transpose(b.Op(Trilu, TriluAttrs{Upper: true, Diagonal: 1}, m)))
	z := b.Add(gq, b.Matmul(q, nsym))
	// Z·R⁻ᵀ = (R⁻¹·Zᵀ)ᵀ.
	return b.Transpose(b.Op(TriangularSolve, TriangularAttrs{Upper: true}, r, b.Transpose(z)))
}

// eighVJP: A's cotangent is V·(diag(gL) + skew(Vᵀ·gV)/E)·Vᵀ with skew(X)
// = (X − Xᵀ)/2 and E_ij = L_j − L_i (1 on the diagonal): symmetric, as
// torch's.
func eighVJP(b *Builder, a *GradArgs, g T) []T {
	attrs := a.Attrs.(EighAttrs)
	f, gf := b.Unpack(a.Out, a.In[0], attrs), b.Unpack(g, a.In[0], attrs)
	l, v, gl, gv := f[0], f[1], gf[0], gf[1]
	vtgv := b.Matmul(b.Transpose(v), gv)
	skew := b.MulScalar(b.Sub(vtgv, b.Transpose(vtgv)), 0.5)
	inner := b.Add(quotient(b, skew, gaps(b, l)), diagEmbed(b, gl))
	return []T{b.Matmul(v, b.Matmul(inner, b.Transpose(v)))}
}

// svdVJP: with the reduced factors (full ones narrowed to them, as
// torch's derivative does), A's cotangent is U·(skew(Uᵀ·gU)/E·S +
// S·skew(Vᵀ·gV)/E + diag(gS))·Vh with skew(X) = X − Xᵀ and E_jk = S_k² −
// S_j² (1 on the diagonal), plus (gU − U·Uᵀ·gU)·S⁻¹·Vh when m > k and
// U·S⁻¹·(gVh − (Vᵀ·gV)ᵀ·Vh) when n > k.
func svdVJP(b *Builder, a *GradArgs, g T) []T {
	attrs := a.Attrs.(SVDAttrs)
	s := a.In[0].Shape
	m, n := s[len(s)-2], s[len(s)-1]
	k := min(m, n)
	f, gf := b.Unpack(a.Out, a.In[0], attrs), b.Unpack(g, a.In[0], attrs)
	u, sv, vh, gu, gs, gvh := f[0], f[1], f[2], gf[0], gf[1], gf[2]
	if attrs.Full {
		u, gu = b.narrow(u, len(s)-1, k), b.narrow(gu, len(s)-1, k)
		vh, gvh = b.narrow(vh, len(s)-2, k), b.narrow(gvh, len(s)-2, k)
	}
	batch := s[:len(s)-2]
	asRow := func(x T) T { return b.Reshape(x, append(batch.Clone(), 1, k)) }
	asCol := func(x T) T { return b.Reshape(x, append(batch.Clone(), k, 1)) }
	utgu := b.Matmul(b.Transpose(u), gu)
	vtgv := b.Matmul(vh, b.Transpose(gvh)) // Vᵀ·gV with V = Vhᵀ
	e := gaps(b, b.Mul(sv, sv))
	inner := b.Mul(quotient(b, b.Sub(utgu, b.Transpose(utgu)), e), asRow(sv))
	inner = b.Add(inner, b.Mul(asCol(sv), quotient(b, b.Sub(vtgv, b.Transpose(vtgv)), e)))
	ga := b.Matmul(u, b.Matmul(b.Add(inner, diagEmbed(b, gs)), vh))
	if m > k {
		proj := b.Sub(gu, b.Matmul(u, utgu))
		ga = b.Add(ga, b.Matmul(quotient(b, proj, asRow(sv)), vh))
	}
	if n > k {
		proj := b.Sub(gvh, b.Matmul(b.Transpose(vtgv), vh))
		ga = b.Add(ga, b.Matmul(u, quotient(b, proj, asCol(sv))))
	}
	return []T{ga}
}

// quotient is num/den, 0 where num is 0: the factors' terms vanish where
// their cotangents do, so that a loss of the values alone (svdvals,
// eigvalsh, the nuclear norm) has torch's finite gradient at repeated or
// zero values instead of 0/0.
func quotient(b *Builder, num, den T) T {
	return b.Where(b.Op(Eq, nil, num, b.Zero(num)), b.Zero(num), b.Div(num, den))
}

// gaps is E with E_ij = x_j − x_i off the diagonal and 1 on it, for x
// [..., k]: the denominators of the eigenvector and singular-vector
// rules.
func gaps(b *Builder, x T) T {
	if x == nil {
		return b.missing(Sub)
	}
	s := x.Meta().Shape
	batch, k := s[:len(s)-1], s[len(s)-1]
	e := b.Sub(b.Reshape(x, append(batch.Clone(), 1, k)), b.Reshape(x, append(batch.Clone(), k, 1)))
	return b.Add(e, b.Eye(k, x.Meta().DType))
}

// diagEmbed is the matrices [..., k, k] with x [..., k] on their
// diagonals.
func diagEmbed(b *Builder, x T) T {
	if x == nil {
		return b.missing(Mul)
	}
	s := x.Meta().Shape
	return b.Mul(b.Reshape(x, append(s[:len(s)-1].Clone(), 1, s[len(s)-1])), b.Eye(s[len(s)-1], x.Meta().DType))
}

// Eye is the n×n identity matrix in dt.
func (b *Builder) Eye(n int, dt tensor.DType) T { return b.EyeRect(n, n, dt) }

// narrow is x's first k entries along dim d.
func (b *Builder) narrow(x T, d, k int) T {
	if b.err != nil || x == nil {
		return b.missing(Index)
	}
	if x.Meta().Shape[d] == k {
		return x
	}
	return b.Op(Index, &IndexAttrs{Items: SliceAlong(d, 0, k)}, x)
}

// rest is x's entries along dim d from the k-th on.
func (b *Builder) rest(x T, d, k int) T {
	if b.err != nil || x == nil {
		return b.missing(Index)
	}
	return b.Op(Index, &IndexAttrs{Items: SliceAlong(d, k, x.Meta().Shape[d])}, x)
}

// EyeRect is the m×n matrix in dt with ones on its diagonal.
func (b *Builder) EyeRect(m, n int, dt tensor.DType) T {
	return b.Cast(b.Op(Eq, nil, b.Iota(m, tensor.Shape{m, 1}), b.Iota(n, tensor.Shape{1, n})), dt)
}

// pinvVJP is torch's pinv_backward (constant rank; after Golub and
// Pereyra): with P = pinv(A) and K formed on the smaller side,
//
//	m ≤ n: K = gᵀ·P, gA = −(P·K)ᵀ + K·Pᵀ − A·P·K·Pᵀ + Pᵀ·P·(gᵀ − K·A)
//	m > n: K = P·gᵀ, gA = −(K·P)ᵀ + (gᵀ − A·K)·P·Pᵀ + Pᵀ·K − Pᵀ·K·P·A
func pinvVJP(b *Builder, a *GradArgs, g T) []T {
	s := a.In[0].Shape
	m, n := s[len(s)-2], s[len(s)-1]
	x, p := a.X[0], a.Out
	pt, gt := b.Transpose(p), b.Transpose(g)
	if m <= n {
		k := b.Matmul(gt, p)
		kpt := b.Matmul(k, pt)
		ga := b.Sub(kpt, b.Transpose(b.Matmul(p, k)))
		ga = b.Sub(ga, b.Matmul(b.Matmul(x, p), kpt))
		return []T{b.Add(ga, b.Matmul(b.Matmul(pt, p), b.Sub(gt, b.Matmul(k, x))))}
	}
	k := b.Matmul(p, gt)
	ptk := b.Matmul(pt, k)
	ga := b.Sub(ptk, b.Transpose(b.Matmul(k, p)))
	ga = b.Add(ga, b.Matmul(b.Matmul(b.Sub(gt, b.Matmul(x, k)), p), pt))
	return []T{b.Sub(ga, b.Matmul(b.Matmul(ptk, p), x))}
}
