package ops

import (
	"fmt"
	"math"
)

// Gradient rules of the special functions of special.go (see grad.go),
// torch 1.13's formulas: each derivative of the gamma family is the next
// polygamma, so every order differentiates again. zeta, gammainc and
// gammaincc differentiate along their second operand only, as torch.

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
		// 2x·erfcx(x) - 2/√π.
		Erfcx: {Saves: []int{0}, SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			d := b.Sub(b.MulScalar(b.Mul(fx(b, a), a.Out), 2), b.Scalar(2/math.Sqrt(math.Pi), a.OutMeta.DType))
			return []T{b.Mul(g, d)}
		}},
		// -x·ζ(x + 1, q) for q; none for x, as torch.
		Zeta: {Saves: []int{0, 1}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{noGradFor(b, a, 0, "x (input)", "q (other)"), needed(a, 1, func() T {
				dt := a.OutMeta.DType
				x := b.Cast(a.X[0], dt)
				z := b.Op(Zeta, nil, b.Add(x, b.Scalar(1, dt)), b.Cast(a.X[1], dt))
				return b.Mul(b.Mul(g, b.Neg(x)), z)
			})}
		}},
		// ±exp(-x)·x^(a-1)/Γ(a) for x, in logarithms as torch; none for a.
		Gammainc:  {Saves: []int{0, 1}, VJP: gammaincGrad(1)},
		Gammaincc: {Saves: []int{0, 1}, VJP: gammaincGrad(-1)},
	})
}

// gammaincGrad is the rule of gammainc (sign 1) or gammaincc (sign -1):
// the derivative along x is sign·exp((a - 1)·log(x) - x - lgamma(a)),
// torch's formula (NaN at x = 0 for a = 1, as torch's); along a torch
// has none, nor has tref.
func gammaincGrad(sign float64) VJPFunc {
	return func(b *Builder, a *GradArgs, g T) []T {
		return []T{noGradFor(b, a, 0, "a (input)", "x (other)"), needed(a, 1, func() T {
			dt := a.OutMeta.DType
			p, x := b.Cast(a.X[0], dt), b.Cast(a.X[1], dt)
			e := b.Sub(b.Sub(b.Mul(b.Sub(p, b.Scalar(1, dt)), b.Op(Log, nil, x)), x), b.Op(Lgamma, nil, p))
			return b.Mul(g, b.MulScalar(b.Op(Exp, nil, e), sign))
		})}
	}
}

// noGradFor fails a rule whose input i (what) wants a cotangent, which
// torch does not implement either (only other has one); it gives nil.
// The tape names the op first ("gradient of zeta: ...").
func noGradFor(b *Builder, a *GradArgs, i int, what, other string) T {
	if a.Need[i] {
		b.Fail(fmt.Errorf("not implemented with respect to %s, as in torch (only %s has a gradient); "+
			"differentiate with respect to %s alone, or make %s a constant with detach", what, other, other, what))
	}
	return nil
}
