//go:build amd64 && !purego

package gemm

// axpyF64AVX2 adds a·x[i] to y[i] for i < n (axpy_amd64.s), by fused
// multiply-adds.
//
//go:noescape
func axpyF64AVX2(a float64, x, y *float64, n int)

// dotF64AVX2 is the sum of x[i]·y[i] for i < n (axpy_amd64.s).
//
//go:noescape
func dotF64AVX2(x, y *float64, n int) float64

func axpyF64Asm(a float64, x, y []float64) {
	if len(x) == 0 {
		return
	}
	y = y[:len(x)]
	axpyF64AVX2(a, &x[0], &y[0], len(x))
}

func dotF64Asm(x, y []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	y = y[:len(x)]
	return dotF64AVX2(&x[0], &y[0], len(x))
}

func init() {
	if hasAVX2 {
		axpyF64, dotF64, fusedF64 = axpyF64Asm, dotF64Asm, true
	}
}
