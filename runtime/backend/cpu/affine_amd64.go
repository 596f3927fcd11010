//go:build amd64 && !purego

package cpu

// affineF32AVX2 is o[i] = a[i]·s + b for i < n, a positive multiple of 8
// (affine_amd64.s).
//
//go:noescape
func affineF32AVX2(o, a *float32, s, b float32, n int)

// affineSIMD runs affineRow on the widest multiple of 8 elements with
// AVX2 and FMA (float32 only) and returns how many it did.
func affineSIMD[T float32 | float64](o, x []T, s, b T) int {
	of, ok := any(o).([]float32)
	n := min(len(o), len(x)) &^ 7
	if !ok || !simdMath || n == 0 {
		return 0
	}
	xf := any(x).([]float32)
	affineF32AVX2(&of[0], &xf[0], float32(s), float32(b), n)
	return n
}
