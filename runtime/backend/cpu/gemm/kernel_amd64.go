//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

// kernelAVX2 is the assembly 6×16 micro-kernel (kernel_amd64.s). It reads
// k·6 floats at a, k·16 at b, and six rows of 16 floats at c, ldc apart.
//
//go:noescape
func kernelAVX2(k int, a, b, c *float32, ldc int, accum bool)

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

func init() {
	if hasAVX2 {
		microKernel = kernelAsm
		kernelName = "avx2-fma 6x16"
	}
}
