package gemm

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
	pa := &PackedA{m: m, k: k, data: make([]float32, rows*k)}
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
