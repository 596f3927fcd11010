//go:build !amd64 || purego

package cpu

// affineSIMD has no vectorised rows on this platform.
func affineSIMD[T float32 | float64](o, x []T, s, b T) int { return 0 }
