package ops

// Gradient rules of solve, det and cholesky (solve.go; see grad.go), all
// through solves, so that they differentiate again. A singular A has no
// inverse: det's gradient there is an error (torch's goes through an SVD).

func init() {
	defineGrads(map[Op]*Grad{
		// X = A⁻¹B: B's cotangent is A⁻ᵀg, A's minus that times Xᵀ.
		Solve: {Saves: []int{0}, SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			gb := b.Op(Solve, nil, b.Transpose(a.X[0]), g)
			var ga T
			if a.Need[0] {
				ga = b.Neg(b.Matmul(gb, b.Transpose(a.Out)))
			}
			return []T{ga, gb}
		}},
		// torch's linalg_solve_triangular backward: B's cotangent is
		// A⁻ᵀg (the other triangle of Aᵀ), A's minus that times Xᵀ within
		// the triangle read (its diagonal left out when unit).
		TriangularSolve: {Saves: []int{0}, SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			at, _ := AttrsAs[TriangularAttrs]("solve_triangular", a.Attrs)
			gb := b.Op(TriangularSolve, TriangularAttrs{Upper: !at.Upper, Unit: at.Unit}, b.Transpose(a.X[0]), g)
			var ga T
			if a.Need[0] {
				ga = b.Neg(b.Matmul(gb, b.Transpose(a.Out)))
				diag := 0
				if at.Unit {
					diag = 1
				}
				if !at.Upper {
					diag = -diag
				}
				ga = b.Op(Trilu, TriluAttrs{Upper: at.Upper, Diagonal: diag}, ga)
			}
			return []T{ga, gb}
		}},
		// d det(A) / dA = det(A) · A⁻ᵀ.
		Det: {Saves: []int{0}, SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			s := a.In[0].Shape
			scale := b.Reshape(b.Mul(g, a.Out), append(s[:len(s)-2].Clone(), 1, 1))
			return []T{b.Mul(scale, inverseTranspose(b, a))}
		}},
		// The sign's cotangent is dropped (it is piecewise constant); the
		// log's is g·A⁻ᵀ, as det's divided by det(A).
		Slogdet: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			s := a.In[0].Shape
			gl := b.Op(Index, &IndexAttrs{Items: AtAlong(0, 1)}, g)
			return []T{b.Mul(b.Reshape(gl, append(s[:len(s)-2].Clone(), 1, 1)), inverseTranspose(b, a))}
		}},
		// torch's cholesky_backward (after Murray, arXiv 1602.07527):
		// Φ = tril(Lᵀg) with its strict lower part mirrored and halved,
		// and A's cotangent L⁻ᵀ·Φ·L⁻¹, symmetric.
		Cholesky: {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			lt := b.Transpose(a.Out)
			phi := b.Op(Trilu, TriluAttrs{}, b.Matmul(lt, g))
			phi = b.MulScalar(b.Add(phi, b.Transpose(b.Op(Trilu, TriluAttrs{Diagonal: -1}, phi))), 0.5)
			upper := TriangularAttrs{Upper: true}
			left := b.Op(TriangularSolve, upper, lt, phi)                                // L⁻ᵀΦ
			return []T{b.Transpose(b.Op(TriangularSolve, upper, lt, b.Transpose(left)))} // (L⁻ᵀ(L⁻ᵀΦ)ᵀ)ᵀ = L⁻ᵀΦL⁻¹
		}},
		// torch's: the upper right block of exp([[Aᵀ, g], [0, Aᵀ]]), the
		// Fréchet derivative's adjoint at g (Najfeld and Havel), itself a
		// matrix_exp, so that it differentiates again.
		MatrixExp: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			s := a.In[0].Shape
			r, n := len(s), s[len(s)-1]
			at := b.Transpose(a.X[0])
			zero := b.Expand(b.Zero(at), s)
			m := b.Op(Cat, CatAttrs{Dim: r - 2}, b.Op(Cat, CatAttrs{Dim: r - 1}, at, g), b.Op(Cat, CatAttrs{Dim: r - 1}, zero, at))
			e := b.Op(MatrixExp, nil, m)
			e = b.Op(Index, &IndexAttrs{Items: SliceAlong(r-2, 0, n)}, e)
			return []T{b.Op(Index, &IndexAttrs{Items: SliceAlong(r-1, n, 2*n)}, e)}
		}},
	})
}

// inverseTranspose is A⁻ᵀ for the saved input A [..., n, n] of det or
// slogdet: a solve of Aᵀ against the identity, so it differentiates again.
func inverseTranspose(b *Builder, a *GradArgs) T {
	s := a.In[0].Shape
	return b.Op(Solve, nil, b.Transpose(a.X[0]), b.Expand(b.Eye(s[len(s)-1], a.OutMeta.DType), s))
}
