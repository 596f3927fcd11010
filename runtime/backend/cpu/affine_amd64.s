//go:build amd64 && !purego

#include "textflag.h"

// func affineF32AVX2(o, a *float32, s, b float32, n int)
//
// o[i] = a[i]·s + b (one FMA) for i < n, a positive multiple of 8; o may
// be a.
TEXT ·affineF32AVX2(SB), NOSPLIT, $0-32
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	VBROADCASTSS s+16(FP), Y4
	VBROADCASTSS b+20(FP), Y5
	MOVQ n+24(FP), CX
	XORQ AX, AX

loop32:
	CMPQ CX, $32
	JLT loop8
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y1
	VMOVUPS 64(SI)(AX*4), Y2
	VMOVUPS 96(SI)(AX*4), Y3
	VFMADD213PS Y5, Y4, Y0
	VFMADD213PS Y5, Y4, Y1
	VFMADD213PS Y5, Y4, Y2
	VFMADD213PS Y5, Y4, Y3
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	VMOVUPS Y2, 64(DI)(AX*4)
	VMOVUPS Y3, 96(DI)(AX*4)
	ADDQ $32, AX
	SUBQ $32, CX
	JMP loop32

loop8:
	CMPQ CX, $8
	JLT done
	VMOVUPS (SI)(AX*4), Y0
	VFMADD213PS Y5, Y4, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	SUBQ $8, CX
	JMP loop8

done:
	VZEROUPPER
	RET
