//go:build amd64 && !purego

package cpu

// dotF32AVX2 is the sum of x[i]·y[i] for i < n (dot_amd64.s).
//
//go:noescape
func dotF32AVX2(x, y *float32, n int) float32

// dotF32 is the dot product of x and y[:len(x)]: AVX2 and FMA where the
// CPU has them.
func dotF32(x, y []float32) float32 {
	if len(x) == 0 {
		return 0
	}
	y = y[:len(x)]
	if simdMath {
		return dotF32AVX2(&x[0], &y[0], len(x))
	}
	return dotF32Go(x, y)
}
