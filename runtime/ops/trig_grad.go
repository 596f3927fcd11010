package ops

// Gradient rules of the ops of trig.go (see grad.go): torch 1.13's
// formulas, so the cotangent is inf or NaN where theirs is (asin and acos
// at ±1, acosh at 1, atanh at ±1).

func init() {
	// x in the result's dtype (integer inputs give float32 results).
	fx := func(b *Builder, a *GradArgs) T { return b.Cast(a.X[0], a.OutMeta.DType) }
	one := func(b *Builder, g T) T { return b.Scalar(1, g.Meta().DType) }
	defineGrads(map[Op]*Grad{
		// 1 + tan².
		Tan: {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Mul(g, b.Add(one(b, g), b.Mul(a.Out, a.Out)))}
		}},
		// ±1/√(1 - x²).
		Asin: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := fx(b, a)
			return []T{b.Div(g, b.Op(Sqrt, nil, b.Sub(one(b, g), b.Mul(x, x))))}
		}},
		Acos: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := fx(b, a)
			return []T{b.Neg(b.Div(g, b.Op(Sqrt, nil, b.Sub(one(b, g), b.Mul(x, x)))))}
		}},
		// 1/(1 + x²).
		Atan: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := fx(b, a)
			return []T{b.Div(g, b.Add(one(b, g), b.Mul(x, x)))}
		}},
		Sinh: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Mul(g, b.Op(Cosh, nil, fx(b, a)))}
		}},
		Cosh: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Mul(g, b.Op(Sinh, nil, fx(b, a)))}
		}},
		// 1/√(x² ± 1).
		Asinh: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := fx(b, a)
			return []T{b.Div(g, b.Op(Sqrt, nil, b.Add(b.Mul(x, x), one(b, g))))}
		}},
		Acosh: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := fx(b, a)
			return []T{b.Div(g, b.Op(Sqrt, nil, b.Sub(b.Mul(x, x), one(b, g))))}
		}},
		// 1/(1 - x²).
		Atanh: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := fx(b, a)
			return []T{b.Div(g, b.Sub(one(b, g), b.Mul(x, x)))}
		}},
	})
}
