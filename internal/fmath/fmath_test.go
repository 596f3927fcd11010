package fmath

import (
	"math"
	"testing"
)

// TestSubnormals: the logarithms of subnormal numbers against log2·ln 2
// (math.Log2 reads the exponent exactly), and of the normal range
// unchanged.
func TestSubnormals(t *testing.T) {
	for _, x := range []float64{5e-324, math.Ldexp(1, -1063), math.Ldexp(1.5, -1030), 1e-310, math.Nextafter(0x1p-1022, 0)} {
		want := math.Log2(x) * math.Ln2
		if got := Log(x); math.Abs(got-want) > 1e-13*math.Abs(want) {
			t.Errorf("Log(%g) = %v, want %v", x, got, want)
		}
		if got, want := Log10(x), math.Log2(x)*math.Log10(2); math.Abs(got-want) > 1e-13*math.Abs(want) {
			t.Errorf("Log10(%g) = %v, want %v", x, got, want)
		}
	}
	for _, x := range []float64{0x1p-1022, 1e-300, 0.5, 1, 10, 1e300, 0, -1, math.Inf(1), math.NaN()} {
		if got, want := Log(x), math.Log(x); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("Log(%g) = %v, want math.Log's %v", x, got, want)
		}
		if got, want := Log10(x), math.Log10(x); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("Log10(%g) = %v, want math.Log10's %v", x, got, want)
		}
	}
}
