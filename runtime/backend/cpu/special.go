package cpu

import (
	"math"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Kernels of the special functions of runtime/ops/special.go, in float64
// per element (floatMap). digamma, trigamma and the Hurwitz zeta behind
// polygamma follow torch 1.13's CPU code (ATen's Math.h, after Cephes), so
// the values at poles, at ±0 and at ±inf are torch's.

var specialFuncs = map[ops.Op]func(float64) float64{
	ops.Erfc: math.Erfc, ops.Erfinv: math.Erfinv, ops.Lgamma: lgamma, ops.Digamma: digamma, ops.Erfcx: erfcx,
}

func init() {
	registerFloatMaps(ops.Special, specialFuncs)
	Register(ops.Polygamma, func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		if err := checkInputs("polygamma", ins, 1); err != nil {
			return err
		}
		a, err := ops.AttrsAs[ops.PolygammaAttrs]("polygamma", attrs)
		if err != nil {
			return err
		}
		return floatMap("polygamma", out, ins[0], func(x float64) float64 { return polygamma(a.N, x) })
	})
}

// lgamma is log|Γ(x)| as C's lgamma (Go's gives -inf at -inf, C +inf).
func lgamma(x float64) float64 {
	if math.IsInf(x, -1) {
		return math.Inf(1)
	}
	v, _ := math.Lgamma(x)
	return v
}

// digamma is ψ(x) = Γ'(x)/Γ(x): ∓inf at ±0, NaN at the negative
// integers and -inf, the reflection formula below 0, and above 10 the
// asymptotic series after the recurrence ψ(x) = ψ(x + 1) - 1/x.
func digamma(x float64) float64 {
	const psi10 = 2.25175258906672110764 // ψ(10)
	if x == 0 {
		return math.Copysign(math.Inf(1), -x)
	}
	if x < 0 {
		if x == math.Trunc(x) {
			return math.NaN()
		}
		// tan(π·r) with r x's fractional part is more precise than tan(π·x).
		_, r := math.Modf(x)
		return digamma(1-x) - math.Pi/math.Tan(math.Pi*r)
	}
	result := 0.0
	for x < 10 {
		result -= 1 / x
		x++
	}
	if x == 10 {
		return result + psi10
	}
	y := 0.0
	if x < 1e17 {
		z := 1 / (x * x)
		y = z * polevl(z, []float64{
			8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
			-4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
			8.33333333333333333333e-2,
		})
	}
	return result + math.Log(x) - 0.5/x - y
}

// polevl evaluates the polynomial with coefficients c (highest power
// first) at x.
func polevl(x float64, c []float64) float64 {
	r := 0.0
	for _, v := range c {
		r = r*x + v
	}
	return r
}

// trigamma is ψ'(x): the reflection formula below 1/2, six steps of the
// recurrence and the asymptotic series.
func trigamma(x float64) float64 {
	sign, result := 1.0, 0.0
	if x < 0.5 {
		sign = -1
		s := math.Sin(math.Pi * x)
		result -= math.Pi * math.Pi / (s * s)
		x = 1 - x
	}
	for range 6 {
		result += 1 / (x * x)
		x++
	}
	ixx := 1 / (x * x)
	result += (1 + 1/(2*x) + ixx*(1./6-ixx*(1./30-ixx*(1./42)))) / x
	return sign * result
}

// polygamma is ψ⁽ⁿ⁾(x), the n-th derivative of digamma: digamma and
// trigamma for n 0 and 1, else (-1)ⁿ⁺¹·n!·ζ(n + 1, x).
func polygamma(n int, x float64) float64 {
	switch n {
	case 0:
		return digamma(x)
	case 1:
		return trigamma(x)
	}
	sign := -1.0
	if n%2 == 1 {
		sign = 1
	}
	lg, _ := math.Lgamma(float64(n) + 1)
	return sign * math.Exp(lg) * zetaNegative(float64(n+1), x)
}

// zetaNegative is zeta(s, q), polygamma's and the zeta op's. torch sums
// the terms (q + k)^-s one by one from a negative q up to 9, which takes
// -q steps; for an integer s > 1 and a non-integer q below -64 the terms
// at negative q + k are summed instead as a difference of two zetas of
// positive arguments:
//
//	Σ_{k<m} (q+k)^-s = (-1)^s·(ζ(s, 1-f) - ζ(s, 1-f+m)), m = -floor(q), f = q + m.
func zetaNegative(s, q float64) float64 {
	if q >= -64 || q == math.Floor(q) || math.IsNaN(q) || s <= 1 || s != math.Floor(s) || math.IsInf(s, 0) {
		return zeta(s, q)
	}
	m := -math.Floor(q)
	f := q + m
	neg := zeta(s, 1-f) - zeta(s, 1-f+m)
	if math.Mod(s, 2) == 1 {
		neg = -neg
	}
	return zeta(s, f) + neg
}

// zetaA are the Euler-Maclaurin coefficients of zeta: (2k)!/B_2k.
var zetaA = []float64{
	12.0, -720.0, 30240.0, -1209600.0, 47900160.0,
	-1.8924375803183791606e9, 7.47242496e10, -2.950130727918164224e12,
	1.1646782814350067249e14, -4.5979787224074726105e15,
	1.8152105401943546773e17, -7.1661652561756670113e18,
}

// zeta is the Hurwitz zeta function ζ(x, q) = Σ_{k≥0} (q+k)^-x, as
// Cephes and torch: +inf at x = 1 and at the non-positive integer q, NaN
// for x < 1 and for a negative q with a non-integer x.
func zeta(x, q float64) float64 {
	const machep = 1.11022302462515654042e-16
	if x == 1 {
		return math.Inf(1)
	}
	if x < 1 {
		return math.NaN()
	}
	if q <= 0 {
		if q == math.Floor(q) {
			return math.Inf(1)
		}
		if x != math.Floor(x) {
			return math.NaN()
		}
	}
	s := math.Pow(q, -x)
	a, b := q, 0.0
	for i := 0; i < 9 || a <= 9; {
		i++
		a++
		b = math.Pow(a, -x)
		s += b
		if -machep*s < b && b < machep*s {
			return s
		}
	}
	w := a
	s += b * w / (x - 1)
	s -= 0.5 * b
	a, k := 1.0, 0.0
	for _, c := range zetaA {
		a *= x + k
		b /= w
		t := a * b / c
		s += t
		if math.Abs(t/s) < machep {
			return s
		}
		k++
		a *= x + k
		b /= w
		k++
	}
	return s
}
