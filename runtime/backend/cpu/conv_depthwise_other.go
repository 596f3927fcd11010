//go:build !amd64 || purego

package cpu

// dwRowSIMD has no vectorised rows on this platform.
func dwRowSIMD[T float32 | float64](out, x []T, ldx int, w []T, kh, kw, dw int, b T, init bool) int {
	return 0
}
