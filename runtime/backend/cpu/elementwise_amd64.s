//go:build amd64 && !purego

#include "textflag.h"

// AVX2 loops of the hot float32 elementwise ops. n is a positive multiple
// of 8; the Go callers do the tail. Every block is loaded before it is
// stored at the same index, so o may alias an operand. Each macro takes
// the store instruction and a fence: VMOVUPS and NOP, or, for the NT
// twins that long rows use, VMOVNTPS (o 32-byte aligned; the output's
// lines are written without being read first) and SFENCE.

// VV(name, op, st, fence): o[i] = a[i] op b[i].
// func name(o, a, b *float32, n int)
#define VV(name, op, st, fence) \
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
	st Y0, (DI)(AX*4); \
	st Y1, 32(DI)(AX*4); \
	st Y2, 64(DI)(AX*4); \
	st Y3, 96(DI)(AX*4); \
	ADDQ $32, AX; \
	SUBQ $32, CX; \
	JMP loop32; \
loop8:; \
	CMPQ CX, $8; \
	JLT done; \
	VMOVUPS (SI)(AX*4), Y0; \
	op (DX)(AX*4), Y0, Y0; \
	st Y0, (DI)(AX*4); \
	ADDQ $8, AX; \
	SUBQ $8, CX; \
	JMP loop8; \
done:; \
	fence; \
	VZEROUPPER; \
	RET

// VS(name, op, st, fence): o[i] = a[i] op s.
// func name(o, a *float32, s float32, n int)
#define VS(name, op, st, fence) \
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
	st Y0, (DI)(AX*4); \
	st Y1, 32(DI)(AX*4); \
	st Y2, 64(DI)(AX*4); \
	st Y3, 96(DI)(AX*4); \
	ADDQ $32, AX; \
	SUBQ $32, CX; \
	JMP loop32; \
loop8:; \
	CMPQ CX, $8; \
	JLT done; \
	VMOVUPS (SI)(AX*4), Y0; \
	op Y4, Y0, Y0; \
	st Y0, (DI)(AX*4); \
	ADDQ $8, AX; \
	SUBQ $8, CX; \
	JMP loop8; \
done:; \
	fence; \
	VZEROUPPER; \
	RET

// SV(name, op, st, fence): o[i] = s op a[i].
// func name(o, a *float32, s float32, n int)
#define SV(name, op, st, fence) \
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
	st Y0, (DI)(AX*4); \
	st Y1, 32(DI)(AX*4); \
	st Y2, 64(DI)(AX*4); \
	st Y3, 96(DI)(AX*4); \
	ADDQ $32, AX; \
	SUBQ $32, CX; \
	JMP loop32; \
loop8:; \
	CMPQ CX, $8; \
	JLT done; \
	op (SI)(AX*4), Y4, Y0; \
	st Y0, (DI)(AX*4); \
	ADDQ $8, AX; \
	SUBQ $8, CX; \
	JMP loop8; \
done:; \
	fence; \
	VZEROUPPER; \
	RET

VV(·addVVF32, VADDPS, VMOVUPS, NOP)
VV(·subVVF32, VSUBPS, VMOVUPS, NOP)
VV(·mulVVF32, VMULPS, VMOVUPS, NOP)
VV(·divVVF32, VDIVPS, VMOVUPS, NOP)
VS(·addVSF32, VADDPS, VMOVUPS, NOP)
VS(·subVSF32, VSUBPS, VMOVUPS, NOP)
VS(·mulVSF32, VMULPS, VMOVUPS, NOP)
VS(·divVSF32, VDIVPS, VMOVUPS, NOP)
SV(·subSVF32, VSUBPS, VMOVUPS, NOP)
SV(·divSVF32, VDIVPS, VMOVUPS, NOP)
VV(·addVVF32NT, VADDPS, VMOVNTPS, SFENCE)
VV(·subVVF32NT, VSUBPS, VMOVNTPS, SFENCE)
VV(·mulVVF32NT, VMULPS, VMOVNTPS, SFENCE)
VV(·divVVF32NT, VDIVPS, VMOVNTPS, SFENCE)
VS(·addVSF32NT, VADDPS, VMOVNTPS, SFENCE)
VS(·subVSF32NT, VSUBPS, VMOVNTPS, SFENCE)
VS(·mulVSF32NT, VMULPS, VMOVNTPS, SFENCE)
VS(·divVSF32NT, VDIVPS, VMOVNTPS, SFENCE)
SV(·subSVF32NT, VSUBPS, VMOVNTPS, SFENCE)
SV(·divSVF32NT, VDIVPS, VMOVNTPS, SFENCE)

// MAXMIN_VV(name, op, st, fence): o[i] = op(a[i], b[i]) with NaN from either operand
// (VMAXPS/VMINPS alone return the second operand when one is NaN): the
// lanes where a or b is NaN are OR-ed with a+b, which is NaN there.
// func name(o, a, b *float32, n int)
#define MAXMIN_VV(name, op, st, fence) \
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
	st Y2, (DI)(AX*4); \
	ADDQ $8, AX; \
	SUBQ $8, CX; \
	JMP loop8; \
done:; \
	fence; \
	VZEROUPPER; \
	RET

// MAXMIN_VS(name, op, st, fence): o[i] = op(a[i], s), NaN-propagating as MAXMIN_VV.
// func name(o, a *float32, s float32, n int)
#define MAXMIN_VS(name, op, st, fence) \
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
	st Y2, (DI)(AX*4); \
	ADDQ $8, AX; \
	SUBQ $8, CX; \
	JMP loop8; \
done:; \
	fence; \
	VZEROUPPER; \
	RET

MAXMIN_VV(·maxVVF32, VMAXPS, VMOVUPS, NOP)
MAXMIN_VV(·minVVF32, VMINPS, VMOVUPS, NOP)
MAXMIN_VS(·maxVSF32, VMAXPS, VMOVUPS, NOP)
MAXMIN_VS(·minVSF32, VMINPS, VMOVUPS, NOP)
MAXMIN_VV(·maxVVF32NT, VMAXPS, VMOVNTPS, SFENCE)
MAXMIN_VV(·minVVF32NT, VMINPS, VMOVNTPS, SFENCE)
MAXMIN_VS(·maxVSF32NT, VMAXPS, VMOVNTPS, SFENCE)
MAXMIN_VS(·minVSF32NT, VMINPS, VMOVNTPS, SFENCE)

// CLAMP(name, st, fence): func name(o, a *float32, lo, hi float32, n int)
// o[i] = min(hi, max(lo, a[i])), NaN staying NaN: with a[i] as the second
// operand, VMAXPS and VMINPS return it when it is NaN. lo = -inf or
// hi = +inf leave that side open.
#define CLAMP(name, st, fence) \
TEXT name(SB), NOSPLIT, $0-32; \
	MOVQ o+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	VBROADCASTSS lo+16(FP), Y4; \
	VBROADCASTSS hi+20(FP), Y5; \
	MOVQ n+24(FP), CX; \
	XORQ AX, AX; \
cloop32:; \
	CMPQ CX, $32; \
	JLT cloop8; \
	VMAXPS (SI)(AX*4), Y4, Y0; \
	VMAXPS 32(SI)(AX*4), Y4, Y1; \
	VMAXPS 64(SI)(AX*4), Y4, Y2; \
	VMAXPS 96(SI)(AX*4), Y4, Y3; \
	VMINPS Y0, Y5, Y0; \
	VMINPS Y1, Y5, Y1; \
	VMINPS Y2, Y5, Y2; \
	VMINPS Y3, Y5, Y3; \
	st Y0, (DI)(AX*4); \
	st Y1, 32(DI)(AX*4); \
	st Y2, 64(DI)(AX*4); \
	st Y3, 96(DI)(AX*4); \
	ADDQ $32, AX; \
	SUBQ $32, CX; \
	JMP cloop32; \
cloop8:; \
	CMPQ CX, $8; \
	JLT cdone; \
	VMAXPS (SI)(AX*4), Y4, Y0; \
	VMINPS Y0, Y5, Y0; \
	st Y0, (DI)(AX*4); \
	ADDQ $8, AX; \
	SUBQ $8, CX; \
	JMP cloop8; \
cdone:; \
	fence; \
	VZEROUPPER; \
	RET

// BITS(name, st, fence): func name(o, a *float32, and, xor uint32, n int)
// o[i] = bits(a[i]) & and ^ xor: neg is xor 0x80000000, abs is and
// 0x7fffffff.
#define BITS(name, st, fence) \
TEXT name(SB), NOSPLIT, $0-32; \
	MOVQ o+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	VBROADCASTSS and+16(FP), Y4; \
	VBROADCASTSS xor+20(FP), Y5; \
	MOVQ n+24(FP), CX; \
	XORQ AX, AX; \
bloop8:; \
	CMPQ CX, $8; \
	JLT bdone; \
	VANDPS (SI)(AX*4), Y4, Y0; \
	VXORPS Y5, Y0, Y0; \
	st Y0, (DI)(AX*4); \
	ADDQ $8, AX; \
	SUBQ $8, CX; \
	JMP bloop8; \
bdone:; \
	fence; \
	VZEROUPPER; \
	RET

CLAMP(·clampF32AVX2, VMOVUPS, NOP)
CLAMP(·clampF32AVX2NT, VMOVNTPS, SFENCE)
BITS(·bitsF32AVX2, VMOVUPS, NOP)
BITS(·bitsF32AVX2NT, VMOVNTPS, SFENCE)
