package gemm

// kernelGo is the portable micro-kernel. It walks the MR×NR tile in 2×4
// sub-tiles so that the eight accumulators, two A values and four B values
// of a sub-tile fit in registers; the packed panels it re-reads stay in L1.
func kernelGo(k int, ap, bp, c []float32, ldc int, accum bool) {
	ap = ap[:k*mr]
	bp = bp[:k*nr]
	_ = c[(mr-1)*ldc+nr-1]
	for i := 0; i < mr; i += 2 {
		for j := 0; j < nr; j += 4 {
			var c00, c01, c02, c03, c10, c11, c12, c13 float32
			for q := range k {
				a := ap[q*mr+i : q*mr+i+2 : q*mr+i+2]
				b := bp[q*nr+j : q*nr+j+4 : q*nr+j+4]
				a0, a1 := a[0], a[1]
				b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
				c00 += a0 * b0
				c01 += a0 * b1
				c02 += a0 * b2
				c03 += a0 * b3
				c10 += a1 * b0
				c11 += a1 * b1
				c12 += a1 * b2
				c13 += a1 * b3
			}
			r0 := c[i*ldc+j : i*ldc+j+4 : i*ldc+j+4]
			r1 := c[(i+1)*ldc+j : (i+1)*ldc+j+4 : (i+1)*ldc+j+4]
			if accum {
				r0[0] += c00
				r0[1] += c01
				r0[2] += c02
				r0[3] += c03
				r1[0] += c10
				r1[1] += c11
				r1[2] += c12
				r1[3] += c13
			} else {
				r0[0], r0[1], r0[2], r0[3] = c00, c01, c02, c03
				r1[0], r1[1], r1[2], r1[3] = c10, c11, c12, c13
			}
		}
	}
}
