package gemm

import "runtime"

// Number is an element type of Gemm.
type Number interface{ ~float64 | ~int64 }

// Blocking of Gemm: a kbG×nbG block of B (256 KiB of float64) is reused
// across every row of C before moving on.
const (
	kbG = 128
	nbG = 256
)

// Gemm computes C = op(A)·op(B), or C += op(A)·op(B) when accumulate is
// set, for float64 and int64 row-major matrices (strides as in Sgemm). It
// is a cache-blocked loop without packing or SIMD kernels; large products
// split the rows of C among GOMAXPROCS goroutines. Integer products wrap
// on overflow, as in PyTorch.
func Gemm[T Number](transA, transB bool, m, n, k int, a []T, lda int, b []T, ldb int, accumulate bool, c []T, ldc int) {
	workers := 1
	if int64(m)*int64(n)*int64(k) >= parallelMin {
		workers = runtime.GOMAXPROCS(0)
	}
	GemmWorkers(workers, transA, transB, m, n, k, a, lda, b, ldb, accumulate, c, ldc)
}

// GemmWorkers is Gemm with an explicit number of goroutines (1: the
// calling goroutine only).
func GemmWorkers[T Number](workers int, transA, transB bool, m, n, k int, a []T, lda int, b []T, ldb int, accumulate bool, c []T, ldc int) {
	checkOperand("A", transA, m, k, len(a), lda)
	checkOperand("B", transB, k, n, len(b), ldb)
	checkOperand("C", false, m, n, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if !accumulate {
		for i := range m {
			clear(c[i*ldc : i*ldc+n])
		}
	}
	if k == 0 {
		return
	}
	if transA {
		// Rows of op(A) are read along k; copy Aᵀ once instead of striding.
		at := make([]T, m*k)
		for p := range k {
			for i, v := range a[p*lda : p*lda+m] {
				at[i*k+p] = v
			}
		}
		a, lda = at, k
	}
	parallel(min(max(1, workers), m), m, func(lo, hi int) {
		switch {
		case transB:
			gemmDot(lo, hi, n, k, a, lda, b, ldb, c, ldc)
		case tileF64 != nil && isF64(c):
			gemmTilesF64(lo, hi, n, k, any(a).([]float64), lda, any(b).([]float64), ldb, any(c).([]float64), ldc)
		default:
			gemmAxpy(lo, hi, n, k, a, lda, b, ldb, c, ldc)
		}
	})
}

// gemmAxpy adds A[i, p]·B[p, :] to each row i of C in [lo, hi), block by
// block of B.
func gemmAxpy[T Number](lo, hi, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	for j0 := 0; j0 < n; j0 += nbG {
		j1 := min(n, j0+nbG)
		for p0 := 0; p0 < k; p0 += kbG {
			p1 := min(k, p0+kbG)
			for i := lo; i < hi; i++ {
				crow := c[i*ldc+j0 : i*ldc+j1]
				for p, av := range a[i*lda+p0 : i*lda+p1] {
					axpy(av, b[(p0+p)*ldb+j0:(p0+p)*ldb+j1], crow)
				}
			}
		}
	}
}

// tileF64, where the CPU has a float64 micro-kernel, adds A[6×k]·B[k×8]
// to C[6×8], each read in place with its row stride; else nil.
var tileF64 func(k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int)

// isF64 reports whether xs is []float64.
func isF64[T Number](xs []T) bool {
	_, ok := any(xs).([]float64)
	return ok
}

// gemmTilesF64 is gemmAxpy for float64 with the 6×8 micro-kernel over
// the full tiles of each block, and row updates over the edge rows and
// columns.
func gemmTilesF64(lo, hi, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	full := n &^ 7
	for j0 := 0; j0 < n; j0 += nbG {
		j1 := min(n, j0+nbG)
		jt := max(j0, min(j1, full)) // the tiles' columns end here
		for p0 := 0; p0 < k; p0 += kbG {
			p1 := min(k, p0+kbG)
			i := lo
			for ; i+6 <= hi; i += 6 {
				for j := j0; j < jt; j += 8 {
					tileF64(p1-p0, a[i*lda+p0:], lda, b[p0*ldb+j:], ldb, c[i*ldc+j:], ldc)
				}
				if jt < j1 {
					for r := i; r < i+6; r++ {
						for p := p0; p < p1; p++ {
							axpyF64(a[r*lda+p], b[p*ldb+jt:p*ldb+j1], c[r*ldc+jt:r*ldc+j1])
						}
					}
				}
			}
			for ; i < hi; i++ {
				for p := p0; p < p1; p++ {
					axpyF64(a[i*lda+p], b[p*ldb+j0:p*ldb+j1], c[i*ldc+j0:i*ldc+j1])
				}
			}
		}
	}
}

// gemmDot computes C[i, j] += A[i, :]·B[j, :] (op(B) = Bᵀ) for rows i in
// [lo, hi), a block of B's rows at a time.
func gemmDot[T Number](lo, hi, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	const jb = 32
	for j0 := 0; j0 < n; j0 += jb {
		j1 := min(n, j0+jb)
		for i := lo; i < hi; i++ {
			arow := a[i*lda : i*lda+k]
			for j := j0; j < j1; j++ {
				c[i*ldc+j] += dotOf(arow, b[j*ldb:j*ldb+k])
			}
		}
	}
}
