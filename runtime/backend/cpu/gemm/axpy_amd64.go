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

// rotF64AVX2 rotates (x[i], y[i]) for i < n by c and s (axpy_amd64.s).
//
//go:noescape
func rotF64AVX2(c, s float64, x, y *float64, n int)

func rotF64Asm(c, s float64, x, y []float64) {
	if len(x) == 0 {
		return
	}
	y = y[:len(x)]
	rotF64AVX2(c, s, &x[0], &y[0], len(x))
}

// dgemmKernel6x8 adds A[6×k]·B[k×8] to C[6×8], each read in place with
// its row stride (dkernel_amd64.s); k ≥ 1.
//
//go:noescape
func dgemmKernel6x8(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)

// tileF64Asm checks the extent of its operands, then runs
// dgemmKernel6x8.
func tileF64Asm(k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	_ = a[5*lda+k-1]
	_ = b[(k-1)*ldb+7]
	_ = c[5*ldc+7]
	dgemmKernel6x8(k, &a[0], lda, &b[0], ldb, &c[0], ldc)
}

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
		axpyF64, dotF64, rotF64, fusedF64 = axpyF64Asm, dotF64Asm, rotF64Asm, true
		tileF64 = tileF64Asm
	}
}
