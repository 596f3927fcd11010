// Package fmath holds the float64 functions that package math gets wrong
// on some inputs, corrected: on amd64 (Go 1.26) math.Log returns about
// −709.09, the logarithm of the smallest normal number, for every
// subnormal input, and math.Log10 inherits it.
package fmath

import "math"

// smallestNormal is the least positive normal float64, 2⁻¹⁰²².
const smallestNormal = 0x1p-1022

// Log is the natural logarithm of x, as math.Log, right for subnormal x.
func Log(x float64) float64 {
	if x > 0 && x < smallestNormal {
		// x·2⁵⁴ is normal and exact.
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// Log10 is the base-10 logarithm of x, as math.Log10, right for
// subnormal x.
func Log10(x float64) float64 {
	if x > 0 && x < smallestNormal {
		return Log(x) * (1 / math.Ln10)
	}
	return math.Log10(x)
}
