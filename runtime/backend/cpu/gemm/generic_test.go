package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

func naiveGeneric[T Number](transA, transB bool, m, n, k int, a []T, lda int, b []T, ldb int, accumulate bool, c []T, ldc int) []T {
	out := append([]T(nil), c...)
	for i := range m {
		for j := range n {
			var s T
			for p := range k {
				ai, bi := i*lda+p, p*ldb+j
				if transA {
					ai = p*lda + i
				}
				if transB {
					bi = j*ldb + p
				}
				s += a[ai] * b[bi]
			}
			if accumulate {
				s += c[i*ldc+j]
			}
			out[i*ldc+j] = s
		}
	}
	return out
}

func TestGemmFloat64AndInt64(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][3]int{{1, 1, 1}, {7, 17, 33}, {65, 7, 129}, {129, 300, 65}, {3, 5, 0}, {6, 8, 1}, {13, 264, 130}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, acc := range []bool{false, true} {
					ar, ac, br, bc := m, k, k, n
					if tA {
						ar, ac = k, m
					}
					if tB {
						br, bc = n, k
					}
					pad := 2
					lda, ldb, ldc := ac+pad, bc+pad, n+pad
					af := make([]float64, max(0, (ar-1)*lda+ac))
					bf := make([]float64, max(0, (br-1)*ldb+bc))
					cf := make([]float64, (m-1)*ldc+n)
					ai := make([]int64, len(af))
					bi := make([]int64, len(bf))
					ci := make([]int64, len(cf))
					for i := range af {
						af[i] = r.NormFloat64()
						ai[i] = r.Int64N(2001) - 1000
					}
					for i := range bf {
						bf[i] = r.NormFloat64()
						bi[i] = r.Int64N(2001) - 1000
					}
					for i := range cf {
						cf[i] = r.NormFloat64()
						ci[i] = r.Int64N(2001) - 1000
					}
					wantF := naiveGeneric(tA, tB, m, n, k, af, lda, bf, ldb, acc, cf, ldc)
					wantI := naiveGeneric(tA, tB, m, n, k, ai, lda, bi, ldb, acc, ci, ldc)
					Gemm(tA, tB, m, n, k, af, lda, bf, ldb, acc, cf, ldc)
					Gemm(tA, tB, m, n, k, ai, lda, bi, ldb, acc, ci, ldc)
					for x := range cf {
						if x%ldc >= n && cf[x] != wantF[x] {
							t.Fatalf("float64 %v tA=%v tB=%v acc=%v: wrote the padding at %d", sz, tA, tB, acc, x)
						}
					}
					for i := range m {
						for j := range n {
							x := i*ldc + j
							if math.Abs(cf[x]-wantF[x]) > 1e-12*float64(k+1)*(1+math.Abs(wantF[x])) {
								t.Fatalf("float64 %v tA=%v tB=%v acc=%v: C[%d,%d] = %v, want %v", sz, tA, tB, acc, i, j, cf[x], wantF[x])
							}
							if ci[x] != wantI[x] {
								t.Fatalf("int64 %v tA=%v tB=%v acc=%v: C[%d,%d] = %v, want %v", sz, tA, tB, acc, i, j, ci[x], wantI[x])
							}
						}
					}
				}
			}
		}
	}
}
