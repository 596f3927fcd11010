//go:build amd64 && !purego

#include "textflag.h"

// AVX2 row reductions: the zero tests of any/all, and the streaming sums,
// squared deviations, extrema and column sums of sum/mean, var/std,
// max/min/argmax/argmin.

// ZEROTEST(name, pred): whether some x[i] pred 0 holds, 32 elements at a
// time, stopping at the first block where one does: EQ_OQ (0) finds a
// zero (±0), NEQ_UQ (4) a nonzero (NaN included). n is a multiple of 32.
// func name(x *float32, n int) bool
#define ZEROTEST(name, pred) \
TEXT name(SB), NOSPLIT, $0-17; \
	MOVQ   x+0(FP), SI; \
	MOVQ   n+8(FP), CX; \
	XORQ   AX, AX; \
	VXORPS Y8, Y8, Y8; \
loop:; \
	CMPQ    AX, CX; \
	JGE     none; \
	VCMPPS  $pred, (SI)(AX*4), Y8, Y0; \
	VCMPPS  $pred, 32(SI)(AX*4), Y8, Y1; \
	VCMPPS  $pred, 64(SI)(AX*4), Y8, Y2; \
	VCMPPS  $pred, 96(SI)(AX*4), Y8, Y3; \
	VORPS   Y1, Y0, Y0; \
	VORPS   Y3, Y2, Y2; \
	VORPS   Y2, Y0, Y0; \
	ADDQ    $32, AX; \
	VTESTPS Y0, Y0; \
	JZ      loop; \
	MOVB    $1, ret+16(FP); \
	VZEROUPPER; \
	RET; \
none:; \
	MOVB $0, ret+16(FP); \
	VZEROUPPER; \
	RET

ZEROTEST(·hasZeroF32AVX2, 0)
ZEROTEST(·hasNonzeroF32AVX2, 4)

// func hasNonzeroU8AVX2(x *uint8, n int) bool
// Whether some byte of x[0:n] is nonzero; n is a multiple of 128.
TEXT ·hasNonzeroU8AVX2(SB), NOSPLIT, $0-17
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ AX, AX

bloop:
	CMPQ    AX, CX
	JGE     bnone
	VMOVDQU (SI)(AX*1), Y0
	VPOR    32(SI)(AX*1), Y0, Y0
	VMOVDQU 64(SI)(AX*1), Y1
	VPOR    96(SI)(AX*1), Y1, Y1
	VPOR    Y1, Y0, Y0
	ADDQ    $128, AX
	VPTEST  Y0, Y0
	JZ      bloop
	MOVB    $1, ret+16(FP)
	VZEROUPPER
	RET

bnone:
	MOVB $0, ret+16(FP)
	VZEROUPPER
	RET

// The streaming row kernels below read 32 floats (two cache lines) per
// iteration and prefetch the two lines pf bytes ahead: a core streams from
// memory only as fast as it keeps misses in flight, and the out-of-order
// window alone holds too few lines when each line costs a dozen
// instructions. Eight (sums) or four (extrema) independent accumulators
// keep the adder latency off the critical path.

// func sumF32Stream(x *float32, n int, pf int) float64
// The float64 sum of x[0:n], n a multiple of 32 and at least 32.
TEXT ·sumF32Stream(SB), NOSPLIT, $0-32
	MOVQ   x+0(FP), SI
	MOVQ   n+8(FP), CX
	MOVQ   pf+16(FP), DI
	ADDQ   SI, DI
	XORQ   AX, AX
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15

sumloop:
	PREFETCHT0 (DI)(AX*4)
	PREFETCHT0 64(DI)(AX*4)
	VCVTPS2PD  (SI)(AX*4), Y0
	VCVTPS2PD  16(SI)(AX*4), Y1
	VCVTPS2PD  32(SI)(AX*4), Y2
	VCVTPS2PD  48(SI)(AX*4), Y3
	VCVTPS2PD  64(SI)(AX*4), Y4
	VCVTPS2PD  80(SI)(AX*4), Y5
	VCVTPS2PD  96(SI)(AX*4), Y6
	VCVTPS2PD  112(SI)(AX*4), Y7
	VADDPD     Y0, Y8, Y8
	VADDPD     Y1, Y9, Y9
	VADDPD     Y2, Y10, Y10
	VADDPD     Y3, Y11, Y11
	VADDPD     Y4, Y12, Y12
	VADDPD     Y5, Y13, Y13
	VADDPD     Y6, Y14, Y14
	VADDPD     Y7, Y15, Y15
	ADDQ       $32, AX
	CMPQ       AX, CX
	JLT        sumloop

	VADDPD       Y9, Y8, Y8
	VADDPD       Y11, Y10, Y10
	VADDPD       Y13, Y12, Y12
	VADDPD       Y15, Y14, Y14
	VADDPD       Y10, Y8, Y8
	VADDPD       Y14, Y12, Y12
	VADDPD       Y12, Y8, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD       X9, X8, X8
	VHADDPD      X8, X8, X8
	VMOVSD       X8, ret+24(FP)
	VZEROUPPER
	RET

// func sqDevF32Stream(x *float32, n int, mean float64, pf int) float64
// The float64 sum of (x[i] - mean)² over x[0:n], n a multiple of 32 and at
// least 32.
TEXT ·sqDevF32Stream(SB), NOSPLIT, $0-40
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSD mean+16(FP), Y4
	MOVQ         pf+24(FP), DI
	ADDQ         SI, DI
	XORQ         AX, AX
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	VXORPD       Y10, Y10, Y10
	VXORPD       Y11, Y11, Y11
	VXORPD       Y12, Y12, Y12
	VXORPD       Y13, Y13, Y13
	VXORPD       Y14, Y14, Y14
	VXORPD       Y15, Y15, Y15

sqsloop:
	PREFETCHT0  (DI)(AX*4)
	PREFETCHT0  64(DI)(AX*4)
	VCVTPS2PD   (SI)(AX*4), Y0
	VCVTPS2PD   16(SI)(AX*4), Y1
	VCVTPS2PD   32(SI)(AX*4), Y2
	VCVTPS2PD   48(SI)(AX*4), Y3
	VSUBPD      Y4, Y0, Y0
	VSUBPD      Y4, Y1, Y1
	VSUBPD      Y4, Y2, Y2
	VSUBPD      Y4, Y3, Y3
	VFMADD231PD Y0, Y0, Y8
	VFMADD231PD Y1, Y1, Y9
	VFMADD231PD Y2, Y2, Y10
	VFMADD231PD Y3, Y3, Y11
	VCVTPS2PD   64(SI)(AX*4), Y0
	VCVTPS2PD   80(SI)(AX*4), Y1
	VCVTPS2PD   96(SI)(AX*4), Y2
	VCVTPS2PD   112(SI)(AX*4), Y3
	VSUBPD      Y4, Y0, Y0
	VSUBPD      Y4, Y1, Y1
	VSUBPD      Y4, Y2, Y2
	VSUBPD      Y4, Y3, Y3
	VFMADD231PD Y0, Y0, Y12
	VFMADD231PD Y1, Y1, Y13
	VFMADD231PD Y2, Y2, Y14
	VFMADD231PD Y3, Y3, Y15
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         sqsloop

	VADDPD       Y9, Y8, Y8
	VADDPD       Y11, Y10, Y10
	VADDPD       Y13, Y12, Y12
	VADDPD       Y15, Y14, Y14
	VADDPD       Y10, Y8, Y8
	VADDPD       Y14, Y12, Y12
	VADDPD       Y12, Y8, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD       X9, X8, X8
	VHADDPD      X8, X8, X8
	VMOVSD       X8, ret+32(FP)
	VZEROUPPER
	RET

// EXTSTREAM(name, op, init): the max (op VMAXPS, init -inf) or min
// (VMINPS, +inf) of x[0:n], n a multiple of 32 and at least 32, and
// whether any element is NaN (VMAXPS/VMINPS drop NaN, so an unordered
// compare of each pair of vectors collects NaN lanes separately).
// func name(x *float32, n int, pf int) (m float32, nan bool)
#define EXTSTREAM(name, op, init) \
TEXT name(SB), NOSPLIT, $0-32; \
	MOVQ         x+0(FP), SI; \
	MOVQ         n+8(FP), CX; \
	MOVQ         pf+16(FP), DI; \
	ADDQ         SI, DI; \
	XORQ         AX, AX; \
	MOVL         $init, DX; \
	MOVL         DX, X0; \
	VBROADCASTSS X0, Y0; \
	VMOVAPS      Y0, Y1; \
	VMOVAPS      Y0, Y2; \
	VMOVAPS      Y0, Y3; \
	VXORPS       Y4, Y4, Y4; \
	VXORPS       Y5, Y5, Y5; \
loop:; \
	PREFETCHT0 (DI)(AX*4); \
	PREFETCHT0 64(DI)(AX*4); \
	VMOVUPS    (SI)(AX*4), Y8; \
	VMOVUPS    32(SI)(AX*4), Y9; \
	VMOVUPS    64(SI)(AX*4), Y10; \
	VMOVUPS    96(SI)(AX*4), Y11; \
	op         Y8, Y0, Y0; \
	op         Y9, Y1, Y1; \
	op         Y10, Y2, Y2; \
	op         Y11, Y3, Y3; \
	VCMPPS     $3, Y9, Y8, Y12; \
	VCMPPS     $3, Y11, Y10, Y13; \
	VORPS      Y12, Y4, Y4; \
	VORPS      Y13, Y5, Y5; \
	ADDQ       $32, AX; \
	CMPQ       AX, CX; \
	JLT        loop; \
	op           Y1, Y0, Y0; \
	op           Y3, Y2, Y2; \
	op           Y2, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	op           X1, X0, X0; \
	VPERMILPS    $0x4E, X0, X1; \
	op           X1, X0, X0; \
	VPERMILPS    $0xB1, X0, X1; \
	op           X1, X0, X0; \
	VMOVSS       X0, m+24(FP); \
	VORPS        Y5, Y4, Y4; \
	VMOVMSKPS    Y4, DX; \
	TESTL        DX, DX; \
	SETNE        nan+28(FP); \
	VZEROUPPER; \
	RET

EXTSTREAM(·maxF32Stream, VMAXPS, 0xff800000)
EXTSTREAM(·minF32Stream, VMINPS, 0x7f800000)

// func indexEqF32AVX2(x *float32, n int, v float32) int
// The first i < n with x[i] == v (so -0 matches +0), or n when there is
// none; n a multiple of 8.
TEXT ·indexEqF32AVX2(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSS v+16(FP), Y1
	XORQ         AX, AX

eqloop:
	CMPQ      AX, CX
	JGE       eqnone
	VCMPPS    $0, (SI)(AX*4), Y1, Y0
	VMOVMSKPS Y0, DX
	ADDQ      $8, AX
	TESTL     DX, DX
	JZ        eqloop
	BSFL      DX, DX
	LEAQ      -8(AX)(DX*1), AX
	MOVQ      AX, ret+24(FP)
	VZEROUPPER
	RET

eqnone:
	MOVQ CX, ret+24(FP)
	VZEROUPPER
	RET

// func colSumF32AVX2(acc *float64, x *float32, stride int, rows int, n int)
// acc[j] += x[j] + x[stride+j] + ... + x[(rows-1)*stride+j], added in that
// order, for j < n: 32 columns at a time, their float64 sums held in
// registers over all rows, so acc is read and written once per block of
// rows rather than once per row. n is a multiple of 32, rows at least 1.
TEXT ·colSumF32AVX2(SB), NOSPLIT, $0-40
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ stride+16(FP), DX
	SHLQ $2, DX
	MOVQ rows+24(FP), R8
	MOVQ n+32(FP), CX
	XORQ AX, AX

colloop:
	CMPQ    AX, CX
	JGE     coldone
	VMOVUPD (DI)(AX*8), Y8
	VMOVUPD 32(DI)(AX*8), Y9
	VMOVUPD 64(DI)(AX*8), Y10
	VMOVUPD 96(DI)(AX*8), Y11
	VMOVUPD 128(DI)(AX*8), Y12
	VMOVUPD 160(DI)(AX*8), Y13
	VMOVUPD 192(DI)(AX*8), Y14
	VMOVUPD 224(DI)(AX*8), Y15
	LEAQ    (SI)(AX*4), BX
	MOVQ    R8, R9

rowloop:
	VCVTPS2PD (BX), Y0
	VCVTPS2PD 16(BX), Y1
	VCVTPS2PD 32(BX), Y2
	VCVTPS2PD 48(BX), Y3
	VCVTPS2PD 64(BX), Y4
	VCVTPS2PD 80(BX), Y5
	VCVTPS2PD 96(BX), Y6
	VCVTPS2PD 112(BX), Y7
	VADDPD    Y0, Y8, Y8
	VADDPD    Y1, Y9, Y9
	VADDPD    Y2, Y10, Y10
	VADDPD    Y3, Y11, Y11
	VADDPD    Y4, Y12, Y12
	VADDPD    Y5, Y13, Y13
	VADDPD    Y6, Y14, Y14
	VADDPD    Y7, Y15, Y15
	ADDQ      DX, BX
	DECQ      R9
	JNZ       rowloop

	VMOVUPD Y8, (DI)(AX*8)
	VMOVUPD Y9, 32(DI)(AX*8)
	VMOVUPD Y10, 64(DI)(AX*8)
	VMOVUPD Y11, 96(DI)(AX*8)
	VMOVUPD Y12, 128(DI)(AX*8)
	VMOVUPD Y13, 160(DI)(AX*8)
	VMOVUPD Y14, 192(DI)(AX*8)
	VMOVUPD Y15, 224(DI)(AX*8)
	ADDQ    $32, AX
	JMP     colloop

coldone:
	VZEROUPPER
	RET
