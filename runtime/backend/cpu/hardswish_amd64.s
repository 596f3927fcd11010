//go:build amd64 && !purego

#include "textflag.h"

// func hardswishF32AVX2(o, x *float32, n int, three, six float32)
// o[i] = x[i]·min(max(x[i]+three, 0), six)/six for n a multiple of 8,
// with the instructions and operand order of addVSF32, clampF32AVX2,
// mulVVF32 and divVSF32 run in turn, in registers: the same bits, one
// pass. o may be x.
TEXT ·hardswishF32AVX2(SB), NOSPLIT, $0-32
	MOVQ o+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS three+24(FP), Y4
	VBROADCASTSS six+28(FP), Y6
	VXORPS Y5, Y5, Y5
	XORQ AX, AX
loop8:
	CMPQ CX, $8
	JLT done
	VMOVUPS (SI)(AX*4), Y0
	VADDPS Y4, Y0, Y1
	VMAXPS Y1, Y5, Y1
	VMINPS Y1, Y6, Y1
	VMULPS Y1, Y0, Y1
	VDIVPS Y6, Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ $8, AX
	SUBQ $8, CX
	JMP loop8
done:
	VZEROUPPER
	RET
