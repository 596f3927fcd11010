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

// sqDevF32Stream reads 32 floats (two cache lines) per iteration into
// eight independent accumulators and prefetches the two lines pf bytes
// ahead.

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

// The four-stream kernels below read four rows of n floats, stride bytes
// apart, side by side, one cache line of each per iteration. A core keeps
// more lines in flight over four streams than over one (each stream has
// its own hardware prefetch), which is most of what a reduction can gain
// when memory bounds it. Every row has its own accumulators, so a row's
// result does not depend on the rows beside it (a stride of 0 reads one
// row four times and gives that row's result four times). n is a
// multiple of 16 and at least 16.

// SUM4ROW(p, a, b): adds the line at p into the float64 accumulators a, b.
#define SUM4ROW(p, a, b) \
	VCVTPS2PD (p)(AX*4), Y0; \
	VCVTPS2PD 16(p)(AX*4), Y1; \
	VCVTPS2PD 32(p)(AX*4), Y2; \
	VCVTPS2PD 48(p)(AX*4), Y3; \
	VADDPD    Y0, a, a; \
	VADDPD    Y1, b, b; \
	VADDPD    Y2, a, a; \
	VADDPD    Y3, b, b

// HSUMPD(a, b, xa, xb, off): stores the sum of the lanes of a and b at
// off(DI).
#define HSUMPD(a, b, xa, xb, off) \
	VADDPD       b, a, a; \
	VEXTRACTF128 $1, a, xb; \
	VADDPD       xb, xa, xa; \
	VHADDPD      xa, xa, xa; \
	VMOVSD       xa, off(DI)

// func sum4F32AVX2(x *float32, n int, stride int, out *[4]float64)
TEXT ·sum4F32AVX2(SB), NOSPLIT, $0-32
	MOVQ   x+0(FP), SI
	MOVQ   n+8(FP), CX
	MOVQ   stride+16(FP), DX
	SHLQ   $2, DX
	MOVQ   out+24(FP), DI
	LEAQ   (SI)(DX*1), R8
	LEAQ   (R8)(DX*1), R9
	LEAQ   (R9)(DX*1), R10
	XORQ   AX, AX
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15

sum4loop:
	SUM4ROW(SI, Y8, Y9)
	SUM4ROW(R8, Y10, Y11)
	SUM4ROW(R9, Y12, Y13)
	SUM4ROW(R10, Y14, Y15)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT  sum4loop

	HSUMPD(Y8, Y9, X8, X9, 0)
	HSUMPD(Y10, Y11, X10, X11, 8)
	HSUMPD(Y12, Y13, X12, X13, 16)
	HSUMPD(Y14, Y15, X14, X15, 24)
	VZEROUPPER
	RET

// EXT4ROW(op, p, acc, nan, a, b): folds the line at p into acc with op and
// its NaN lanes into nan.
#define EXT4ROW(op, p, acc, nan, a, b) \
	VMOVUPS (p)(AX*4), a; \
	VMOVUPS 32(p)(AX*4), b; \
	op      a, acc, acc; \
	op      b, acc, acc; \
	VCMPPS  $3, b, a, a; \
	VORPS   a, nan, nan

// EXT4FOLD(op, acc, xacc, t, xt, off): stores the op of acc's lanes at
// off(DI).
#define EXT4FOLD(op, acc, xacc, t, xt, off) \
	VEXTRACTF128 $1, acc, xt; \
	op           xt, xacc, xacc; \
	VPERMILPS    $0x4E, xacc, xt; \
	op           xt, xacc, xacc; \
	VPERMILPS    $0xB1, xacc, xt; \
	op           xt, xacc, xacc; \
	VMOVSS       xacc, off(DI)

// EXT4NAN(nan, bit): sets bit in BX when a lane of nan is set.
#define EXT4NAN(nan, bit) \
	VMOVMSKPS nan, DX; \
	TESTL     DX, DX; \
	SETNE     R11B; \
	MOVBLZX   R11B, R11; \
	SHLL      $bit, R11; \
	ORL       R11, BX

// EXT4(name, op, init): the max (op VMAXPS, init -inf) or min (VMINPS,
// +inf) of each of the four rows, and a mask of the rows holding a NaN
// (bit i for row i; VMAXPS/VMINPS drop NaN, so unordered compares collect
// NaN lanes separately).
// func name(x *float32, n int, stride int, out *[4]float32) (nan int)
#define EXT4(name, op, init) \
TEXT name(SB), NOSPLIT, $0-40; \
	MOVQ         x+0(FP), SI; \
	MOVQ         n+8(FP), CX; \
	MOVQ         stride+16(FP), DX; \
	SHLQ         $2, DX; \
	MOVQ         out+24(FP), DI; \
	LEAQ         (SI)(DX*1), R8; \
	LEAQ         (R8)(DX*1), R9; \
	LEAQ         (R9)(DX*1), R10; \
	XORQ         AX, AX; \
	MOVL         $init, DX; \
	MOVL         DX, X0; \
	VBROADCASTSS X0, Y0; \
	VMOVAPS      Y0, Y1; \
	VMOVAPS      Y0, Y2; \
	VMOVAPS      Y0, Y3; \
	VXORPS       Y4, Y4, Y4; \
	VXORPS       Y5, Y5, Y5; \
	VXORPS       Y6, Y6, Y6; \
	VXORPS       Y7, Y7, Y7; \
loop:; \
	EXT4ROW(op, SI, Y0, Y4, Y8, Y9); \
	EXT4ROW(op, R8, Y1, Y5, Y10, Y11); \
	EXT4ROW(op, R9, Y2, Y6, Y12, Y13); \
	EXT4ROW(op, R10, Y3, Y7, Y14, Y15); \
	ADDQ $16, AX; \
	CMPQ AX, CX; \
	JLT  loop; \
	EXT4FOLD(op, Y0, X0, Y8, X8, 0); \
	EXT4FOLD(op, Y1, X1, Y9, X9, 4); \
	EXT4FOLD(op, Y2, X2, Y10, X10, 8); \
	EXT4FOLD(op, Y3, X3, Y11, X11, 12); \
	XORL BX, BX; \
	EXT4NAN(Y4, 0); \
	EXT4NAN(Y5, 1); \
	EXT4NAN(Y6, 2); \
	EXT4NAN(Y7, 3); \
	MOVQ BX, nan+32(FP); \
	VZEROUPPER; \
	RET

EXT4(·max4F32AVX2, VMAXPS, 0xff800000)
EXT4(·min4F32AVX2, VMINPS, 0x7f800000)

// func indexUnordF32AVX2(x *float32, n int, v float32) int
// The first i < n where x[i] or v is NaN (v = 0: the first NaN), or n;
// n a multiple of 8.
TEXT ·indexUnordF32AVX2(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSS v+16(FP), Y1
	XORQ         AX, AX

unloop:
	CMPQ      AX, CX
	JGE       unnone
	VCMPPS    $3, (SI)(AX*4), Y1, Y0
	VMOVMSKPS Y0, DX
	ADDQ      $8, AX
	TESTL     DX, DX
	JZ        unloop
	BSFL      DX, DX
	LEAQ      -8(AX)(DX*1), AX
	MOVQ      AX, ret+24(FP)
	VZEROUPPER
	RET

unnone:
	MOVQ CX, ret+24(FP)
	VZEROUPPER
	RET
