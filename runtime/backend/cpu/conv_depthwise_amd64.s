//go:build amd64 && !purego

#include "textflag.h"

// func dwRowF32AVX2(out, x, w *float32, n, ldx, kh, kw, dw int)
//
// out[j] += Σ_{a<kh, b<kw} w[a·kw+b] · x[a·ldx + j + b·dw] for j < n, a
// positive multiple of 8 (kh, kw ≥ 1): 32 columns at a time in Y0..Y3,
// then 8 in Y0, each tap's weight broadcast in Y4. Each out[j] sums its
// taps in (a, b) order, one FMA each.
TEXT ·dwRowF32AVX2(SB), NOSPLIT, $0-64
	MOVQ out+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ ldx+32(FP), R8
	SHLQ $2, R8
	MOVQ kh+40(FP), R9
	MOVQ kw+48(FP), R10
	MOVQ dw+56(FP), R11
	SHLQ $2, R11

loop32:
	CMPQ CX, $32
	JLT loop8
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	MOVQ SI, R12
	MOVQ DX, R13
	MOVQ R9, R14

row32:
	MOVQ R12, AX
	MOVQ R10, BX

tap32:
	VBROADCASTSS (R13), Y4
	VFMADD231PS (AX), Y4, Y0
	VFMADD231PS 32(AX), Y4, Y1
	VFMADD231PS 64(AX), Y4, Y2
	VFMADD231PS 96(AX), Y4, Y3
	ADDQ $4, R13
	ADDQ R11, AX
	DECQ BX
	JNZ tap32
	ADDQ R8, R12
	DECQ R14
	JNZ row32
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, DI
	ADDQ $128, SI
	SUBQ $32, CX
	JMP loop32

loop8:
	CMPQ CX, $8
	JLT done
	VMOVUPS (DI), Y0
	MOVQ SI, R12
	MOVQ DX, R13
	MOVQ R9, R14

row8:
	MOVQ R12, AX
	MOVQ R10, BX

tap8:
	VBROADCASTSS (R13), Y4
	VFMADD231PS (AX), Y4, Y0
	ADDQ $4, R13
	ADDQ R11, AX
	DECQ BX
	JNZ tap8
	ADDQ R8, R12
	DECQ R14
	JNZ row8
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	SUBQ $8, CX
	JMP loop8

done:
	VZEROUPPER
	RET
