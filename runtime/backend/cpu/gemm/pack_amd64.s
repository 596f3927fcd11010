//go:build amd64 && !purego

#include "textflag.h"

// TRANSPOSE8 transposes the 8×8 block of floats in Y0-Y7 (row i in Yi) up
// to the final lane swaps: column q is then the low lanes (q < 4) or the
// high lanes (q >= 4) of the pairs (Y6, Y9), (Y7, Y1), (Y8, Y2), (Y0, Y4)
// for q mod 4 = 0, 1, 2, 3, which VPERM2F128 $0x20 and $0x31 join.
#define TRANSPOSE8 \
	VUNPCKLPS Y1, Y0, Y8; \
	VUNPCKHPS Y1, Y0, Y9; \
	VUNPCKLPS Y3, Y2, Y0; \
	VUNPCKHPS Y3, Y2, Y1; \
	VUNPCKLPS Y5, Y4, Y2; \
	VUNPCKHPS Y5, Y4, Y3; \
	VUNPCKLPS Y7, Y6, Y4; \
	VUNPCKHPS Y7, Y6, Y5; \
	VSHUFPS $0x44, Y0, Y8, Y6; \
	VSHUFPS $0xEE, Y0, Y8, Y7; \
	VSHUFPS $0x44, Y1, Y9, Y8; \
	VSHUFPS $0xEE, Y1, Y9, Y0; \
	VSHUFPS $0x44, Y4, Y2, Y9; \
	VSHUFPS $0xEE, Y4, Y2, Y1; \
	VSHUFPS $0x44, Y5, Y3, Y2; \
	VSHUFPS $0xEE, Y5, Y3, Y4

// func packBT16AVX2(dst, src *float32, ld, k int)
//
// Packs a transposed 16-column panel: dst[q*16+j] = src[j*ld+q] for j < 16
// and q < k, k a multiple of 8, as 8×8 register transposes.
TEXT ·packBT16AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), DX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), R10
	MOVQ k+24(FP), CX
	SHRQ $3, CX
	JZ done

loop:
	LEAQ (SI)(DX*4), R8
	LEAQ (R8)(DX*4), R9
	LEAQ (R9)(DX*4), R11
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(DX*1), Y1
	VMOVUPS (SI)(DX*2), Y2
	VMOVUPS (SI)(R10*1), Y3
	VMOVUPS (R8), Y4
	VMOVUPS (R8)(DX*1), Y5
	VMOVUPS (R8)(DX*2), Y6
	VMOVUPS (R8)(R10*1), Y7
	TRANSPOSE8
	VPERM2F128 $0x20, Y9, Y6, Y3
	VPERM2F128 $0x31, Y9, Y6, Y5
	VMOVUPS Y3, 0(DI)
	VMOVUPS Y5, 256(DI)
	VPERM2F128 $0x20, Y1, Y7, Y3
	VPERM2F128 $0x31, Y1, Y7, Y5
	VMOVUPS Y3, 64(DI)
	VMOVUPS Y5, 320(DI)
	VPERM2F128 $0x20, Y2, Y8, Y3
	VPERM2F128 $0x31, Y2, Y8, Y5
	VMOVUPS Y3, 128(DI)
	VMOVUPS Y5, 384(DI)
	VPERM2F128 $0x20, Y4, Y0, Y3
	VPERM2F128 $0x31, Y4, Y0, Y5
	VMOVUPS Y3, 192(DI)
	VMOVUPS Y5, 448(DI)
	VMOVUPS (R9), Y0
	VMOVUPS (R9)(DX*1), Y1
	VMOVUPS (R9)(DX*2), Y2
	VMOVUPS (R9)(R10*1), Y3
	VMOVUPS (R11), Y4
	VMOVUPS (R11)(DX*1), Y5
	VMOVUPS (R11)(DX*2), Y6
	VMOVUPS (R11)(R10*1), Y7
	TRANSPOSE8
	VPERM2F128 $0x20, Y9, Y6, Y3
	VPERM2F128 $0x31, Y9, Y6, Y5
	VMOVUPS Y3, 32(DI)
	VMOVUPS Y5, 288(DI)
	VPERM2F128 $0x20, Y1, Y7, Y3
	VPERM2F128 $0x31, Y1, Y7, Y5
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y5, 352(DI)
	VPERM2F128 $0x20, Y2, Y8, Y3
	VPERM2F128 $0x31, Y2, Y8, Y5
	VMOVUPS Y3, 160(DI)
	VMOVUPS Y5, 416(DI)
	VPERM2F128 $0x20, Y4, Y0, Y3
	VPERM2F128 $0x31, Y4, Y0, Y5
	VMOVUPS Y3, 224(DI)
	VMOVUPS Y5, 480(DI)
	ADDQ $32, SI
	ADDQ $512, DI
	DECQ CX
	JNZ loop

done:
	VZEROUPPER
	RET

// func packBRow16AVX2(dst, src *float32, panels, stride int)
//
// Spreads one row of plain B over the micro-panels: dst[i*stride+j] =
// src[i*16+j] for i < panels and j < 16.
TEXT ·packBRow16AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ panels+16(FP), CX
	MOVQ stride+24(FP), DX
	SHLQ $2, DX
	TESTQ CX, CX
	JZ rowdone

rowloop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ $64, SI
	ADDQ DX, DI
	DECQ CX
	JNZ rowloop

rowdone:
	VZEROUPPER
	RET

// STORE6 stores the low six floats of y (x its low half) at off(DI).
#define STORE6(y, x, off) \
	VMOVUPS x, off(DI); \
	VEXTRACTF128 $1, y, X10; \
	VMOVSD X10, off+16(DI)

// func packA6AVX2(dst, src *float32, ld, k int)
//
// Packs a micro-panel of six rows of A read along k: dst[q*6+i] =
// src[i*ld+q] for i < 6 and q < k, k a multiple of 8, as 8×8 register
// transposes whose last two rows (copies of the sixth) are not stored.
TEXT ·packA6AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), DX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), R10
	MOVQ k+24(FP), CX
	SHRQ $3, CX
	JZ done6

loop6:
	LEAQ (SI)(DX*4), R8
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(DX*1), Y1
	VMOVUPS (SI)(DX*2), Y2
	VMOVUPS (SI)(R10*1), Y3
	VMOVUPS (R8), Y4
	VMOVUPS (R8)(DX*1), Y5
	VMOVAPS Y5, Y6
	VMOVAPS Y5, Y7
	TRANSPOSE8
	VPERM2F128 $0x20, Y9, Y6, Y3
	VPERM2F128 $0x31, Y9, Y6, Y5
	STORE6(Y3, X3, 0)
	STORE6(Y5, X5, 96)
	VPERM2F128 $0x20, Y1, Y7, Y3
	VPERM2F128 $0x31, Y1, Y7, Y5
	STORE6(Y3, X3, 24)
	STORE6(Y5, X5, 120)
	VPERM2F128 $0x20, Y2, Y8, Y3
	VPERM2F128 $0x31, Y2, Y8, Y5
	STORE6(Y3, X3, 48)
	STORE6(Y5, X5, 144)
	VPERM2F128 $0x20, Y4, Y0, Y3
	VPERM2F128 $0x31, Y4, Y0, Y5
	STORE6(Y3, X3, 72)
	STORE6(Y5, X5, 168)
	ADDQ $32, SI
	ADDQ $192, DI
	DECQ CX
	JNZ loop6

done6:
	VZEROUPPER
	RET
