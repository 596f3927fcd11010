package ops

import "math"

// Gradient rules of the ops of logexp.go (see grad.go), torch 1.13's
// formulas.

func init() {
	// x in the result's dtype (integer inputs give float32 results).
	fx := func(b *Builder, a *GradArgs) T { return b.Cast(a.X[0], a.OutMeta.DType) }
	defineGrads(map[Op]*Grad{
		// 1/(1 + x).
		Log1p: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Div(g, b.Add(fx(b, a), b.Scalar(1, g.Meta().DType)))}
		}},
		// exp(x) = expm1(x) + 1.
		Expm1: {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Mul(g, b.Add(a.Out, b.Scalar(1, g.Meta().DType)))}
		}},
		// 1/(x ln 2), 1/(x ln 10).
		Log2: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Div(g, b.MulScalar(fx(b, a), math.Ln2))}
		}},
		Log10: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Div(g, b.MulScalar(fx(b, a), math.Ln10))}
		}},
		// -1/x² = -out².
		Reciprocal: {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Neg(b.Mul(g, b.Mul(a.Out, a.Out)))}
		}},
	})
}
