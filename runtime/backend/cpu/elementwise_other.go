//go:build !amd64 || purego

package cpu

// simdRowF32 has no vectorised rows on this platform.
func simdRowF32(string, func(o, a, b []float32) error) func(o, a, b []float32) error { return nil }

// sumF32 is the float64 sum of a float32 row.
func sumF32(x []float32) float64 { return sumRow[float32, float64](x) }

// maxF32 is the largest element of a float32 row (NaN if any is NaN).
func maxF32(x []float32) float32 { return maxRow(x) }

// minF32 is the smallest element of a float32 row (NaN if any is NaN).
func minF32(x []float32) float32 { return minRow(x) }

// simdUnaryF32 has no vectorised rows on this platform.
func simdUnaryF32(string, func(o, a []float32)) func(o, a []float32) { return nil }

// simdClampF32 has no vectorised rows on this platform.
func simdClampF32(_, _ float32, _ func(o, a []float32)) func(o, a []float32) { return nil }

// colAddF32 adds a float32 row into float64 column accumulators.
func colAddF32(acc []float64, x []float32) {
	acc = acc[:len(x)]
	for j, v := range x {
		acc[j] += float64(v)
	}
}

// simdCompareF32 has no vectorised rows on this platform.
func simdCompareF32(string, func(o []uint8, a, b []float32) error) func(o []uint8, a, b []float32) error {
	return nil
}

// simdWhereU32 has no vectorised rows on this platform.
func simdWhereU32(func(o []uint32, c []uint8, a, b []uint32)) func(o []uint32, c []uint8, a, b []uint32) {
	return nil
}
