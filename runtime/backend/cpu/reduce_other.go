//go:build !amd64 || purego

package cpu

import "slices"

// argRowF32 has no vectorised path on this platform: the caller scans.
func argRowF32([]float32, bool) (float32, int, bool) { return 0, 0, false }

// sqDevF32 is the float64 sum of (x[i] - mean)².
func sqDevF32(x []float32, mean float64) float64 { return sqDevRow(x, mean) }

// hasZeroF32 reports whether some element of x is ±0.
func hasZeroF32(x []float32) bool { return slices.Contains(x, 0) }

// hasNonzeroF32 reports whether some element of x is nonzero (NaN is).
func hasNonzeroF32(x []float32) bool {
	return slices.IndexFunc(x, func(v float32) bool { return v != 0 }) >= 0
}

// hasNonzeroU8 reports whether some byte of x is nonzero.
func hasNonzeroU8(x []uint8) bool {
	return slices.IndexFunc(x, func(v uint8) bool { return v != 0 }) >= 0
}
