package cpu

import (
	"math"

	"github.com/tref-lang/tref/runtime/ops"
)

// Kernels of zeta, gammainc, gammaincc and erfcx (runtime/ops/special.go),
// in float64 per element, ported from torch 1.13's CPU code (ATen's
// Math.h: calc_igamma and calc_igammac after SciPy's igam.c, Cephes and
// Boost's Lanczos sum; calc_erfcx after the Faddeeva package), so the
// values at the edges (a or x below 0, a = 0, infinities, NaN) and the
// choice of method at each point are torch's. torch computes float32 in
// float32 (its own constants of convergence); tref computes it in float64
// and rounds, as its other special functions. zeta is special.go's.

func init() {
	for _, op := range ops.SpecialBinary {
		Register(op, withScalar(binaryKernel(op.Name())))
	}
}

const (
	// machEp is 2^-53, where the series stop.
	machEp = 1.11022302462515654042e-16
	// maxLog is log(MaxFloat64): exp underflows below its opposite.
	maxLog = 7.09782712893383996843e2
	// lanczosG is the g of the Lanczos sum lanczosSumExpgScaled.
	lanczosG = 6.024680040776729583740234375
)

// igamma is the regularized lower incomplete gamma function P(a, x) =
// γ(a, x)/Γ(a) (torch's calc_igamma): igamEdge's values at the edges; the
// uniform asymptotic expansion where a is large and x near a, 1 - Q where
// x > 1 and x > a, else the power series.
func igamma(a, x float64) float64 {
	if v, ok := igamEdge(a, x, true); ok {
		return v
	}
	if igamAsymptotic(a, x) {
		return igamAsymptoticSeries(a, x, true)
	}
	if x > 1 && x > a {
		return 1 - igammac(a, x)
	}
	return igamSeries(a, x)
}

// igammac is the regularized upper incomplete gamma function Q(a, x) =
// 1 - P(a, x) (torch's calc_igammac): igamEdge's values at the edges; the
// uniform asymptotic expansion where a is large and x near a, the
// continued fraction where x > 1.1 and x >= a, the series of DLMF 8.7.3
// for small x, else 1 - P.
func igammac(a, x float64) float64 {
	if v, ok := igamEdge(a, x, false); ok {
		return v
	}
	if igamAsymptotic(a, x) {
		return igamAsymptoticSeries(a, x, false)
	}
	switch {
	case x > 1.1:
		if x < a {
			return 1 - igamSeries(a, x)
		}
		return igamcContinuedFraction(a, x)
	case x <= 0.5:
		if -0.4/math.Log(x) < a {
			return 1 - igamSeries(a, x)
		}
		return igamcSeries(a, x)
	case x*1.1 < a:
		return 1 - igamSeries(a, x)
	}
	return igamcSeries(a, x)
}

// igamEdge is P(a, x) (lower) or Q(a, x) at the edges of their domain,
// and whether (a, x) is one: NaN for a or x below 0, at a = 0 = x and at
// a = inf = x; P is 1 at a = 0 < x and at x = inf, 0 at x = 0 and at
// a = inf, and Q the opposite. The order of the tests is torch's (a NaN
// a at x = 0 is an edge).
func igamEdge(a, x float64, lower bool) (float64, bool) {
	one, zero := 1.0, 0.0
	if !lower {
		one, zero = 0, 1
	}
	switch {
	case x < 0 || a < 0:
		return math.NaN(), true
	case a == 0:
		if x > 0 {
			return one, true
		}
		return math.NaN(), true
	case x == 0:
		return zero, true
	case math.IsInf(a, 0):
		if math.IsInf(x, 0) {
			return math.NaN(), true
		}
		return zero, true
	case math.IsInf(x, 0):
		return one, true
	}
	return 0, false
}

// igamAsymptotic says whether a and x are in the regime of the uniform
// asymptotic expansion: a in (20, 200) with x within 30% of a, or a past
// 200 with x within 4.5/√a of it (relative).
func igamAsymptotic(a, x float64) bool {
	r := math.Abs(x-a) / a
	return (a > 20 && a < 200 && r < 0.3) || (a > 200 && r < 4.5/math.Sqrt(a))
}

// ratevl evaluates the rational function num(x)/denom(x), coefficients
// highest power first, in powers of 1/x where |x| > 1.
func ratevl(x float64, num, denom []float64) float64 {
	poly := func(c []float64, y float64, rev bool) float64 {
		r := 0.0
		for i := range c {
			if rev {
				r = r*y + c[len(c)-1-i]
			} else {
				r = r*y + c[i]
			}
		}
		return r
	}
	if math.Abs(x) > 1 {
		y := 1 / x
		return math.Pow(x, float64(len(denom)-len(num))) * poly(num, y, true) / poly(denom, y, true)
	}
	return poly(num, x, false) / poly(denom, x, false)
}

// lanczosSumExpgScaled is Boost's Lanczos sum scaled by exp(-g) (the
// ratio of the two polynomials below).
func lanczosSumExpgScaled(x float64) float64 {
	return ratevl(x, []float64{
		0.006061842346248906525783753964555936883222, 0.5098416655656676188125178644804694509993,
		19.51992788247617482847860966235652136208, 449.9445569063168119446858607650988409623,
		6955.999602515376140356310115515198987526, 75999.29304014542649875303443598909137092,
		601859.6171681098786670226533699352302507, 3481712.15498064590882071018964774556468,
		14605578.08768506808414169982791359218571, 43338889.32467613834773723740590533316085,
		86363131.28813859145546927288977868422342, 103794043.1163445451906271053616070238554,
		56906521.91347156388090791033559122686859,
	}, []float64{
		1, 66, 1925, 32670, 357423, 2637558, 13339535, 45995730, 105258076, 150917976, 120543840, 39916800, 0,
	})
}

// igamFac is x^a·exp(-x)/Γ(a), by logarithms away from x = a and by the
// Lanczos approximation near it.
func igamFac(a, x float64) float64 {
	if math.Abs(a-x) > 0.4*math.Abs(a) {
		lg, _ := math.Lgamma(a)
		ax := a*math.Log(x) - x - lg
		if ax < -maxLog {
			return 0
		}
		return math.Exp(ax)
	}
	fac := a + lanczosG - 0.5
	res := math.Sqrt(fac/math.E) / lanczosSumExpgScaled(a)
	if a < 200 && x < 200 {
		return res * (math.Exp(a-x) * math.Pow(x/fac, a))
	}
	numfac := (x - a - lanczosG + 0.5) / fac
	return res * math.Exp(a*(math.Log1p(numfac)-numfac)+x*(0.5-lanczosG)/fac)
}

// igamSeries is P(a, x) by the power series of DLMF 8.11.4.
func igamSeries(a, x float64) float64 {
	ax := igamFac(a, x)
	if ax == 0 {
		return 0
	}
	r, c, ans := a, 1.0, 1.0
	for range 2000 {
		r++
		c *= x / r
		ans += c
		if c <= machEp*ans {
			break
		}
	}
	return ans * ax / a
}

// igamcSeries is Q(a, x) by the series of DLMF 8.7.3, which keeps the
// digits 1 - P would cancel for small x.
func igamcSeries(a, x float64) float64 {
	fac, sum := 1.0, 0.0
	for n := 1.0; n < 2000; n++ {
		fac *= -x / n
		term := fac / (a + n)
		sum += term
		if math.Abs(term) <= machEp*math.Abs(sum) {
			break
		}
	}
	logx := math.Log(x)
	lg1, _ := math.Lgamma(1 + a)
	lg, _ := math.Lgamma(a)
	return -math.Expm1(a*logx-lg1) - math.Exp(a*logx-lg)*sum
}

// igamcContinuedFraction is Q(a, x) by the continued fraction of DLMF
// 8.9.2 (Cephes' igamc), its terms rescaled when they grow large.
func igamcContinuedFraction(a, x float64) float64 {
	const big, bigInv = 4.503599627370496e15, 2.22044604925031308085e-16
	ax := igamFac(a, x)
	if ax == 0 {
		return 0
	}
	y := 1 - a
	z := x + y + 1
	c := 0.0
	pkm2, qkm2 := 1.0, x
	pkm1, qkm1 := x+1, z*x
	ans := pkm1 / qkm1
	for range 2000 {
		c++
		y++
		z += 2
		yc := y * c
		pk := pkm1*z - pkm2*yc
		qk := qkm1*z - qkm2*yc
		t := 1.0
		if qk != 0 {
			r := pk / qk
			t = math.Abs((ans - r) / r)
			ans = r
		}
		pkm2, pkm1 = pkm1, pk
		qkm2, qkm1 = qkm1, qk
		if math.Abs(pk) > big {
			pkm2 *= bigInv
			pkm1 *= bigInv
			qkm2 *= bigInv
			qkm1 *= bigInv
		}
		if t <= machEp {
			break
		}
	}
	return ans * ax
}

// igamAsymptoticSeries is P(a, x) (lower) or Q(a, x) by the uniform
// asymptotic expansion of DLMF 8.12.3/8.12.4 (Temme's): erfc of eta·√(a/2)
// plus a series in eta and 1/a, stopped where its terms stop shrinking.
// Its last factor divides by √(2π·a) with π rounded to float32, as
// torch's code does (c10::pi<float>): a relative 1.4e-8 of the
// correction, kept so that the values are torch's.
func igamAsymptoticSeries(a, x float64, lower bool) float64 {
	sgn := 1.0
	if lower {
		sgn = -1
	}
	lambda := x / a
	sigma := (x - a) / a
	eta := 0.0
	switch {
	case lambda > 1:
		eta = math.Sqrt(-2 * (math.Log1p(sigma) - sigma))
	case lambda < 1:
		eta = -math.Sqrt(-2 * (math.Log1p(sigma) - sigma))
	}
	res := 0.5 * math.Erfc(sgn*eta*math.Sqrt(a/2))
	var etapow [25]float64
	etapow[0] = 1
	maxpow := 0
	sum, afac, absoldterm := 0.0, 1.0, math.Inf(1)
	for k := range 25 {
		ck := igamAsymD[k][0]
		for n := 1; n < 25; n++ {
			if n > maxpow {
				etapow[n] = eta * etapow[n-1]
				maxpow++
			}
			ckterm := igamAsymD[k][n] * etapow[n]
			ck += ckterm
			if math.Abs(ckterm) < machEp*math.Abs(ck) {
				break
			}
		}
		term := ck * afac
		absterm := math.Abs(term)
		if absterm > absoldterm {
			break
		}
		sum += term
		if absterm < machEp*math.Abs(sum) {
			break
		}
		absoldterm = absterm
		afac /= a
	}
	const twoPiF32 = 2 * float64(float32(math.Pi))
	return res + sgn*math.Exp(-0.5*a*eta*eta)*sum/math.Sqrt(twoPiF32*a)
}

// erfcx is the scaled complementary error function exp(x²)·erfc(x)
// (torch's calc_erfcx, the Faddeeva package's): for x >= 0 a Chebyshev
// fit in y = 4/(4 + x) below 50 and a continued fraction above (1/(x√π)
// past 5e7); below 0, 2·exp(x²) - erfcx(-x), +inf below -26.7.
func erfcx(x float64) float64 {
	const ispi = 0.56418958354775628694807945156 // 1/√π
	switch {
	case math.IsNaN(x):
		return x
	case x >= 0:
		if x > 50 {
			if x > 5e7 {
				return ispi / x
			}
			x2 := x * x
			return ispi * (x2*(x2+4.5) + 2) / (x * (x2*(x2+5) + 3.75))
		}
		return erfcxY100Fit(400 / (4 + x))
	case x < -26.7:
		return math.Inf(1)
	case x < -6.1:
		return 2 * math.Exp(x*x)
	}
	return 2*math.Exp(x*x) - erfcxY100Fit(400/(4-x))
}

// erfcxY100Fit is erfcx at y100 = 400/(4 + x) in [0, 100] for x >= 0: the
// Chebyshev fit of y100's unit interval (exactly 1 at x = 0, y100 =
// 100). The products are rounded before each sum (no fused
// multiply-add), as torch's compiled code rounds them.
func erfcxY100Fit(y100 float64) float64 {
	k := int(y100)
	if k >= len(erfcxY100) {
		return 1
	}
	c := &erfcxY100[k]
	t := 2*y100 - float64(2*k+1)
	r := c[6]
	for i := 5; i >= 0; i-- {
		r = c[i] + float64(r*t)
	}
	return r
}
