package gemm

import (
	"math/rand/v2"
	"testing"
)

// TestSgemmPackedA compares products with a packed A against Sgemm on
// the same operands: the packing and the kernels are the same, so the
// results must be identical, across depth blocks (k > KC), row blocks
// (m > MC), edge panels (m not a multiple of MR), transposes, beta and
// workers.
func TestSgemmPackedA(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, m := range []int{1, 5, 6, 7, 150, 301} {
		for _, k := range []int{1, 3, 256, 257, 600} {
			for _, n := range []int{1, 17, 100} {
				for _, tA := range []bool{false, true} {
					tB := (m+k+n)%2 == 0
					lda := k + 3
					if tA {
						lda = m + 2
					}
					ldb := n + 1
					if tB {
						ldb = k + 1
					}
					a := randSlice(r, (max(m, k)+3)*lda)
					b := randSlice(r, (max(n, k)+1)*ldb)
					c0 := randSlice(r, m*(n+4))
					pa := PackA(tA, m, k, a, lda)
					if pa.Rows() != m || pa.Depth() != k {
						t.Fatalf("PackA(%d, %d) is %d×%d", m, k, pa.Rows(), pa.Depth())
					}
					for _, beta := range []float32{0, 1, 0.5} {
						for _, workers := range []int{1, 2} {
							want := append([]float32(nil), c0...)
							SgemmWorkers(workers, tA, tB, m, n, k, 1, a, lda, b, ldb, beta, want, n+4)
							got := append([]float32(nil), c0...)
							SgemmPackedA(workers, pa, tB, n, b, ldb, beta, got, n+4)
							for i := range want {
								if got[i] != want[i] {
									t.Fatalf("m=%d n=%d k=%d tA=%v tB=%v beta=%v workers=%d: c[%d] = %v, want %v",
										m, n, k, tA, tB, beta, workers, i, got[i], want[i])
								}
							}
						}
					}
				}
			}
		}
	}
}
