package cpu

import (
	"math"
	"testing"
)

// TestSpecialValues checks the special functions at points whose values
// are known in closed form or were printed by torch 1.13 in float64, and
// torch's values at poles, zeros and infinities.
func TestSpecialValues(t *testing.T) {
	const euler = 0.57721566490153286061
	zeta3 := 1.2020569031595942854
	cases := []struct {
		name      string
		got, want float64
	}{
		{"digamma(1)", digamma(1), -euler},
		{"digamma(0.5)", digamma(0.5), -euler - 2*math.Ln2},
		{"digamma(10)", digamma(10), 2.25175258906672110764},
		{"digamma(-0.5)", digamma(-0.5), 0.03648997397857652},
		{"digamma(100.5)", digamma(100.5), 4.605174352581845},
		// torch's trigamma, whose series stops 5e-10 short of π²/6 at 1.
		{"trigamma(1)", trigamma(1), 1.6449340676383375},
		{"trigamma(-0.5)", trigamma(-0.5), 8.934802200117687},
		{"polygamma(2, 1)", polygamma(2, 1), -2 * zeta3},
		{"polygamma(3, 1)", polygamma(3, 1), math.Pow(math.Pi, 4) / 15},
		{"polygamma(2, 0.5)", polygamma(2, 0.5), -14 * zeta3},
		{"lgamma(0.5)", lgamma(0.5), math.Log(math.Sqrt(math.Pi))},
		{"lgamma(-inf)", lgamma(math.Inf(-1)), math.Inf(1)},
		{"digamma(+0)", digamma(0), math.Inf(-1)},
		{"digamma(-0)", digamma(math.Copysign(0, -1)), math.Inf(1)},
		{"digamma(inf)", digamma(math.Inf(1)), math.Inf(1)},
		{"zeta(1, 2)", zeta(1, 2), math.Inf(1)},
		{"zeta(3, -2)", zeta(3, -2), math.Inf(1)},
	}
	for _, c := range cases {
		if !relClose(c.got, c.want, 1e-13) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for name, v := range map[string]float64{"digamma(-2)": digamma(-2), "digamma(-inf)": digamma(math.Inf(-1)),
		"digamma(NaN)": digamma(math.NaN()), "zeta(0.5, 1)": zeta(0.5, 1), "zeta(2.5, -1.5)": zeta(2.5, -1.5)} {
		if !math.IsNaN(v) {
			t.Errorf("%s = %v, want NaN", name, v)
		}
	}
}

// relClose says whether got is want within a relative tolerance (equal
// infinities agree).
func relClose(got, want, rtol float64) bool {
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= rtol*math.Abs(want)
}

// TestZetaFarNegative: below -64, zetaNegative sums the terms at negative
// arguments as a difference of two zetas; it agrees with the term-by-term
// sum of zeta where that is still quick, and answers at once where the
// sum would take 1e15 steps. Both lose the digits that the terms nearest
// the poles cancel, so they agree relative to the largest term.
func TestZetaFarNegative(t *testing.T) {
	for _, s := range []float64{3, 4, 5} {
		for _, q := range []float64{-64.5, -100.25, -777.875, -4096.3, -1e6 - 0.25} {
			largest := math.Pow(math.Abs(q-math.Round(q)), -s)
			if got, want := zetaNegative(s, q), zeta(s, q); math.Abs(got-want) > 1e-13*largest {
				t.Errorf("zeta(%v, %v): %v by the difference, %v by the sum", s, q, got, want)
			}
		}
	}
	// The terms (q + k)^-3 at q = -1e15 + 0.5 cancel in pairs (±0.5,
	// ±1.5, ...) but for those past 1e15, which sum to about 1e-30; the
	// difference of zetas (about 8 each) gives 0 up to their rounding.
	if v := polygamma(2, -999999999999999.5); math.IsNaN(v) || math.Abs(v) > 1e-6 {
		t.Errorf("polygamma(2, -1e15 + 0.5) = %v, want about 0", v)
	}
}

// TestSpecialMoreValues checks erfcx and the incomplete gamma functions
// on every branch against torch 1.13's float64 values (printed with
// ATEN_CPU_CAPABILITY=default: its AVX2 code fuses multiply-adds and
// differs in the last bits), and their edges.
func TestSpecialMoreValues(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
	}{
		{"erfcx(0.5)", erfcx(0.5), 0.6156903441929258},
		{"erfcx(10)", erfcx(10), 0.05614099274382259},
		{"erfcx(60)", erfcx(60), 0.009401854275176388},
		{"erfcx(1e8)", erfcx(1e8), 5.641895835477563e-09},
		{"erfcx(-1)", erfcx(-1), 5.008980080762283},
		{"erfcx(-10)", erfcx(-10), 5.376234283632271e+43},
		{"erfcx(0)", erfcx(0), 1},
		{"erfcx(-27)", erfcx(-27), math.Inf(1)},
		{"erfcx(inf)", erfcx(math.Inf(1)), 0},
		// the series, 1 - Q, the uniform asymptotic expansion
		{"igamma(0.5, 1)", igamma(0.5, 1), 0.8427007929497151},
		{"igamma(3, 1)", igamma(3, 1), 0.08030139707139418},
		{"igamma(25, 24)", igamma(25, 24), 0.4459987765587104},
		{"igamma(500, 510)", igamma(500, 510), 0.6769366400142726},
		// the continued fraction, DLMF 8.7.3's series, the expansion
		{"igammac(1, 2)", igammac(1, 2), 0.1353352832366127},
		{"igammac(0.3, 0.4)", igammac(0.3, 0.4), 0.22361941898336418},
		{"igammac(2, 5)", igammac(2, 5), 0.04042768199451279},
		{"igammac(0.8, 0.7)", igammac(0.8, 0.7), 0.3959790488152578},
		{"igammac(25, 24)", igammac(25, 24), 0.5540012234412895},
		{"igamma(0, 1)", igamma(0, 1), 1},
		{"igammac(0, 1)", igammac(0, 1), 0},
		{"igamma(1, 0)", igamma(1, 0), 0},
		{"igammac(1, 0)", igammac(1, 0), 1},
		{"igamma(inf, 1)", igamma(math.Inf(1), 1), 0},
		{"igammac(2, inf)", igammac(2, math.Inf(1)), 0},
		{"igamma(NaN, 0)", igamma(math.NaN(), 0), 0},
		{"zetaNegative(1, -100.25)", zetaNegative(1, -100.25), math.Inf(1)},
	}
	for _, c := range cases {
		if !relClose(c.got, c.want, 1e-15) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for name, v := range map[string]float64{"igamma(0, 0)": igamma(0, 0), "igammac(-1, 1)": igammac(-1, 1),
		"igamma(2, -1)": igamma(2, -1), "igamma(inf, inf)": igamma(math.Inf(1), math.Inf(1)), "igammac(NaN, 1)": igammac(math.NaN(), 1),
		"erfcx(NaN)": erfcx(math.NaN()), "zetaNegative(2.5, -100.25)": zetaNegative(2.5, -100.25), "zeta(inf, 2)": zetaNegative(math.Inf(1), 2)} {
		if !math.IsNaN(v) {
			t.Errorf("%s = %v, want NaN", name, v)
		}
	}
}
