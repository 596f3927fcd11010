//go:build amd64 && !purego

#include "textflag.h"

// AVX2 comparisons of float32 rows into bool bytes, and where on 32-bit
// elements. n is a positive multiple of 32; the Go callers do the tails.

// cmpPerm reorders the dwords that VPACKSSDW and VPACKSSWB leave
// lane-interleaved back into element order.
DATA cmpPerm<>+0(SB)/4, $0
DATA cmpPerm<>+4(SB)/4, $4
DATA cmpPerm<>+8(SB)/4, $1
DATA cmpPerm<>+12(SB)/4, $5
DATA cmpPerm<>+16(SB)/4, $2
DATA cmpPerm<>+20(SB)/4, $6
DATA cmpPerm<>+24(SB)/4, $3
DATA cmpPerm<>+28(SB)/4, $7
GLOBL cmpPerm<>(SB), RODATA|NOPTR, $32

DATA cmpOnes<>+0(SB)/8, $0x0101010101010101
DATA cmpOnes<>+8(SB)/8, $0x0101010101010101
DATA cmpOnes<>+16(SB)/8, $0x0101010101010101
DATA cmpOnes<>+24(SB)/8, $0x0101010101010101
GLOBL cmpOnes<>(SB), RODATA|NOPTR, $32

// PACK32 turns the masks of 32 comparisons in Y0..Y3 into 32 bytes of 0
// or 1 in Y0 (Y6 holds cmpPerm, Y7 cmpOnes).
#define PACK32 \
	VPACKSSDW Y1, Y0, Y0; \
	VPACKSSDW Y3, Y2, Y2; \
	VPACKSSWB Y2, Y0, Y0; \
	VPERMD    Y0, Y6, Y0; \
	VPAND     Y7, Y0, Y0

// CMPVV(name, pred): o[i] = a[i] pred b[i] (VCMPPS predicate).
// func name(o *uint8, a, b *float32, n int)
#define CMPVV(name, pred) \
TEXT name(SB), NOSPLIT, $0-32; \
	MOVQ    o+0(FP), DI; \
	MOVQ    a+8(FP), SI; \
	MOVQ    b+16(FP), DX; \
	MOVQ    n+24(FP), CX; \
	XORQ    AX, AX; \
	VMOVDQU cmpPerm<>(SB), Y6; \
	VMOVDQU cmpOnes<>(SB), Y7; \
loop:; \
	VMOVUPS (SI)(AX*4), Y0; \
	VMOVUPS 32(SI)(AX*4), Y1; \
	VMOVUPS 64(SI)(AX*4), Y2; \
	VMOVUPS 96(SI)(AX*4), Y3; \
	VCMPPS  $pred, (DX)(AX*4), Y0, Y0; \
	VCMPPS  $pred, 32(DX)(AX*4), Y1, Y1; \
	VCMPPS  $pred, 64(DX)(AX*4), Y2, Y2; \
	VCMPPS  $pred, 96(DX)(AX*4), Y3, Y3; \
	PACK32; \
	VMOVDQU Y0, (DI)(AX*1); \
	ADDQ    $32, AX; \
	CMPQ    AX, CX; \
	JLT     loop; \
	VZEROUPPER; \
	RET

// CMPVS(name, pred): o[i] = a[i] pred s.
// func name(o *uint8, a *float32, s float32, n int)
#define CMPVS(name, pred) \
TEXT name(SB), NOSPLIT, $0-32; \
	MOVQ         o+0(FP), DI; \
	MOVQ         a+8(FP), SI; \
	VBROADCASTSS s+16(FP), Y4; \
	MOVQ         n+24(FP), CX; \
	XORQ         AX, AX; \
	VMOVDQU      cmpPerm<>(SB), Y6; \
	VMOVDQU      cmpOnes<>(SB), Y7; \
loop:; \
	VMOVUPS (SI)(AX*4), Y0; \
	VMOVUPS 32(SI)(AX*4), Y1; \
	VMOVUPS 64(SI)(AX*4), Y2; \
	VMOVUPS 96(SI)(AX*4), Y3; \
	VCMPPS  $pred, Y4, Y0, Y0; \
	VCMPPS  $pred, Y4, Y1, Y1; \
	VCMPPS  $pred, Y4, Y2, Y2; \
	VCMPPS  $pred, Y4, Y3, Y3; \
	PACK32; \
	VMOVDQU Y0, (DI)(AX*1); \
	ADDQ    $32, AX; \
	CMPQ    AX, CX; \
	JLT     loop; \
	VZEROUPPER; \
	RET

// Predicates: EQ_OQ 0, LT_OS 1, LE_OS 2, NEQ_UQ 4 (true with a NaN, as
// Go's !=), GE_OS 13, GT_OS 14; ordered ones are false with a NaN.
CMPVV(·eqVVF32, 0)
CMPVV(·neVVF32, 4)
CMPVV(·ltVVF32, 1)
CMPVV(·leVVF32, 2)
CMPVV(·gtVVF32, 14)
CMPVV(·geVVF32, 13)
CMPVS(·eqVSF32, 0)
CMPVS(·neVSF32, 4)
CMPVS(·ltVSF32, 1)
CMPVS(·leVSF32, 2)
CMPVS(·gtVSF32, 14)
CMPVS(·geVSF32, 13)

// WHERE(name, loadA, loadB): o[i] = c[i] != 0 ? a[i] : b[i] on 32-bit
// words, 32 at a time. loadA and loadB give operand k's block (k = 0..3)
// in Y8: from memory, or the broadcast scalar in Y4/Y5.
// func name(o *uint32, c *uint8, a, b *uint32, n int)
#define WHERE_BLOCK(off, coff, la, lb) \
	VPMOVZXBD coff(DX)(AX*1), Y0; \
	VPCMPEQD  Y9, Y0, Y0; \
	la(off, Y1); \
	VBLENDVPS Y0, lb(off), Y1, Y1; \
	VMOVUPS   Y1, off(DI)(AX*4)

#define WHERE(name, la, lb) \
TEXT name(SB), NOSPLIT, $0-40; \
	MOVQ         o+0(FP), DI; \
	MOVQ         c+8(FP), DX; \
	MOVQ         a+16(FP), SI; \
	MOVQ         b+24(FP), R8; \
	MOVQ         n+32(FP), CX; \
	VPBROADCASTD (SI), Y4; \
	VPBROADCASTD (R8), Y5; \
	VPXOR        Y9, Y9, Y9; \
	XORQ         AX, AX; \
loop:; \
	WHERE_BLOCK(0, 0, la, lb); \
	WHERE_BLOCK(32, 8, la, lb); \
	WHERE_BLOCK(64, 16, la, lb); \
	WHERE_BLOCK(96, 24, la, lb); \
	ADDQ $32, AX; \
	CMPQ AX, CX; \
	JLT  loop; \
	VZEROUPPER; \
	RET

// Operand loaders: LDA/LDB move a's block into a register; MEMA/MEMB name
// a's or b's block in memory; SCA/SCB the broadcast scalars.
#define LDA(off, r) VMOVUPS off(SI)(AX*4), r
#define LDSA(off, r) VMOVAPS Y4, r
#define MEMB(off) off(R8)(AX*4)
#define SCB(off) Y5

WHERE(·whereVVU32, LDA, MEMB)
WHERE(·whereVSU32, LDA, SCB)
WHERE(·whereSVU32, LDSA, MEMB)
