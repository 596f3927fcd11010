package ops

import "github.com/tref-lang/tref/runtime/tensor"

// Gradient rules of the elementwise ops (see grad.go). Broadcasting is
// undone by the tape (Builder.Fit), so binary rules return cotangents of
// the result's shape.

func init() {
	defineGrads(notDifferentiable("a comparison gives a bool tensor", Comparisons...))
	defineGrads(notDifferentiable("logical_not gives a bool tensor", LogicalNot))
	defineGrads(notDifferentiable("floor division is piecewise constant", FloorDiv))
	defineGrads(map[Op]*Grad{
		Add: {VJP: func(_ *Builder, _ *GradArgs, g T) []T { return []T{g, g} }},
		Sub: {VJP: func(b *Builder, _ *GradArgs, g T) []T { return []T{g, b.Neg(g)} }},
		Mul: {Saves: []int{0, 1}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{needed(a, 0, func() T { return b.Mul(g, a.X[1]) }), needed(a, 1, func() T { return b.Mul(g, a.X[0]) })}
		}},
		// d(x/y) = g/y and -g·x/y² = -(g/y)·out.
		Div: {Saves: []int{1}, SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			gx := b.Div(g, a.X[1])
			return []T{gx, needed(a, 1, func() T { return b.Neg(b.Mul(gx, a.Out)) })}
		}},
		// torch.remainder: x - floor(x/y)·y.
		Mod: {Saves: []int{0, 1}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{g, needed(a, 1, func() T { return b.Neg(b.Mul(g, b.Op(FloorDiv, nil, a.X[0], a.X[1]))) })}
		}},
		// torch.fmod: x - trunc(x/y)·y.
		Fmod: {Saves: []int{0, 1}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{g, needed(a, 1, func() T { return b.Neg(b.Mul(g, b.Op(Trunc, nil, b.Div(a.X[0], a.X[1])))) })}
		}},
		// g·x/out and g·y/out (NaN at the origin, as torch).
		Hypot: {Saves: []int{0, 1}, SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			r := b.Div(g, a.Out)
			return []T{needed(a, 0, func() T { return b.Mul(r, a.X[0]) }), needed(a, 1, func() T { return b.Mul(r, a.X[1]) })}
		}},
		// out/x, 0 where x is 0, as torch; the sign's source gets none.
		Copysign: {Saves: []int{0}, SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := b.Cast(a.X[0], a.OutMeta.DType)
			zero := b.Zero(g)
			ratio := b.Where(b.Op(Eq, nil, x, zero), zero, b.Div(a.Out, x))
			return []T{b.Mul(g, ratio), b.Fit(zero, a.In[1])}
		}},
		Pow: {Saves: []int{0, 1}, SavesOut: true, VJP: powGrad},
		// d atan2(y, x) = (x·dy - y·dx) / (x² + y²), NaN at the origin
		// (as torch).
		Atan2: {Saves: []int{0, 1}, VJP: atan2Grad},
		// torch's maximum/minimum: ties split the cotangent in halves.
		Maximum: {Saves: []int{0, 1}, VJP: extremumGrad(Gt)},
		Minimum: {Saves: []int{0, 1}, VJP: extremumGrad(Lt)},
		Neg:     {VJP: func(b *Builder, _ *GradArgs, g T) []T { return []T{b.Neg(g)} }},
		Exp:     {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T { return []T{b.Mul(g, a.Out)} }},
		Log:     {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T { return []T{b.Div(g, a.X[0])} }},
		Sqrt: {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Div(g, b.MulScalar(a.Out, 2))}
		}},
		// d rsqrt(x) = -x^(-3/2)/2 = -out³/2.
		Rsqrt: {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			o := a.Out
			return []T{b.Mul(g, b.MulScalar(b.Mul(o, b.Mul(o, o)), -0.5))}
		}},
		Sin: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Mul(g, b.Op(Cos, nil, a.X[0]))}
		}},
		Cos: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Neg(b.Mul(g, b.Op(Sin, nil, a.X[0])))}
		}},
		// 1 - tanh².
		Tanh: {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			o := a.Out
			return []T{b.Mul(g, b.Sub(b.Scalar(1, o.Meta().DType), b.Mul(o, o)))}
		}},
		Sigmoid: {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			o := a.Out
			return []T{b.Mul(g, b.Mul(o, b.Sub(b.Scalar(1, o.Meta().DType), o)))}
		}},
		Gelu: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Op(GeluBackward, nil, a.X[0], g)}
		}},
		GeluBackward: firstOrderOnly(Gelu),
		// silu = x·s, s = sigmoid(x): s·(1 + x·(1 - s)).
		Silu: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := a.X[0]
			s := b.Op(Sigmoid, nil, x)
			one := b.Scalar(1, x.Meta().DType)
			return []T{b.Mul(g, b.Mul(s, b.Add(one, b.Mul(x, b.Sub(one, s)))))}
		}},
		// abs: the sign of x, 0 at 0 (torch).
		Abs: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := a.X[0]
			zero := b.Zero(g)
			return []T{b.Where(b.Op(Gt, nil, x, zero), g, b.Where(b.Op(Lt, nil, x, zero), b.Neg(g), zero))}
		}},
		// relu: the cotangent where the result is positive (torch).
		Relu: {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			zero := b.Zero(g)
			return []T{b.Where(b.Op(Gt, nil, a.Out, zero), g, zero)}
		}},
		Clamp:  {Saves: []int{0}, VJP: clampGrad},
		Astype: {VJP: func(_ *Builder, _ *GradArgs, g T) []T { return []T{g} }},
		Where: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			zero := b.Zero(g)
			return []T{nil,
				needed(a, 1, func() T { return b.Where(a.X[0], g, zero) }),
				needed(a, 2, func() T { return b.Where(a.X[0], zero, g) })}
		}},
	})
}

// needed computes input i's cotangent only when the tape wants it.
func needed(a *GradArgs, i int, f func() T) T {
	if !a.Need[i] {
		return nil
	}
	return f()
}

// powGrad: d(x^y)/dx = y·x^(y-1), d/dy = out·log(x), with torch's
// convention that the latter is 0 where x = 0 and y >= 0.
func powGrad(b *Builder, a *GradArgs, g T) []T {
	x, y := a.X[0], a.X[1]
	dt := a.OutMeta.DType
	gx := needed(a, 0, func() T {
		yf := b.Cast(y, dt)
		return b.Mul(g, b.Mul(yf, b.Op(Pow, nil, x, b.Sub(yf, b.Scalar(1, dt)))))
	})
	gy := needed(a, 1, func() T {
		xf := b.Cast(x, dt)
		zero := b.Scalar(0, dt)
		safe := b.Where(b.Op(Eq, nil, xf, zero), b.Scalar(1, dt), xf)
		d := b.Mul(g, b.Mul(a.Out, b.Op(Log, nil, safe)))
		return b.Where(b.Op(Eq, nil, xf, zero), zero, d)
	})
	return []T{gx, gy}
}

// atan2Grad is atan2(y, x)'s rule: g·x/r² for y and -g·y/r² for x, where
// r² = x² + y².
func atan2Grad(b *Builder, a *GradArgs, g T) []T {
	dt := a.OutMeta.DType
	y, x := b.Cast(a.X[0], dt), b.Cast(a.X[1], dt)
	r2 := b.Add(b.Mul(x, x), b.Mul(y, y))
	return []T{
		needed(a, 0, func() T { return b.Div(b.Mul(g, x), r2) }),
		needed(a, 1, func() T { return b.Neg(b.Div(b.Mul(g, y), r2)) }),
	}
}

// extremumGrad is maximum's (cmp "gt") or minimum's ("lt") rule: the
// winner takes the cotangent, ties take half each.
func extremumGrad(cmp Op) VJPFunc {
	return func(b *Builder, a *GradArgs, g T) []T {
		x, y := a.X[0], a.X[1]
		half := b.MulScalar(g, 0.5)
		zero := b.Zero(g)
		tie := b.Op(Eq, nil, x, y)
		side := func(win T) T { return b.Where(tie, half, b.Where(win, g, zero)) }
		return []T{
			needed(a, 0, func() T { return side(b.Op(cmp, nil, x, y)) }),
			needed(a, 1, func() T { return side(b.Op(cmp, nil, y, x)) }),
		}
	}
}

// clampGrad passes the cotangent where min <= x <= max (torch).
func clampGrad(b *Builder, a *GradArgs, g T) []T {
	c, _ := AttrsAs[ClampAttrs]("clamp", a.Attrs)
	x := a.X[0]
	zero := b.Zero(g)
	if c.HasMin {
		g = b.Where(b.Op(Ge, nil, x, b.Scalar(c.Min, tensor.Float64)), g, zero)
	}
	if c.HasMax {
		g = b.Where(b.Op(Le, nil, x, b.Scalar(c.Max, tensor.Float64)), g, zero)
	}
	return []T{g}
}
