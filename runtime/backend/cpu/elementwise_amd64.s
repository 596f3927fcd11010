//go:build amd64 && !purego

#include "textflag.h"

// AVX2 loops of the hot float32 elementwise ops and of the float32 sum.
// n is a positive multiple of 8; the Go callers do the tail. Every block
// is loaded before it is stored at the same index, so o may alias an
// operand.

// VV(name, op): o[i] = a[i] op b[i].
// func name(o, a, b *float32, n int)
#define VV(name, op) \
TEXT name(SB), NOSPLIT, $0-32; \
	MOVQ o+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	MOVQ b+16(FP), DX; \
	MOVQ n+24(FP), CX; \
	XORQ AX, AX; \
loop32:; \
	CMPQ CX, $32; \
	JLT loop8; \
	VMOVUPS (SI)(AX*4), Y0; \
	VMOVUPS 32(SI)(AX*4), Y1; \
	VMOVUPS 64(SI)(AX*4), Y2; \
	VMOVUPS 96(SI)(AX*4), Y3; \
	op (DX)(AX*4), Y0, Y0; \
	op 32(DX)(AX*4), Y1, Y1; \
	op 64(DX)(AX*4), Y2, Y2; \
	op 96(DX)(AX*4), Y3, Y3; \
	VMOVUPS Y0, (DI)(AX*4); \
	VMOVUPS Y1, 32(DI)(AX*4); \
	VMOVUPS Y2, 64(DI)(AX*4); \
	VMOVUPS Y3, 96(DI)(AX*4); \
	ADDQ $32, AX; \
	SUBQ $32, CX; \
	JMP loop32; \
loop8:; \
	CMPQ CX, $8; \
	JLT done; \
	VMOVUPS (SI)(AX*4), Y0; \
	op (DX)(AX*4), Y0, Y0; \
	VMOVUPS Y0, (DI)(AX*4); \
	ADDQ $8, AX; \
	SUBQ $8, CX; \
	JMP loop8; \
done:; \
	VZEROUPPER; \
	RET

// VS(name, op): o[i] = a[i] op s.
// func name(o, a *float32, s float32, n int)
#define VS(name, op) \
TEXT name(SB), NOSPLIT, $0-32; \
	MOVQ o+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	VBROADCASTSS s+16(FP), Y4; \
	MOVQ n+24(FP), CX; \
	XORQ AX, AX; \
loop32:; \
	CMPQ CX, $32; \
	JLT loop8; \
	VMOVUPS (SI)(AX*4), Y0; \
	VMOVUPS 32(SI)(AX*4), Y1; \
	VMOVUPS 64(SI)(AX*4), Y2; \
	VMOVUPS 96(SI)(AX*4), Y3; \
	op Y4, Y0, Y0; \
	op Y4, Y1, Y1; \
	op Y4, Y2, Y2; \
	op Y4, Y3, Y3; \
	VMOVUPS Y0, (DI)(AX*4); \
	VMOVUPS Y1, 32(DI)(AX*4); \
	VMOVUPS Y2, 64(DI)(AX*4); \
	VMOVUPS Y3, 96(DI)(AX*4); \
	ADDQ $32, AX; \
	SUBQ $32, CX; \
	JMP loop32; \
loop8:; \
	CMPQ CX, $8; \
	JLT done; \
	VMOVUPS (SI)(AX*4), Y0; \
	op Y4, Y0, Y0; \
	VMOVUPS Y0, (DI)(AX*4); \
	ADDQ $8, AX; \
	SUBQ $8, CX; \
	JMP loop8; \
done:; \
	VZEROUPPER; \
	RET

// SV(name, op): o[i] = s op a[i].
// func name(o, a *float32, s float32, n int)
#define SV(name, op) \
TEXT name(SB), NOSPLIT, $0-32; \
	MOVQ o+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	VBROADCASTSS s+16(FP), Y4; \
	MOVQ n+24(FP), CX; \
	XORQ AX, AX; \
loop32:; \
	CMPQ CX, $32; \
	JLT loop8; \
	op (SI)(AX*4), Y4, Y0; \
	op 32(SI)(AX*4), Y4, Y1; \
	op 64(SI)(AX*4), Y4, Y2; \
	op 96(SI)(AX*4), Y4, Y3; \
	VMOVUPS Y0, (DI)(AX*4); \
	VMOVUPS Y1, 32(DI)(AX*4); \
	VMOVUPS Y2, 64(DI)(AX*4); \
	VMOVUPS Y3, 96(DI)(AX*4); \
	ADDQ $32, AX; \
	SUBQ $32, CX; \
	JMP loop32; \
loop8:; \
	CMPQ CX, $8; \
	JLT done; \
	op (SI)(AX*4), Y4, Y0; \
	VMOVUPS Y0, (DI)(AX*4); \
	ADDQ $8, AX; \
	SUBQ $8, CX; \
	JMP loop8; \
done:; \
	VZEROUPPER; \
	RET

VV(·addVVF32, VADDPS)
VV(·subVVF32, VSUBPS)
VV(·mulVVF32, VMULPS)
VV(·divVVF32, VDIVPS)
VS(·addVSF32, VADDPS)
VS(·subVSF32, VSUBPS)
VS(·mulVSF32, VMULPS)
VS(·divVSF32, VDIVPS)
SV(·subSVF32, VSUBPS)
SV(·divSVF32, VDIVPS)

// func sumF32AVX2(x *float32, n int) float64
// Sums in float64: each group of 4 floats widens to 4 doubles, 16 floats
// per iteration into 4 independent accumulators.
TEXT ·sumF32AVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ AX, AX
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
sloop16:
	CMPQ CX, $16
	JLT sloop8
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y1
	VCVTPS2PD 32(SI)(AX*4), Y2
	VCVTPS2PD 48(SI)(AX*4), Y3
	VADDPD Y0, Y4, Y4
	VADDPD Y1, Y5, Y5
	VADDPD Y2, Y6, Y6
	VADDPD Y3, Y7, Y7
	ADDQ $16, AX
	SUBQ $16, CX
	JMP sloop16
sloop8:
	CMPQ CX, $8
	JLT sdone
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y1
	VADDPD Y0, Y4, Y4
	VADDPD Y1, Y5, Y5
	ADDQ $8, AX
	SUBQ $8, CX
	JMP sloop8
sdone:
	VADDPD Y5, Y4, Y4
	VADDPD Y7, Y6, Y6
	VADDPD Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VADDPD X5, X4, X4
	VHADDPD X4, X4, X4
	VMOVSD X4, ret+16(FP)
	VZEROUPPER
	RET

// EXTREMUM(name, op, init): the max (op VMAXPS, init -inf) or min (VMINPS,
// +inf) of x[0:n] and whether any element is NaN (VMAXPS/VMINPS alone do
// not propagate NaN, so NaN lanes are collected separately).
// func name(x *float32, n int) (m float32, nan bool)
#define EXTREMUM(name, op, init) \
TEXT name(SB), NOSPLIT, $0-24; \
	MOVQ x+0(FP), SI; \
	MOVQ n+8(FP), CX; \
	XORQ AX, AX; \
	MOVL $init, DX; \
	MOVL DX, X0; \
	VBROADCASTSS X0, Y0; \
	VMOVAPS Y0, Y1; \
	VMOVAPS Y0, Y2; \
	VMOVAPS Y0, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
loop32:; \
	CMPQ CX, $32; \
	JLT loop8; \
	VMOVUPS (SI)(AX*4), Y8; \
	VMOVUPS 32(SI)(AX*4), Y9; \
	VMOVUPS 64(SI)(AX*4), Y10; \
	VMOVUPS 96(SI)(AX*4), Y11; \
	op Y8, Y0, Y0; \
	op Y9, Y1, Y1; \
	op Y10, Y2, Y2; \
	op Y11, Y3, Y3; \
	VCMPPS $3, Y8, Y8, Y12; \
	VCMPPS $3, Y9, Y9, Y13; \
	VCMPPS $3, Y10, Y10, Y14; \
	VCMPPS $3, Y11, Y11, Y15; \
	VORPS Y12, Y4, Y4; \
	VORPS Y13, Y5, Y5; \
	VORPS Y14, Y4, Y4; \
	VORPS Y15, Y5, Y5; \
	ADDQ $32, AX; \
	SUBQ $32, CX; \
	JMP loop32; \
loop8:; \
	CMPQ CX, $8; \
	JLT done; \
	VMOVUPS (SI)(AX*4), Y8; \
	op Y8, Y0, Y0; \
	VCMPPS $3, Y8, Y8, Y12; \
	VORPS Y12, Y4, Y4; \
	ADDQ $8, AX; \
	SUBQ $8, CX; \
	JMP loop8; \
done:; \
	op Y1, Y0, Y0; \
	op Y3, Y2, Y2; \
	op Y2, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	op X1, X0, X0; \
	VPERMILPS $0x4E, X0, X1; \
	op X1, X0, X0; \
	VPERMILPS $0xB1, X0, X1; \
	op X1, X0, X0; \
	VMOVSS X0, m+16(FP); \
	VORPS Y5, Y4, Y4; \
	VMOVMSKPS Y4, DX; \
	TESTL DX, DX; \
	SETNE nan+20(FP); \
	VZEROUPPER; \
	RET

EXTREMUM(·maxF32AVX2, VMAXPS, 0xff800000)
EXTREMUM(·minF32AVX2, VMINPS, 0x7f800000)

// MAXMIN_VV(name, op): o[i] = op(a[i], b[i]) with NaN from either operand
// (VMAXPS/VMINPS alone return the second operand when one is NaN): the
// lanes where a or b is NaN are OR-ed with a+b, which is NaN there.
// func name(o, a, b *float32, n int)
#define MAXMIN_VV(name, op) \
TEXT name(SB), NOSPLIT, $0-32; \
	MOVQ o+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	MOVQ b+16(FP), DX; \
	MOVQ n+24(FP), CX; \
	XORQ AX, AX; \
loop8:; \
	CMPQ CX, $8; \
	JLT done; \
	VMOVUPS (SI)(AX*4), Y0; \
	VMOVUPS (DX)(AX*4), Y1; \
	op Y1, Y0, Y2; \
	VCMPPS $3, Y1, Y0, Y3; \
	VADDPS Y1, Y0, Y4; \
	VANDPS Y4, Y3, Y3; \
	VORPS Y3, Y2, Y2; \
	VMOVUPS Y2, (DI)(AX*4); \
	ADDQ $8, AX; \
	SUBQ $8, CX; \
	JMP loop8; \
done:; \
	VZEROUPPER; \
	RET

// MAXMIN_VS(name, op): o[i] = op(a[i], s), NaN-propagating as MAXMIN_VV.
// func name(o, a *float32, s float32, n int)
#define MAXMIN_VS(name, op) \
TEXT name(SB), NOSPLIT, $0-32; \
	MOVQ o+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	VBROADCASTSS s+16(FP), Y1; \
	MOVQ n+24(FP), CX; \
	XORQ AX, AX; \
loop8:; \
	CMPQ CX, $8; \
	JLT done; \
	VMOVUPS (SI)(AX*4), Y0; \
	op Y1, Y0, Y2; \
	VCMPPS $3, Y1, Y0, Y3; \
	VADDPS Y1, Y0, Y4; \
	VANDPS Y4, Y3, Y3; \
	VORPS Y3, Y2, Y2; \
	VMOVUPS Y2, (DI)(AX*4); \
	ADDQ $8, AX; \
	SUBQ $8, CX; \
	JMP loop8; \
done:; \
	VZEROUPPER; \
	RET

MAXMIN_VV(·maxVVF32, VMAXPS)
MAXMIN_VV(·minVVF32, VMINPS)
MAXMIN_VS(·maxVSF32, VMAXPS)
MAXMIN_VS(·minVSF32, VMINPS)

// func clampF32AVX2(o, a *float32, lo, hi float32, n int)
// o[i] = min(hi, max(lo, a[i])), NaN staying NaN: with a[i] as the second
// operand, VMAXPS and VMINPS return it when it is NaN. lo = -inf or
// hi = +inf leave that side open.
TEXT ·clampF32AVX2(SB), NOSPLIT, $0-32
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	VBROADCASTSS lo+16(FP), Y4
	VBROADCASTSS hi+20(FP), Y5
	MOVQ n+24(FP), CX
	XORQ AX, AX
cloop32:
	CMPQ CX, $32
	JLT cloop8
	VMAXPS (SI)(AX*4), Y4, Y0
	VMAXPS 32(SI)(AX*4), Y4, Y1
	VMAXPS 64(SI)(AX*4), Y4, Y2
	VMAXPS 96(SI)(AX*4), Y4, Y3
	VMINPS Y0, Y5, Y0
	VMINPS Y1, Y5, Y1
	VMINPS Y2, Y5, Y2
	VMINPS Y3, Y5, Y3
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	VMOVUPS Y2, 64(DI)(AX*4)
	VMOVUPS Y3, 96(DI)(AX*4)
	ADDQ $32, AX
	SUBQ $32, CX
	JMP cloop32
cloop8:
	CMPQ CX, $8
	JLT cdone
	VMAXPS (SI)(AX*4), Y4, Y0
	VMINPS Y0, Y5, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	SUBQ $8, CX
	JMP cloop8
cdone:
	VZEROUPPER
	RET

// func bitsF32AVX2(o, a *float32, and, xor uint32, n int)
// o[i] = bits(a[i]) & and ^ xor: neg is xor 0x80000000, abs is and
// 0x7fffffff.
TEXT ·bitsF32AVX2(SB), NOSPLIT, $0-32
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	VBROADCASTSS and+16(FP), Y4
	VBROADCASTSS xor+20(FP), Y5
	MOVQ n+24(FP), CX
	XORQ AX, AX
bloop8:
	CMPQ CX, $8
	JLT bdone
	VANDPS (SI)(AX*4), Y4, Y0
	VXORPS Y5, Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	SUBQ $8, CX
	JMP bloop8
bdone:
	VZEROUPPER
	RET

// func colAddF32AVX2(acc *float64, x *float32, n int)
// acc[j] += float64(x[j]): one row of a column sum. n is a multiple of 8.
TEXT ·colAddF32AVX2(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
kloop8:
	CMPQ CX, $8
	JLT kdone
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y1
	VADDPD (DI)(AX*8), Y0, Y0
	VADDPD 32(DI)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ $8, AX
	SUBQ $8, CX
	JMP kloop8
kdone:
	VZEROUPPER
	RET
