//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

// kernelAVX2 is the assembly 6×16 micro-kernel (kernel_amd64.s). It reads
// k·6 floats at a, k·16 at b, and six rows of 16 floats at c, ldc apart.
//
//go:noescape
func kernelAVX2(k int, a, b, c *float32, ldc int, accum bool)

// packBT16AVX2 packs 16 rows of B, read along k, as one transposed
// micro-panel (pack_amd64.s); k is a multiple of 8.
//
//go:noescape
func packBT16AVX2(dst, src *float32, ld, k int)

// packBRow16AVX2 spreads one row of plain B over panels micro-panels
// (pack_amd64.s): dst[i*stride+j] = src[i*16+j] for j < 16.
//
//go:noescape
func packBRow16AVX2(dst, src *float32, panels, stride int)

// packA6AVX2 packs six rows of A, read along k, as one micro-panel
// (pack_amd64.s); k is a multiple of 8.
//
//go:noescape
func packA6AVX2(dst, src *float32, ld, k int)

// hasAVX2 reports whether the CPU (and the OS, for the YMM state) supports
// the assembly kernel.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kernelAsm checks the extent of its operands, then runs kernelAVX2.
func kernelAsm(k int, ap, bp, c []float32, ldc int, accum bool) {
	if k <= 0 {
		kernelGo(k, ap, bp, c, ldc, accum)
		return
	}
	_ = ap[k*mr-1]
	_ = bp[k*nr-1]
	_ = c[(mr-1)*ldc+nr-1]
	kernelAVX2(k, &ap[0], &bp[0], &c[0], ldc, accum)
}

// packBTAsm packs the first kc&^7 steps of a full transposed panel with
// packBT16AVX2 and returns how many it packed.
func packBTAsm(dst, b []float32, ldb, kc int) int {
	k8 := kc &^ 7
	if k8 == 0 {
		return 0
	}
	_ = dst[k8*nr-1]
	_ = b[(nr-1)*ldb+k8-1]
	packBT16AVX2(&dst[0], &b[0], ldb, k8)
	return k8
}

// packBRowAsm checks the extent of its operands, then runs packBRow16AVX2.
func packBRowAsm(dst, src []float32, panels, stride int) {
	if panels <= 0 {
		return
	}
	_ = dst[(panels-1)*stride+nr-1]
	_ = src[panels*nr-1]
	packBRow16AVX2(&dst[0], &src[0], panels, stride)
}

// packAAsm packs the first kc&^7 steps of a full micro-panel of A (not
// transposed) with packA6AVX2 and returns how many it packed.
func packAAsm(dst, a []float32, lda, kc int) int {
	k8 := kc &^ 7
	if k8 == 0 {
		return 0
	}
	_ = dst[k8*mr-1]
	_ = a[(mr-1)*lda+k8-1]
	packA6AVX2(&dst[0], &a[0], lda, k8)
	return k8
}

func init() {
	if hasAVX2 {
		best = machine{name: "avx2-fma 6x16", kern: kernelAsm, packBT: packBTAsm, packBRow: packBRowAsm, packA: packAAsm}
	}
}
