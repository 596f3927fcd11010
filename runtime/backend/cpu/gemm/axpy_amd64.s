//go:build amd64 && !purego

#include "textflag.h"

// func axpyF64AVX2(a float64, x, y *float64, n int)
//
// y[i] += a·x[i] for i < n (n ≥ 0): blocks of 16 in four 4-lane FMAs,
// then blocks of 4, then the last n mod 4 one by one.
TEXT ·axpyF64AVX2(SB), NOSPLIT, $0-32
	VBROADCASTSD a+0(FP), Y0
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	MOVQ n+24(FP), CX

loop16:
	CMPQ CX, $16
	JLT loop4
	VMOVUPD (DI), Y1
	VMOVUPD 32(DI), Y2
	VMOVUPD 64(DI), Y3
	VMOVUPD 96(DI), Y4
	VFMADD231PD (SI), Y0, Y1
	VFMADD231PD 32(SI), Y0, Y2
	VFMADD231PD 64(SI), Y0, Y3
	VFMADD231PD 96(SI), Y0, Y4
	VMOVUPD Y1, (DI)
	VMOVUPD Y2, 32(DI)
	VMOVUPD Y3, 64(DI)
	VMOVUPD Y4, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $16, CX
	JMP loop16

loop4:
	CMPQ CX, $4
	JLT tail
	VMOVUPD (DI), Y1
	VFMADD231PD (SI), Y0, Y1
	VMOVUPD Y1, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $4, CX
	JMP loop4

tail:
	TESTQ CX, CX
	JZ done
	VMOVSD (DI), X1
	VFMADD231SD (SI), X0, X1
	VMOVSD X1, (DI)
	ADDQ $8, SI
	ADDQ $8, DI
	DECQ CX
	JMP tail

done:
	VZEROUPPER
	RET

// func dotF64AVX2(x, y *float64, n int) float64
//
// The sum of x[i]·y[i] for i < n (n ≥ 0): four 4-lane FMA chains over
// blocks of 16, one over the blocks of 4 left, then the lanes added and
// the last n mod 4 products added one by one.
TEXT ·dotF64AVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

dloop16:
	CMPQ CX, $16
	JLT dloop4
	VMOVUPD (SI), Y4
	VMOVUPD 32(SI), Y5
	VMOVUPD 64(SI), Y6
	VMOVUPD 96(SI), Y7
	VFMADD231PD (DI), Y4, Y0
	VFMADD231PD 32(DI), Y5, Y1
	VFMADD231PD 64(DI), Y6, Y2
	VFMADD231PD 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $16, CX
	JMP dloop16

dloop4:
	CMPQ CX, $4
	JLT dreduce
	VMOVUPD (SI), Y4
	VFMADD231PD (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $4, CX
	JMP dloop4

dreduce:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VHADDPD X0, X0, X0

dtail:
	TESTQ CX, CX
	JZ ddone
	VMOVSD (SI), X1
	VFMADD231SD (DI), X1, X0
	ADDQ $8, SI
	ADDQ $8, DI
	DECQ CX
	JMP dtail

ddone:
	VZEROUPPER
	MOVSD X0, ret+24(FP)
	RET

// func rotF64AVX2(c, s float64, x, y *float64, n int)
//
// (x[i], y[i]) = (c·x[i] − s·y[i], s·x[i] + c·y[i]) for i < n (n ≥ 0):
// blocks of 8 in two 4-lane pairs, then blocks of 4, then one by one.
// Each result is a product rounded, then a fused multiply-add.
TEXT ·rotF64AVX2(SB), NOSPLIT, $0-40
	VBROADCASTSD c+0(FP), Y0
	VBROADCASTSD s+8(FP), Y1
	MOVQ x+16(FP), SI
	MOVQ y+24(FP), DI
	MOVQ n+32(FP), CX

rloop8:
	CMPQ CX, $8
	JLT rloop4
	VMOVUPD (SI), Y2
	VMOVUPD (DI), Y3
	VMOVUPD 32(SI), Y6
	VMOVUPD 32(DI), Y7
	VMULPD Y2, Y0, Y4
	VFNMADD231PD Y3, Y1, Y4
	VMULPD Y3, Y0, Y5
	VFMADD231PD Y2, Y1, Y5
	VMULPD Y6, Y0, Y8
	VFNMADD231PD Y7, Y1, Y8
	VMULPD Y7, Y0, Y9
	VFMADD231PD Y6, Y1, Y9
	VMOVUPD Y4, (SI)
	VMOVUPD Y5, (DI)
	VMOVUPD Y8, 32(SI)
	VMOVUPD Y9, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $8, CX
	JMP rloop8

rloop4:
	CMPQ CX, $4
	JLT rtail
	VMOVUPD (SI), Y2
	VMOVUPD (DI), Y3
	VMULPD Y2, Y0, Y4
	VFNMADD231PD Y3, Y1, Y4
	VMULPD Y3, Y0, Y5
	VFMADD231PD Y2, Y1, Y5
	VMOVUPD Y4, (SI)
	VMOVUPD Y5, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $4, CX
	JMP rloop4

rtail:
	TESTQ CX, CX
	JZ rdone
	VMOVSD (SI), X2
	VMOVSD (DI), X3
	VMULSD X2, X0, X4
	VFNMADD231SD X3, X1, X4
	VMULSD X3, X0, X5
	VFMADD231SD X2, X1, X5
	VMOVSD X4, (SI)
	VMOVSD X5, (DI)
	ADDQ $8, SI
	ADDQ $8, DI
	DECQ CX
	JMP rtail

rdone:
	VZEROUPPER
	RET
