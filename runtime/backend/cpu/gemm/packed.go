package gemm

import "unsafe"

// PackedA is the left operand op(A) of m×k products packed once, in the
// layout Sgemm packs it into for every call: for each depth block of KC
// steps, MR-row micro-panels of all m rows (zero past the last row).
// A convolution's weight is the same matrix on every call; packing it
// once (SgemmPackedA) saves that copy. A PackedA is immutable: any
// number of products may read it at once.
type PackedA struct {
	m, k int
	data []float32
}

// PackA packs the m×k matrix op(A) (A row-major with row stride lda,
// transposed when transA) for SgemmPackedA.
func PackA(transA bool, m, k int, a []float32, lda int) *PackedA {
	checkOperand("A", transA, m, k, len(a), lda)
	rows := roundUp(m, mr)
	pa := &PackedA{m: m, k: k, data: alignedFloats(rows * k)}
	if m == 0 || k == 0 {
		return pa
	}
	p := &problem{transA: transA, m: m, k: k, alpha: 1, a: a, lda: lda, mach: best}
	for pc := 0; pc < k; pc += kcBlock {
		kcur := min(kcBlock, k-pc)
		p.packA(pa.block(pc, kcur), 0, m, pc, kcur)
	}
	return pa
}

// Rows and Depth are the dimensions m and k of op(A).
func (pa *PackedA) Rows() int  { return pa.m }
func (pa *PackedA) Depth() int { return pa.k }

// Bytes is the memory the packed copy holds.
func (pa *PackedA) Bytes() int { return 4 * len(pa.data) }

// block is the depth block of KC steps starting at pc (kcur of them).
func (pa *PackedA) block(pc, kcur int) []float32 {
	rows := roundUp(pa.m, mr)
	return pa.data[rows*pc : rows*(pc+kcur)]
}

// SgemmPackedA is SgemmWorkers(workers, transA, transB, m, n, k, 1, A,
// lda, b, ldb, beta, c, ldc) with op(A) given packed (alpha is 1): C =
// op(A)·op(B) + beta·C.
func SgemmPackedA(workers int, pa *PackedA, transB bool, n int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	m, k := pa.m, pa.k
	checkOperand("B", transB, k, n, len(b), ldb)
	checkOperand("C", false, m, n, len(c), ldc)
	accum, ok := startC(m, n, k, 1, beta, c, ldc)
	if !ok {
		return
	}
	p := &problem{transB: transB, m: m, n: n, k: k, alpha: 1, b: b, ldb: ldb, c: c, ldc: ldc, mach: best, packed: pa}
	p.run(max(1, workers), accum)
}

// PackedB is the right operand op(B) of k×n products packed once, in
// the layout Sgemm packs it into for every call: for each column block
// of NC and depth block of KC, NR-column micro-panels. A linear layer's
// weight is the same matrix on every call; with one row of input (a
// matrix-vector product) packing it was most of the work. A PackedB is
// immutable: any number of products may read it at once.
type PackedB struct {
	k, n int
	data []float32
}

// PackB packs the k×n matrix op(B) (B row-major with row stride ldb,
// transposed when transB) for SgemmPackedB.
func PackB(transB bool, k, n int, b []float32, ldb int) *PackedB {
	checkOperand("B", transB, k, n, len(b), ldb)
	pb := &PackedB{k: k, n: n, data: alignedFloats(k * roundUp(n, nr))}
	p := &problem{transB: transB, k: k, n: n, b: b, ldb: ldb, mach: best}
	for jc := 0; jc < n; jc += ncBlock {
		ncur := min(ncBlock, n-jc)
		for pc := 0; pc < k; pc += kcBlock {
			kcur := min(kcBlock, k-pc)
			p.packB(pb.block(jc, ncur, pc, kcur), pc, kcur, jc, ncur, 0, (ncur+nr-1)/nr)
		}
	}
	return pb
}

// Depth and Cols are the dimensions k and n of op(B).
func (pb *PackedB) Depth() int { return pb.k }
func (pb *PackedB) Cols() int  { return pb.n }

// Bytes is the memory the packed copy holds.
func (pb *PackedB) Bytes() int { return 4 * len(pb.data) }

// block is the panels of columns [jc, jc+ncur) and depth block pc (kcur
// steps): the column blocks before jc hold k·jc values (jc is a multiple
// of NC, itself of NR), and the depth blocks before pc KC·width each.
func (pb *PackedB) block(jc, ncur, pc, kcur int) []float32 {
	w := roundUp(ncur, nr)
	off := pb.k*jc + pc*w
	return pb.data[off : off+kcur*w]
}

// SgemmPackedB is SgemmWorkers(workers, transA, transB, m, n, k, 1, a,
// lda, B, ldb, beta, c, ldc) with op(B) given packed (alpha is 1).
func SgemmPackedB(workers int, transA bool, m int, a []float32, lda int, pb *PackedB, beta float32, c []float32, ldc int) {
	n, k := pb.n, pb.k
	checkOperand("A", transA, m, k, len(a), lda)
	checkOperand("C", false, m, n, len(c), ldc)
	accum, ok := startC(m, n, k, 1, beta, c, ldc)
	if !ok {
		return
	}
	p := &problem{transA: transA, m: m, n: n, k: k, alpha: 1, a: a, lda: lda, c: c, ldc: ldc, mach: best, packedB: pb}
	p.run(max(1, workers), accum)
}

// alignedFloats is a zeroed slice of n float32s starting on a 64-byte
// boundary (a packed row of B is then one cache line).
func alignedFloats(n int) []float32 {
	raw := make([]float32, n+16)
	off := 0
	if rem := uintptr(unsafe.Pointer(&raw[0])) % 64; rem != 0 {
		off = int(64-rem) / 4
	}
	return raw[off : off+n : off+n]
}
