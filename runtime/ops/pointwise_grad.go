package ops

import "math"

// Gradient rules of the pointwise ops of pointwise.go (see grad.go), with
// torch 1.13's conventions at the kinks.

func init() {
	defineGrads(notDifferentiable("rounding is piecewise constant", Floor, Ceil, Round, Trunc, Sign))
	defineGrads(notDifferentiable("isnan and isinf give bool tensors", Isnan, Isinf))
	defineGrads(map[Op]*Grad{
		// The cotangent where x is finite.
		NanToNum: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := a.X[0]
			zero := b.Zero(g)
			return []T{b.Where(b.Op(Isnan, nil, x), zero, b.Where(b.Op(Isinf, nil, x), zero, g))}
		}},
		// 2/√π·exp(-x²).
		Erf: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := b.Cast(a.X[0], a.OutMeta.DType)
			return []T{b.Mul(g, b.MulScalar(b.Op(Exp, nil, b.Neg(b.Mul(x, x))), 2/math.Sqrt(math.Pi)))}
		}},
		LeakyRelu: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			l, _ := AttrsAs[LeakyReluAttrs]("leaky_relu", a.Attrs)
			return []T{b.Where(b.Op(Gt, nil, a.X[0], b.Zero(g)), g, b.MulScalar(g, l.NegativeSlope))}
		}},
		// x > 0: 1, else α·exp(x).
		Elu: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			e, _ := AttrsAs[EluAttrs]("elu", a.Attrs)
			x := a.X[0]
			return []T{b.Where(b.Op(Gt, nil, x, b.Zero(g)), g, b.Mul(g, b.MulScalar(b.Op(Exp, nil, x), e.Alpha)))}
		}},
		// β·x > threshold: 1, else sigmoid(β·x).
		Softplus: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			s, _ := AttrsAs[SoftplusAttrs]("softplus", a.Attrs)
			bx := b.MulScalar(a.X[0], s.Beta)
			return []T{b.Where(b.Op(Gt, nil, bx, b.Scalar(s.Threshold, g.Meta().DType)), g, b.Mul(g, b.Op(Sigmoid, nil, bx)))}
		}},
		// 1/6 strictly inside (-3, 3).
		Hardsigmoid: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := a.X[0]
			dt := g.Meta().DType
			zero := b.Zero(g)
			inner := b.Where(b.Op(Lt, nil, x, b.Scalar(3, dt)), b.MulScalar(g, 1.0/6), zero)
			return []T{b.Where(b.Op(Gt, nil, x, b.Scalar(-3, dt)), inner, zero)}
		}},
		// x < -3: 0; x <= 3: x/3 + 1/2; else 1.
		Hardswish: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			x := a.X[0]
			dt := g.Meta().DType
			mid := b.Mul(g, b.Add(b.MulScalar(x, 1.0/3), b.Scalar(0.5, dt)))
			return []T{b.Where(b.Op(Lt, nil, x, b.Scalar(-3, dt)), b.Zero(g),
				b.Where(b.Op(Le, nil, x, b.Scalar(3, dt)), mid, g))}
		}},
		// gelu_tanh = x·(1 + t)/2, t = tanh(k(x + c·x³)):
		// (1 + t)/2 + x/2·(1 - t²)·k(1 + 3c·x²).
		GeluTanh: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			const c = 0.044715
			k := math.Sqrt(2 / math.Pi)
			x := a.X[0]
			dt := g.Meta().DType
			one := b.Scalar(1, dt)
			x2 := b.Mul(x, x)
			t := b.Op(Tanh, nil, b.MulScalar(b.Add(x, b.MulScalar(b.Mul(x2, x), c)), k))
			du := b.MulScalar(b.Add(one, b.MulScalar(x2, 3*c)), k)
			d := b.Add(b.MulScalar(b.Add(one, t), 0.5), b.Mul(b.MulScalar(x, 0.5), b.Mul(b.Sub(one, b.Mul(t, t)), du)))
			return []T{b.Mul(g, d)}
		}},
	})
}
