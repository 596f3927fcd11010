//go:build amd64 && !purego

#include "textflag.h"

// expTab holds the constants of expSubSumAVX2, each repeated in 8 lanes:
// log2e, ln2hi, ln2lo, p0, p1, p2, p3, p4, p5, one, low, then the exponent bias 127.
DATA expTab<>+0(SB)/4, $0x3fb8aa3b
DATA expTab<>+4(SB)/4, $0x3fb8aa3b
DATA expTab<>+8(SB)/4, $0x3fb8aa3b
DATA expTab<>+12(SB)/4, $0x3fb8aa3b
DATA expTab<>+16(SB)/4, $0x3fb8aa3b
DATA expTab<>+20(SB)/4, $0x3fb8aa3b
DATA expTab<>+24(SB)/4, $0x3fb8aa3b
DATA expTab<>+28(SB)/4, $0x3fb8aa3b
DATA expTab<>+32(SB)/4, $0x3f318000
DATA expTab<>+36(SB)/4, $0x3f318000
DATA expTab<>+40(SB)/4, $0x3f318000
DATA expTab<>+44(SB)/4, $0x3f318000
DATA expTab<>+48(SB)/4, $0x3f318000
DATA expTab<>+52(SB)/4, $0x3f318000
DATA expTab<>+56(SB)/4, $0x3f318000
DATA expTab<>+60(SB)/4, $0x3f318000
DATA expTab<>+64(SB)/4, $0xb95e8083
DATA expTab<>+68(SB)/4, $0xb95e8083
DATA expTab<>+72(SB)/4, $0xb95e8083
DATA expTab<>+76(SB)/4, $0xb95e8083
DATA expTab<>+80(SB)/4, $0xb95e8083
DATA expTab<>+84(SB)/4, $0xb95e8083
DATA expTab<>+88(SB)/4, $0xb95e8083
DATA expTab<>+92(SB)/4, $0xb95e8083
DATA expTab<>+96(SB)/4, $0x39506967
DATA expTab<>+100(SB)/4, $0x39506967
DATA expTab<>+104(SB)/4, $0x39506967
DATA expTab<>+108(SB)/4, $0x39506967
DATA expTab<>+112(SB)/4, $0x39506967
DATA expTab<>+116(SB)/4, $0x39506967
DATA expTab<>+120(SB)/4, $0x39506967
DATA expTab<>+124(SB)/4, $0x39506967
DATA expTab<>+128(SB)/4, $0x3ab743ce
DATA expTab<>+132(SB)/4, $0x3ab743ce
DATA expTab<>+136(SB)/4, $0x3ab743ce
DATA expTab<>+140(SB)/4, $0x3ab743ce
DATA expTab<>+144(SB)/4, $0x3ab743ce
DATA expTab<>+148(SB)/4, $0x3ab743ce
DATA expTab<>+152(SB)/4, $0x3ab743ce
DATA expTab<>+156(SB)/4, $0x3ab743ce
DATA expTab<>+160(SB)/4, $0x3c088908
DATA expTab<>+164(SB)/4, $0x3c088908
DATA expTab<>+168(SB)/4, $0x3c088908
DATA expTab<>+172(SB)/4, $0x3c088908
DATA expTab<>+176(SB)/4, $0x3c088908
DATA expTab<>+180(SB)/4, $0x3c088908
DATA expTab<>+184(SB)/4, $0x3c088908
DATA expTab<>+188(SB)/4, $0x3c088908
DATA expTab<>+192(SB)/4, $0x3d2aa9c1
DATA expTab<>+196(SB)/4, $0x3d2aa9c1
DATA expTab<>+200(SB)/4, $0x3d2aa9c1
DATA expTab<>+204(SB)/4, $0x3d2aa9c1
DATA expTab<>+208(SB)/4, $0x3d2aa9c1
DATA expTab<>+212(SB)/4, $0x3d2aa9c1
DATA expTab<>+216(SB)/4, $0x3d2aa9c1
DATA expTab<>+220(SB)/4, $0x3d2aa9c1
DATA expTab<>+224(SB)/4, $0x3e2aaaaa
DATA expTab<>+228(SB)/4, $0x3e2aaaaa
DATA expTab<>+232(SB)/4, $0x3e2aaaaa
DATA expTab<>+236(SB)/4, $0x3e2aaaaa
DATA expTab<>+240(SB)/4, $0x3e2aaaaa
DATA expTab<>+244(SB)/4, $0x3e2aaaaa
DATA expTab<>+248(SB)/4, $0x3e2aaaaa
DATA expTab<>+252(SB)/4, $0x3e2aaaaa
DATA expTab<>+256(SB)/4, $0x3f000000
DATA expTab<>+260(SB)/4, $0x3f000000
DATA expTab<>+264(SB)/4, $0x3f000000
DATA expTab<>+268(SB)/4, $0x3f000000
DATA expTab<>+272(SB)/4, $0x3f000000
DATA expTab<>+276(SB)/4, $0x3f000000
DATA expTab<>+280(SB)/4, $0x3f000000
DATA expTab<>+284(SB)/4, $0x3f000000
DATA expTab<>+288(SB)/4, $0x3f800000
DATA expTab<>+292(SB)/4, $0x3f800000
DATA expTab<>+296(SB)/4, $0x3f800000
DATA expTab<>+300(SB)/4, $0x3f800000
DATA expTab<>+304(SB)/4, $0x3f800000
DATA expTab<>+308(SB)/4, $0x3f800000
DATA expTab<>+312(SB)/4, $0x3f800000
DATA expTab<>+316(SB)/4, $0x3f800000
DATA expTab<>+320(SB)/4, $0xc2ae0000
DATA expTab<>+324(SB)/4, $0xc2ae0000
DATA expTab<>+328(SB)/4, $0xc2ae0000
DATA expTab<>+332(SB)/4, $0xc2ae0000
DATA expTab<>+336(SB)/4, $0xc2ae0000
DATA expTab<>+340(SB)/4, $0xc2ae0000
DATA expTab<>+344(SB)/4, $0xc2ae0000
DATA expTab<>+348(SB)/4, $0xc2ae0000
DATA expTab<>+352(SB)/4, $127
DATA expTab<>+356(SB)/4, $127
DATA expTab<>+360(SB)/4, $127
DATA expTab<>+364(SB)/4, $127
DATA expTab<>+368(SB)/4, $127
DATA expTab<>+372(SB)/4, $127
DATA expTab<>+376(SB)/4, $127
DATA expTab<>+380(SB)/4, $127
GLOBL expTab<>(SB), RODATA|NOPTR, $384

// func expSubSumAVX2(x *float32, n int, mx float32) float32
//
// x[i] = exp(x[i] - mx) for i < n (n a multiple of 8, every x[i] - mx ≤ 0
// or -inf); returns the sum. Arguments below -87 give 0.
TEXT ·expSubSumAVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSS mx+16(FP), Y15
	VXORPS Y8, Y8, Y8
	VMOVUPS expTab<>+320(SB), Y14
	SHRQ $3, CX
	JZ done

loop:
	VMOVUPS (SI), Y0
	VSUBPS Y15, Y0, Y0
	VCMPPS $1, Y14, Y0, Y7
	VMAXPS Y14, Y0, Y0
	VMULPS expTab<>+0(SB), Y0, Y1
	VROUNDPS $0, Y1, Y1
	VFNMADD231PS expTab<>+32(SB), Y1, Y0
	VFNMADD231PS expTab<>+64(SB), Y1, Y0
	VMULPS Y0, Y0, Y2
	VMOVUPS expTab<>+96(SB), Y3
	VFMADD213PS expTab<>+128(SB), Y0, Y3
	VFMADD213PS expTab<>+160(SB), Y0, Y3
	VFMADD213PS expTab<>+192(SB), Y0, Y3
	VFMADD213PS expTab<>+224(SB), Y0, Y3
	VFMADD213PS expTab<>+256(SB), Y0, Y3
	VFMADD213PS Y0, Y2, Y3
	VADDPS expTab<>+288(SB), Y3, Y3
	VCVTPS2DQ Y1, Y1
	VPADDD expTab<>+352(SB), Y1, Y1
	VPSLLD $23, Y1, Y1
	VMULPS Y1, Y3, Y3
	VANDNPS Y3, Y7, Y3
	VMOVUPS Y3, (SI)
	VADDPS Y3, Y8, Y8
	ADDQ $32, SI
	DECQ CX
	JNZ loop

done:
	VEXTRACTF128 $1, Y8, X9
	VADDPS X9, X8, X8
	VHADDPS X8, X8, X8
	VHADDPS X8, X8, X8
	VMOVSS X8, ret+24(FP)
	VZEROUPPER
	RET
