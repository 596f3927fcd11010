//go:build !amd64 || purego

package cpu

import "slices"

// argRowF32 has no vectorised path on this platform: the caller scans.
func argRowF32([]float32, bool) (float32, int, bool) { return 0, 0, false }

// rowSumF32 is the float64 sum of a float32 row.
func rowSumF32(x []float32) float64 { return sumRow[float32, float64](x) }

// sqDevF32 is the float64 sum of (x[i] - mean)² (pf, a prefetch distance,
// has no use here).
func sqDevF32(x []float32, mean float64, _ int) float64 { return sqDevRow(x, mean) }

// rowMaxF32 is the largest element of a float32 row (NaN if any is NaN).
func rowMaxF32(x []float32) float32 { return maxRow(x) }

// rowMinF32 is the smallest element of a float32 row (NaN if any is NaN).
func rowMinF32(x []float32) float32 { return minRow(x) }

// colSumF32 adds rows float32 rows of len(acc) columns, stride elements
// apart in x, into float64 column accumulators, row after row.
func colSumF32(acc []float64, x []float32, stride, rows int) {
	for k := range rows {
		row := x[k*stride : k*stride+len(acc)]
		for j, v := range row {
			acc[j] += float64(v)
		}
	}
}

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
