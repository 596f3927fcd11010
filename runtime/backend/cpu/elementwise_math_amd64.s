//go:build amd64 && !purego

#include "textflag.h"

// AVX2+FMA float32 math over rows: exp, log, sqrt, rsqrt, tanh, sigmoid,
// silu, gelu, sin and cos. Every function handles n elements, n a
// multiple of 8 (the Go callers pass tails through a padded block), and
// loads each block before storing it, so o may alias a. The polynomials
// are Cephes' single-precision ones unless noted; elementwise_math_test.go
// bounds their error against float64 math over special values and wide
// sweeps.

// C8(name, v) is a 32-byte constant: v in each of 8 lanes.
#define C8(name, v) \
	DATA name<>+0(SB)/4, v; \
	DATA name<>+4(SB)/4, v; \
	DATA name<>+8(SB)/4, v; \
	DATA name<>+12(SB)/4, v; \
	DATA name<>+16(SB)/4, v; \
	DATA name<>+20(SB)/4, v; \
	DATA name<>+24(SB)/4, v; \
	DATA name<>+28(SB)/4, v; \
	GLOBL name<>(SB), RODATA|NOPTR, $32

C8(mOne, $1.0)
C8(mTwo, $2.0)
C8(mHalf, $0.5)
C8(mAbs, $0x7fffffff)
C8(mSign, $0x80000000)
C8(mInf, $0x7f800000)
C8(mNegInf, $0xff800000)
C8(mNaN, $0x7fc00000)
C8(mBias, $127)

// exp: x = n ln2 + r, |r| <= ln2/2; e^r by a degree-7 polynomial; 2^n as
// two factors, so that results down to the subnormals are scaled without
// overflowing an exponent field.
C8(mExpLo, $-104.0)
C8(mExpHi, $89.0)
C8(mLog2e, $0x3fb8aa3b)
C8(mLn2Hi, $0x3f318000)
C8(mLn2Lo, $0xb95e8083)
C8(mExpP0, $1.9875691500e-4)
C8(mExpP1, $1.3981999507e-3)
C8(mExpP2, $8.3334519073e-3)
C8(mExpP3, $4.1665795894e-2)
C8(mExpP4, $1.6666665459e-1)
C8(mExpP5, $5.0000001201e-1)

// log: x = 2^e m, sqrt(1/2) <= m < sqrt(2); log(m) = f - f²/2 + f³ P(f)
// with f = m - 1.
C8(mMinNorm, $0x00800000)
C8(mTwo23, $8388608.0)
C8(m23, $23.0)
C8(mI126, $126)
C8(mMant, $0x007fffff)
C8(mHalfBits, $0x3f000000)
C8(mSqrtHf, $0x3f3504f3)
C8(mLogP0, $7.0376836292e-2)
C8(mLogP1, $-1.1514610310e-1)
C8(mLogP2, $1.1676998740e-1)
C8(mLogP3, $-1.2420140846e-1)
C8(mLogP4, $1.4249322787e-1)
C8(mLogP5, $-1.6668057665e-1)
C8(mLogP6, $2.0000714765e-1)
C8(mLogP7, $-2.4999993993e-1)
C8(mLogP8, $3.3333331174e-1)

// tanh: |x| < 0.625: x + x³ P(x²); else 1 - 2/(e^{2|x|} + 1); sign of x.
C8(mTanhCut, $0.625)
C8(mTanhP0, $-5.70498872745e-3)
C8(mTanhP1, $2.06390887954e-2)
C8(mTanhP2, $-5.37397155531e-2)
C8(mTanhP3, $1.33314422036e-1)
C8(mTanhP4, $-3.33332819422e-1)

// gelu: x Φ(x), Φ(x) = erfc(-x/√2)/2. erfc(z) = t exp(-z² + P(t)),
// t = 2/(2+z), z >= 0 (Numerical Recipes' erfcc, relative error below
// 1.2e-7 for every z); z² = x²/2 is carried as two floats so that its
// rounding does not reach the result. |x| is clamped to 15, where erfc
// has underflowed to 0.
C8(mGeluMax, $15.0)
C8(mSqrt1_2, $0x3f3504f3)
C8(mErfc0, $-1.26551223)
C8(mErfc1, $1.00002368)
C8(mErfc2, $0.37409196)
C8(mErfc3, $0.09678418)
C8(mErfc4, $-0.18628806)
C8(mErfc5, $0.27886807)
C8(mErfc6, $-1.13520398)
C8(mErfc7, $1.48851587)
C8(mErfc8, $-0.82215223)
C8(mErfc9, $0.17087277)

// sin and cos: x = j π/2 + r, |r| <= π/4, with π/2 in four positive parts
// (the first two short enough that j times them is exact for |x| <= 8192;
// all positive so that x = -0 keeps r = -0); sin(r) or cos(r) by quadrant.
C8(mSinMax, $8192.0)
C8(m2OverPi, $0x3f22f983)
C8(mPio2_1, $0x3fc90000)
C8(mPio2_2, $0x39fda000)
C8(mPio2_3, $0x33a22168)
C8(mPio2_4, $0x27c234c5)
C8(mSinP0, $-1.9515295891e-4)
C8(mSinP1, $8.3321608736e-3)
C8(mSinP2, $-1.6666654611e-1)
C8(mCosP0, $2.443315711809948e-5)
C8(mCosP1, $-1.388731625493765e-3)
C8(mCosP2, $4.166664568298827e-2)

// EXPPOLY(R, N, P, T): P = e^R 2^N for a reduced R (|R| <= ln2/2 or a
// little more) and N holding integral floats in [-190, 128]; N and T are
// clobbered.
#define EXPPOLY(R, N, P, T) \
	VMOVUPS mExpP0<>(SB), P; \
	VFMADD213PS mExpP1<>(SB), R, P; \
	VFMADD213PS mExpP2<>(SB), R, P; \
	VFMADD213PS mExpP3<>(SB), R, P; \
	VFMADD213PS mExpP4<>(SB), R, P; \
	VFMADD213PS mExpP5<>(SB), R, P; \
	VMULPS R, R, T; \
	VFMADD213PS R, T, P; \
	VADDPS mOne<>(SB), P, P; \
	VCVTPS2DQ N, N; \
	VPSRAD $1, N, T; \
	VPSUBD T, N, N; \
	VPADDD mBias<>(SB), T, T; \
	VPADDD mBias<>(SB), N, N; \
	VPSLLD $23, T, T; \
	VPSLLD $23, N, N; \
	VMULPS T, P, P; \
	VMULPS N, P, P

// EXP(X, T1, T2, T3): X = e^X, NaN staying NaN (the clamps keep X when it
// is NaN, and the polynomial carries it).
#define EXP(X, T1, T2, T3) \
	VMOVUPS mExpLo<>(SB), T1; \
	VMAXPS X, T1, X; \
	VMOVUPS mExpHi<>(SB), T1; \
	VMINPS X, T1, X; \
	VMULPS mLog2e<>(SB), X, T1; \
	VROUNDPS $0, T1, T1; \
	VFNMADD231PS mLn2Hi<>(SB), T1, X; \
	VFNMADD231PS mLn2Lo<>(SB), T1, X; \
	EXPPOLY(X, T1, T2, T3); \
	VMOVAPS T2, X

// func expF32AVX2(o, a *float32, n int)
TEXT ·expF32AVX2(SB), NOSPLIT, $0-24
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

exploop:
	LEAQ    16(AX), DX
	CMPQ    DX, CX
	JGT     exptail
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y4
	EXP(Y0, Y1, Y2, Y3)
	EXP(Y4, Y5, Y6, Y7)
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y4, 32(DI)(AX*4)
	ADDQ    $16, AX
	JMP     exploop

exptail:
	CMPQ    AX, CX
	JGE     expdone
	VMOVUPS (SI)(AX*4), Y0
	EXP(Y0, Y1, Y2, Y3)
	VMOVUPS Y0, (DI)(AX*4)

expdone:
	VZEROUPPER
	RET

// func logF32AVX2(o, a *float32, n int)
TEXT ·logF32AVX2(SB), NOSPLIT, $0-24
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

logloop:
	CMPQ AX, CX
	JGE  logdone
	VMOVUPS (SI)(AX*4), Y4

	// Subnormals are scaled by 2^23 first (their exponent then less 23).
	VCMPPS    $1, mMinNorm<>(SB), Y4, Y1
	VMULPS    mTwo23<>(SB), Y4, Y2
	VBLENDVPS Y1, Y2, Y4, Y0
	VANDPS    m23<>(SB), Y1, Y1

	// e = biased exponent - 126, m in [0.5, 1).
	VPSRLD    $23, Y0, Y2
	VPSUBD    mI126<>(SB), Y2, Y2
	VCVTDQ2PS Y2, Y2
	VSUBPS    Y1, Y2, Y2
	VANDPS    mMant<>(SB), Y0, Y0
	VORPS     mHalfBits<>(SB), Y0, Y0

	// m < sqrt(1/2): f = 2m - 1 and e - 1; else f = m - 1.
	VCMPPS $1, mSqrtHf<>(SB), Y0, Y1
	VANDPS Y0, Y1, Y3
	VSUBPS mOne<>(SB), Y0, Y0
	VADDPS Y3, Y0, Y0
	VANDPS mOne<>(SB), Y1, Y1
	VSUBPS Y1, Y2, Y2

	// log = f + (f³ P(f) + e ln2lo - f²/2) + e ln2hi.
	VMULPS       Y0, Y0, Y3
	VMOVUPS      mLogP0<>(SB), Y1
	VFMADD213PS  mLogP1<>(SB), Y0, Y1
	VFMADD213PS  mLogP2<>(SB), Y0, Y1
	VFMADD213PS  mLogP3<>(SB), Y0, Y1
	VFMADD213PS  mLogP4<>(SB), Y0, Y1
	VFMADD213PS  mLogP5<>(SB), Y0, Y1
	VFMADD213PS  mLogP6<>(SB), Y0, Y1
	VFMADD213PS  mLogP7<>(SB), Y0, Y1
	VFMADD213PS  mLogP8<>(SB), Y0, Y1
	VMULPS       Y0, Y1, Y1
	VMULPS       Y3, Y1, Y1
	VFMADD231PS  mLn2Lo<>(SB), Y2, Y1
	VFNMADD231PS mHalf<>(SB), Y3, Y1
	VADDPS       Y1, Y0, Y0
	VFMADD231PS  mLn2Hi<>(SB), Y2, Y0

	// +inf stays +inf, ±0 gives -inf, x < 0 and NaN give NaN.
	VCMPPS    $0, mInf<>(SB), Y4, Y1
	VBLENDVPS Y1, Y4, Y0, Y0
	VXORPS    Y3, Y3, Y3
	VCMPPS    $0, Y3, Y4, Y1
	VBLENDVPS Y1, mNegInf<>(SB), Y0, Y0
	VCMPPS    $9, Y3, Y4, Y1
	VBLENDVPS Y1, mNaN<>(SB), Y0, Y0

	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     logloop

logdone:
	VZEROUPPER
	RET

// func sqrtF32AVX2(o, a *float32, n int)
// Correctly rounded, as float32(math.Sqrt(x)).
TEXT ·sqrtF32AVX2(SB), NOSPLIT, $0-24
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

sqrtloop:
	CMPQ    AX, CX
	JGE     sqrtdone
	VSQRTPS (SI)(AX*4), Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     sqrtloop

sqrtdone:
	VZEROUPPER
	RET

// func rsqrtF32AVX2(o, a *float32, n int)
// 1 / sqrt(x) with a true square root and division (as torch's vectorised
// rsqrt; not the 12-bit VRSQRTPS estimate).
TEXT ·rsqrtF32AVX2(SB), NOSPLIT, $0-24
	MOVQ    o+0(FP), DI
	MOVQ    a+8(FP), SI
	MOVQ    n+16(FP), CX
	XORQ    AX, AX
	VMOVUPS mOne<>(SB), Y2

rsqrtloop:
	CMPQ    AX, CX
	JGE     rsqrtdone
	VSQRTPS (SI)(AX*4), Y0
	VDIVPS  Y0, Y2, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     rsqrtloop

rsqrtdone:
	VZEROUPPER
	RET

// func tanhF32AVX2(o, a *float32, n int)
TEXT ·tanhF32AVX2(SB), NOSPLIT, $0-24
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

tanhloop:
	CMPQ    AX, CX
	JGE     tanhdone
	VMOVUPS (SI)(AX*4), Y0
	VANDPS  mSign<>(SB), Y0, Y5
	VANDPS  mAbs<>(SB), Y0, Y1

	// Small |x|: a + a (a² P(a²)).
	VMULPS      Y1, Y1, Y2
	VMOVUPS     mTanhP0<>(SB), Y3
	VFMADD213PS mTanhP1<>(SB), Y2, Y3
	VFMADD213PS mTanhP2<>(SB), Y2, Y3
	VFMADD213PS mTanhP3<>(SB), Y2, Y3
	VFMADD213PS mTanhP4<>(SB), Y2, Y3
	VMULPS      Y2, Y3, Y3
	VFMADD213PS Y1, Y1, Y3

	// Large |x|: 1 - 2/(e^{2a} + 1).
	VADDPS  Y1, Y1, Y4
	EXP(Y4, Y2, Y6, Y7)
	VADDPS  mOne<>(SB), Y4, Y4
	VMOVUPS mTwo<>(SB), Y2
	VDIVPS  Y4, Y2, Y4
	VMOVUPS mOne<>(SB), Y2
	VSUBPS  Y4, Y2, Y4

	VCMPPS    $1, mTanhCut<>(SB), Y1, Y2
	VBLENDVPS Y2, Y3, Y4, Y4
	VORPS     Y5, Y4, Y0
	VMOVUPS   Y0, (DI)(AX*4)
	ADDQ      $8, AX
	JMP       tanhloop

tanhdone:
	VZEROUPPER
	RET

// SIGMOID(X, Y, E, T1, T2, T3): E = e^{-|X|} and Y = the numerator of
// sigmoid(X) = Y / (1 + E): 1 for X >= 0, else E (so that large negative X
// keep their subnormal results); T registers are clobbered.
#define SIGMOID(X, Y, E, T1, T2, T3) \
	VANDPS    mAbs<>(SB), X, E; \
	VXORPS    mSign<>(SB), E, E; \
	EXP(E, T1, T2, T3); \
	VXORPS    T1, T1, T1; \
	VCMPPS    $13, T1, X, T1; \
	VBLENDVPS T1, mOne<>(SB), E, Y

// func sigmoidF32AVX2(o, a *float32, n int)
TEXT ·sigmoidF32AVX2(SB), NOSPLIT, $0-24
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

sigloop:
	CMPQ    AX, CX
	JGE     sigdone
	VMOVUPS (SI)(AX*4), Y0
	SIGMOID(Y0, Y1, Y2, Y3, Y4, Y5)
	VADDPS  mOne<>(SB), Y2, Y2
	VDIVPS  Y2, Y1, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     sigloop

sigdone:
	VZEROUPPER
	RET

// func siluF32AVX2(o, a *float32, n int)
// x sigmoid(x) as (x num) / (1 + e), one rounding fewer than the product.
TEXT ·siluF32AVX2(SB), NOSPLIT, $0-24
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

siluloop:
	CMPQ    AX, CX
	JGE     siludone
	VMOVUPS (SI)(AX*4), Y0
	SIGMOID(Y0, Y1, Y2, Y3, Y4, Y5)
	VADDPS  mOne<>(SB), Y2, Y2
	VMULPS  Y0, Y1, Y1
	VDIVPS  Y2, Y1, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     siluloop

siludone:
	VZEROUPPER
	RET

// func geluF32AVX2(o, a *float32, n int)
TEXT ·geluF32AVX2(SB), NOSPLIT, $0-24
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

geluloop:
	CMPQ    AX, CX
	JGE     geludone
	VMOVUPS (SI)(AX*4), Y0

	// a = min(|x|, 15) (NaN kept), z = a/√2, t = 2/(2+z).
	VANDPS  mAbs<>(SB), Y0, Y1
	VMOVUPS mGeluMax<>(SB), Y2
	VMINPS  Y1, Y2, Y1
	VMOVUPS     mTwo<>(SB), Y3
	VMOVAPS     Y3, Y2
	VFMADD231PS mSqrt1_2<>(SB), Y1, Y2
	VDIVPS      Y2, Y3, Y2

	// Y3 = P(t).
	VMOVUPS     mErfc9<>(SB), Y3
	VFMADD213PS mErfc8<>(SB), Y2, Y3
	VFMADD213PS mErfc7<>(SB), Y2, Y3
	VFMADD213PS mErfc6<>(SB), Y2, Y3
	VFMADD213PS mErfc5<>(SB), Y2, Y3
	VFMADD213PS mErfc4<>(SB), Y2, Y3
	VFMADD213PS mErfc3<>(SB), Y2, Y3
	VFMADD213PS mErfc2<>(SB), Y2, Y3
	VFMADD213PS mErfc1<>(SB), Y2, Y3
	VFMADD213PS mErfc0<>(SB), Y2, Y3

	// z² = (hi + lo)/2 exactly, hi = a*a; B = P(t) - lo/2, A = hi/2;
	// e^{B - A} with n = round((B - A) log2e) and the reduced argument
	// r = B - (A + n ln2hi) - n ln2lo, where A + n ln2hi is exact.
	VMULPS       Y1, Y1, Y4
	VMOVAPS      Y4, Y5
	VFMSUB231PS  Y1, Y1, Y5
	VMULPS       mHalf<>(SB), Y4, Y4
	VFNMADD231PS mHalf<>(SB), Y5, Y3
	VSUBPS       Y4, Y3, Y6
	VMULPS       mLog2e<>(SB), Y6, Y6
	VROUNDPS     $0, Y6, Y6
	VFMADD231PS  mLn2Hi<>(SB), Y6, Y4
	VSUBPS       Y4, Y3, Y3
	VFNMADD231PS mLn2Lo<>(SB), Y6, Y3
	EXPPOLY(Y3, Y6, Y4, Y5)

	// E = erfc(a/√2) = t e^{...}; Φ = E/2 for x < 0, else 1 - E/2.
	VMULPS    Y2, Y4, Y4
	VMULPS    mHalf<>(SB), Y4, Y4
	VMOVUPS   mOne<>(SB), Y5
	VSUBPS    Y4, Y5, Y5
	VXORPS    Y6, Y6, Y6
	VCMPPS    $1, Y6, Y0, Y6
	VBLENDVPS Y6, Y4, Y5, Y5
	VMULPS    Y5, Y0, Y0
	VMOVUPS   Y0, (DI)(AX*4)
	ADDQ      $8, AX
	JMP       geluloop

geludone:
	VZEROUPPER
	RET

// func sinCosF32AVX2(o, a *float32, n int, quadrant int32) int
// sin (quadrant 0) or cos (quadrant 1) of a[0:n]; stops before the first
// block of 8 holding an |x| > 8192 (or ±inf) and returns how many elements
// it wrote, for the caller to do that block another way.
TEXT ·sinCosF32AVX2(SB), NOSPLIT, $0-40
	MOVQ         o+0(FP), DI
	MOVQ         a+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS quadrant+24(FP), Y8
	XORQ         AX, AX

sinloop:
	CMPQ      AX, CX
	JGE       sindone
	VMOVUPS   (SI)(AX*4), Y0
	VANDPS    mAbs<>(SB), Y0, Y1
	VCMPPS    $14, mSinMax<>(SB), Y1, Y1
	VMOVMSKPS Y1, DX
	TESTL     DX, DX
	JNZ       sindone

	// j = round(x 2/π), r = x - j π/2.
	// (j through an int32 is +0 for x = -0, which keeps r = -0.)
	VMULPS       m2OverPi<>(SB), Y0, Y1
	VCVTPS2DQ    Y1, Y1
	VCVTDQ2PS    Y1, Y2
	VFNMADD231PS mPio2_1<>(SB), Y2, Y0
	VFNMADD231PS mPio2_2<>(SB), Y2, Y0
	VFNMADD231PS mPio2_3<>(SB), Y2, Y0
	VFNMADD231PS mPio2_4<>(SB), Y2, Y0
	VPADDD       Y8, Y1, Y1
	VMULPS       Y0, Y0, Y2

	// s = r + r³ S(r²), with the sign of r (which the sum loses for -0).
	VMOVUPS     mSinP0<>(SB), Y3
	VFMADD213PS mSinP1<>(SB), Y2, Y3
	VFMADD213PS mSinP2<>(SB), Y2, Y3
	VMULPS      Y2, Y3, Y3
	VFMADD213PS Y0, Y0, Y3
	VANDPS      mSign<>(SB), Y0, Y4
	VORPS       Y4, Y3, Y3

	// c = 1 - r²/2 + r⁴ C(r²)
	VMOVUPS      mCosP0<>(SB), Y4
	VFMADD213PS  mCosP1<>(SB), Y2, Y4
	VFMADD213PS  mCosP2<>(SB), Y2, Y4
	VMULPS       Y2, Y2, Y5
	VMULPS       Y5, Y4, Y4
	VFNMADD231PS mHalf<>(SB), Y2, Y4
	VADDPS       mOne<>(SB), Y4, Y4

	// Quadrant q = j (+1 for cos): q odd takes c, q & 2 negates.
	VPSLLD    $31, Y1, Y5
	VBLENDVPS Y5, Y4, Y3, Y3
	VPSRLD    $1, Y1, Y5
	VPSLLD    $31, Y5, Y5
	VXORPS    Y5, Y3, Y3
	VMOVUPS   Y3, (DI)(AX*4)
	ADDQ      $8, AX
	JMP       sinloop

sindone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
