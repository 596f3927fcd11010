//go:build !amd64 || purego

package cpu

// simdRowF32 has no vectorised rows on this platform.
func simdRowF32(string, func(o, a, b []float32) error) func(o, a, b []float32) error { return nil }

// sumF32 is the float64 sum of a float32 row.
func sumF32(x []float32) float64 { return sumRow[float32, float64](x) }
