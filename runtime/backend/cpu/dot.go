package cpu

import "github.com/tref-lang/tref/runtime/backend/cpu/gemm"

// A linear layer over one row (a keyword model's dense layers, a decoder's
// single step) is a matrix-vector product: the GEMM would pack the whole
// weight and pad the row to its 6-row micro-tiles, for work the size of
// the weight. linearMM computes such products as dot products with the
// weight's rows, which it reads in place.

// linearMM is sgemmMM for linear: one row against a transposed weight
// (m = 1, transB), or rows against a vector weight (n = 1), that would run
// in one goroutine, are dot products; anything else goes to the GEMM.
func linearMM(workers int, transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, accumulate bool, c []float32, ldc int) {
	if transA || !linearDots(workers, m, n, k, transB, ldb) {
		sgemmMM(workers, transA, transB, m, n, k, a, lda, b, ldb, accumulate, c, ldc)
		return
	}
	if m == 1 {
		for j := range n {
			s := dotF32(a[:k], b[j*ldb:])
			if accumulate {
				s += c[j]
			}
			c[j] = s
		}
		return
	}
	for i := range m {
		s := dotF32(a[i*lda:i*lda+k], b)
		if accumulate {
			s += c[i*ldc]
		}
		c[i*ldc] = s
	}
}

// linearDots reports whether linearMM computes a product (op(B) k×n with
// row stride ldb) as dot products: one row against a transposed weight, or
// rows against a vector, in one goroutine. linearPacked leaves such
// products to it: packing the weight would not pay, and every call must
// round the same way.
func linearDots(workers, m, n, k int, transB bool, ldb int) bool {
	return k > 0 && gemm.Workers(workers, m, n, k) == 1 && (m == 1 && transB || n == 1 && !transB && ldb == 1)
}

// dotF32Go is the dot product of x and y (of one length) in eight running
// sums.
func dotF32Go(x, y []float32) float32 {
	var s [8]float32
	i := 0
	for ; i+8 <= len(x); i += 8 {
		xs, ys := x[i:i+8:i+8], y[i:i+8:i+8]
		for l := range 8 {
			s[l] += xs[l] * ys[l]
		}
	}
	for ; i < len(x); i++ {
		s[0] += x[i] * y[i]
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}
