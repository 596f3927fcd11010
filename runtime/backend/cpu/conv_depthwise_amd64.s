//go:build amd64 && !purego

#include "textflag.h"

// func dwRowF32AVX2(out, x, w *float32, n, ldx, kh, kw, dw int, b float32, init bool)
//
// out[j] = (init ? b : out[j]) + Σ_{a<kh, c<kw} w[a·kw+c] · x[a·ldx + j + c·dw]
// for j < n, a positive multiple of 8 (kh, kw ≥ 1): 64 columns at a
// time in Y0..Y7 (eight independent FMA chains keep both FMA pipes
// busy), then 32 in Y0..Y3, then 8 in Y0, each tap's weight broadcast in
// Y8 (b in Y9, the accumulators' start under init). Each out[j] sums its
// taps in (a, c) order, one FMA each.
TEXT ·dwRowF32AVX2(SB), NOSPLIT, $0-69
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
	VBROADCASTSS b+64(FP), Y9

loop64:
	CMPQ CX, $64
	JLT loop32
	CMPB init+68(FP), $0
	JNE b64init
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7
	JMP b64go

b64init:
	VMOVAPS Y9, Y0
	VMOVAPS Y9, Y1
	VMOVAPS Y9, Y2
	VMOVAPS Y9, Y3
	VMOVAPS Y9, Y4
	VMOVAPS Y9, Y5
	VMOVAPS Y9, Y6
	VMOVAPS Y9, Y7

b64go:
	MOVQ SI, R12
	MOVQ DX, R13
	MOVQ R9, R14

row64:
	MOVQ R12, AX
	MOVQ R10, BX

tap64:
	VBROADCASTSS (R13), Y8
	VFMADD231PS (AX), Y8, Y0
	VFMADD231PS 32(AX), Y8, Y1
	VFMADD231PS 64(AX), Y8, Y2
	VFMADD231PS 96(AX), Y8, Y3
	VFMADD231PS 128(AX), Y8, Y4
	VFMADD231PS 160(AX), Y8, Y5
	VFMADD231PS 192(AX), Y8, Y6
	VFMADD231PS 224(AX), Y8, Y7
	ADDQ $4, R13
	ADDQ R11, AX
	DECQ BX
	JNZ tap64
	ADDQ R8, R12
	DECQ R14
	JNZ row64
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ $256, DI
	ADDQ $256, SI
	SUBQ $64, CX
	JMP loop64

loop32:
	CMPQ CX, $32
	JLT loop8
	CMPB init+68(FP), $0
	JNE b32init
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	JMP b32go

b32init:
	VMOVAPS Y9, Y0
	VMOVAPS Y9, Y1
	VMOVAPS Y9, Y2
	VMOVAPS Y9, Y3

b32go:
	MOVQ SI, R12
	MOVQ DX, R13
	MOVQ R9, R14

row32:
	MOVQ R12, AX
	MOVQ R10, BX

tap32:
	VBROADCASTSS (R13), Y8
	VFMADD231PS (AX), Y8, Y0
	VFMADD231PS 32(AX), Y8, Y1
	VFMADD231PS 64(AX), Y8, Y2
	VFMADD231PS 96(AX), Y8, Y3
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
	CMPB init+68(FP), $0
	JNE b8init
	VMOVUPS (DI), Y0
	JMP b8go

b8init:
	VMOVAPS Y9, Y0

b8go:
	MOVQ SI, R12
	MOVQ DX, R13
	MOVQ R9, R14

row8:
	MOVQ R12, AX
	MOVQ R10, BX

tap8:
	VBROADCASTSS (R13), Y8
	VFMADD231PS (AX), Y8, Y0
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
