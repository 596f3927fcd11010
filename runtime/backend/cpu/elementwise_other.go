//go:build !amd64 || purego

package cpu

// simdRowF32 has no vectorised rows on this platform.
func simdRowF32(string, func(o, a, b []float32) error) func(o, a, b []float32) error { return nil }

// simdUnaryF32 has no vectorised rows on this platform.
func simdUnaryF32(string, func(o, a []float32)) func(o, a []float32) { return nil }

// simdClampF32 has no vectorised rows on this platform.
func simdClampF32(_, _ float32, _ func(o, a []float32)) func(o, a []float32) { return nil }

// simdCompareF32 has no vectorised rows on this platform.
func simdCompareF32(string, func(o []uint8, a, b []float32) error) func(o []uint8, a, b []float32) error {
	return nil
}

// simdWhereU32 has no vectorised rows on this platform.
func simdWhereU32(func(o []uint32, c []uint8, a, b []uint32)) func(o []uint32, c []uint8, a, b []uint32) {
	return nil
}

// hardswishSIMD has no vectorised block on this platform.
func hardswishSIMD(_, _ []float32) bool { return false }
