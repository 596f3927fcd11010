package ops

import "math"

// Gradient rules of the special functions of special.go (see grad.go),
// torch 1.13's formulas: each derivative of the gamma family is the next
// polygamma, so every order differentiates again.

func init() {
	// x in the result's dtype (integer inputs give float32 results).
	fx := func(b *Builder, a *GradArgs) T { return b.Cast(a.X[0], a.OutMeta.DType) }
	// polygamma(n, x) as a gradient factor.
	poly := func(b *Builder, n int, x T) T { return b.Op(Polygamma, PolygammaAttrs{N: n}, x) }
	defineGrads(map[Op]*Grad{
		// -2/√π·exp(-x²).
		Erfc: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := fx(b, a)
			return []T{b.Mul(g, b.MulScalar(b.Op(Exp, nil, b.Neg(b.Mul(x, x))), -2/math.Sqrt(math.Pi)))}
		}},
		// √π/2·exp(erfinv(x)²).
		Erfinv: {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Mul(g, b.MulScalar(b.Op(Exp, nil, b.Mul(a.Out, a.Out)), math.Sqrt(math.Pi)/2))}
		}},
		// digamma(x).
		Lgamma: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Mul(g, b.Op(Digamma, nil, fx(b, a)))}
		}},
		// polygamma(1, x).
		Digamma: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Mul(g, poly(b, 1, fx(b, a)))}
		}},
		// polygamma(n + 1, x).
		Polygamma: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			p, err := AttrsAs[PolygammaAttrs]("polygamma", a.Attrs)
			if err != nil {
				b.Fail(err)
				return []T{nil}
			}
			return []T{b.Mul(g, poly(b, p.N+1, fx(b, a)))}
		}},
	})
}
