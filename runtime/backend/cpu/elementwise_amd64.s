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

