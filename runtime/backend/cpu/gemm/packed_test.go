package gemm

import (
	"math/rand/v2"
	"testing"
)

// operands are random operands of an m×n×k product with row strides
// past the matrices, and a C to start from (its stride n+4).
func operands(r *rand.Rand, m, n, k int, tA, tB bool) (a []float32, lda int, b []float32, ldb int, c []float32) {
	lda, ldb = k+3, n+1
	if tA {
		lda = m + 2
	}
	if tB {
		ldb = k + 1
	}
	return randSlice(r, (max(m, k)+3)*lda), lda, randSlice(r, (max(n, k)+1)*ldb), ldb, randSlice(r, m*(n+4))
}

// samePacked runs a product as SgemmWorkers does and with a packed
// operand (packed), for each beta and 1 and 2 workers: the results must
// be identical, since the packing and the kernels are the same.
func samePacked(t *testing.T, m, n, k int, tA, tB bool, a []float32, lda int, b []float32, ldb int, c0 []float32,
	packed func(workers int, beta float32, c []float32)) {
	t.Helper()
	for _, beta := range []float32{0, 1, 0.5} {
		for _, workers := range []int{1, 2} {
			want := append([]float32(nil), c0...)
			SgemmWorkers(workers, tA, tB, m, n, k, 1, a, lda, b, ldb, beta, want, n+4)
			got := append([]float32(nil), c0...)
			packed(workers, beta, got)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("m=%d n=%d k=%d tA=%v tB=%v beta=%v workers=%d: c[%d] = %v, want %v",
						m, n, k, tA, tB, beta, workers, i, got[i], want[i])
				}
			}
		}
	}
}

// TestSgemmPackedA compares products with a packed A against Sgemm on
// the same operands across depth blocks (k > KC), row blocks (m > MC),
// edge panels (m not a multiple of MR), transposes, beta and workers.
func TestSgemmPackedA(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, m := range []int{1, 5, 6, 7, 150, 301} {
		for _, k := range []int{1, 3, 256, 257, 600} {
			for _, n := range []int{1, 17, 100} {
				for _, tA := range []bool{false, true} {
					tB := (m+k+n)%2 == 0
					a, lda, b, ldb, c0 := operands(r, m, n, k, tA, tB)
					pa := PackA(tA, m, k, a, lda)
					if pa.Rows() != m || pa.Depth() != k {
						t.Fatalf("PackA(%d, %d) is %d×%d", m, k, pa.Rows(), pa.Depth())
					}
					samePacked(t, m, n, k, tA, tB, a, lda, b, ldb, c0, func(workers int, beta float32, c []float32) {
						SgemmPackedA(workers, pa, tB, n, b, ldb, beta, c, n+4)
					})
				}
			}
		}
	}
}

// TestSgemmPackedB is TestSgemmPackedA for a packed B, across column
// blocks (n > NC) too.
func TestSgemmPackedB(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, m := range []int{1, 7, 150} {
		for _, k := range []int{1, 257, 600} {
			for _, n := range []int{1, 17, 100, 4100} {
				if n > 1000 && k > 300 {
					continue
				}
				for _, tB := range []bool{false, true} {
					tA := (m+k)%2 == 1
					a, lda, b, ldb, c0 := operands(r, m, n, k, tA, tB)
					pb := PackB(tB, k, n, b, ldb)
					if pb.Depth() != k || pb.Cols() != n {
						t.Fatalf("PackB(%d, %d) is %d×%d", k, n, pb.Depth(), pb.Cols())
					}
					samePacked(t, m, n, k, tA, tB, a, lda, b, ldb, c0, func(workers int, beta float32, c []float32) {
						SgemmPackedB(workers, tA, m, a, lda, pb, beta, c, n+4)
					})
				}
			}
		}
	}
}
