//go:build amd64 && !purego

#include "textflag.h"

// AVX2 row reductions: argmax/argmin, the sum of squared deviations of
// var/std, and the zero tests of any/all.

DATA argIota<>+0(SB)/4, $0
DATA argIota<>+4(SB)/4, $1
DATA argIota<>+8(SB)/4, $2
DATA argIota<>+12(SB)/4, $3
DATA argIota<>+16(SB)/4, $4
DATA argIota<>+20(SB)/4, $5
DATA argIota<>+24(SB)/4, $6
DATA argIota<>+28(SB)/4, $7
GLOBL argIota<>(SB), RODATA|NOPTR, $32

// ARG(name, pred): per lane, the best value of x[0:n] and the index of
// its first occurrence, in two sets of accumulators (even and odd blocks
// of 8, so that consecutive blocks do not wait on each other); a block
// replaces a lane's best only when strictly better (pred GT_OS 14 for
// argmax, LT_OS 1 for argmin), which keeps the first index in each lane.
// It reports whether any element is NaN, for the caller to fall back.
// n is a multiple of 16, at least 16 and below 2^31.
// func name(x *float32, n int, vals *float32, idxs *int32) (nan bool)
#define ARG(name, pred) \
TEXT name(SB), NOSPLIT, $0-33; \
	MOVQ         x+0(FP), SI; \
	MOVQ         n+8(FP), CX; \
	MOVQ         vals+16(FP), DI; \
	MOVQ         idxs+24(FP), DX; \
	MOVL         $8, AX; \
	MOVL         AX, X15; \
	VPBROADCASTD X15, Y15; \
	VPADDD       Y15, Y15, Y14; \
	VMOVUPS      (SI), Y0; \
	VMOVUPS      32(SI), Y2; \
	VMOVDQU      argIota<>(SB), Y1; \
	VPADDD       Y15, Y1, Y3; \
	VMOVDQA      Y1, Y4; \
	VCMPPS       $3, Y0, Y0, Y8; \
	VCMPPS       $3, Y2, Y2, Y9; \
	MOVQ         $16, AX; \
loop:; \
	CMPQ      AX, CX; \
	JGE       done; \
	VPADDD    Y14, Y4, Y4; \
	VPADDD    Y15, Y4, Y5; \
	VMOVUPS   (SI)(AX*4), Y6; \
	VMOVUPS   32(SI)(AX*4), Y7; \
	VCMPPS    $pred, Y0, Y6, Y10; \
	VCMPPS    $pred, Y2, Y7, Y11; \
	VBLENDVPS Y10, Y6, Y0, Y0; \
	VBLENDVPS Y10, Y4, Y1, Y1; \
	VBLENDVPS Y11, Y7, Y2, Y2; \
	VBLENDVPS Y11, Y5, Y3, Y3; \
	VCMPPS    $3, Y6, Y6, Y12; \
	VCMPPS    $3, Y7, Y7, Y13; \
	VORPS     Y12, Y8, Y8; \
	VORPS     Y13, Y9, Y9; \
	ADDQ      $16, AX; \
	JMP       loop; \
done:; \
	VMOVUPS   Y0, (DI); \
	VMOVUPS   Y2, 32(DI); \
	VMOVDQU   Y1, (DX); \
	VMOVDQU   Y3, 32(DX); \
	VORPS     Y9, Y8, Y8; \
	VMOVMSKPS Y8, AX; \
	TESTL     AX, AX; \
	SETNE     nan+32(FP); \
	VZEROUPPER; \
	RET

ARG(·argmaxF32AVX2, 14)
ARG(·argminF32AVX2, 1)

// func sqDevF32AVX2(x *float32, n int, mean float64) float64
// The float64 sum of (x[i] - mean)² over n elements, n a multiple of 16.
TEXT ·sqDevF32AVX2(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSD mean+16(FP), Y8
	XORQ         AX, AX
	VXORPD       Y4, Y4, Y4
	VXORPD       Y5, Y5, Y5
	VXORPD       Y6, Y6, Y6
	VXORPD       Y7, Y7, Y7

sqloop:
	CMPQ        AX, CX
	JGE         sqdone
	VCVTPS2PD   (SI)(AX*4), Y0
	VCVTPS2PD   16(SI)(AX*4), Y1
	VCVTPS2PD   32(SI)(AX*4), Y2
	VCVTPS2PD   48(SI)(AX*4), Y3
	VSUBPD      Y8, Y0, Y0
	VSUBPD      Y8, Y1, Y1
	VSUBPD      Y8, Y2, Y2
	VSUBPD      Y8, Y3, Y3
	VFMADD231PD Y0, Y0, Y4
	VFMADD231PD Y1, Y1, Y5
	VFMADD231PD Y2, Y2, Y6
	VFMADD231PD Y3, Y3, Y7
	ADDQ        $16, AX
	JMP         sqloop

sqdone:
	VADDPD       Y5, Y4, Y4
	VADDPD       Y7, Y6, Y6
	VADDPD       Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VADDPD       X5, X4, X4
	VHADDPD      X4, X4, X4
	VMOVSD       X4, ret+24(FP)
	VZEROUPPER
	RET

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
