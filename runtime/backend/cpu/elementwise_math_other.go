//go:build !amd64 || purego

package cpu

// simdFloatUnaryF32 has no vectorised math rows on this platform: the
// float32 math ops use the scalar rows of floatUnaryRow.
func simdFloatUnaryF32(string) func(o, a []float32) { return nil }
