//go:build ignore

// This program writes elementwise_math_amd64.s, the AVX2+FMA float32 math
// rows. Each kernel's body is written once over symbolic registers
// ({x}, {a}, {b}, ...); the generator gives every interleaved block of 8
// its own physical registers and emits the body instruction by
// instruction across the blocks, so that the long dependency chains of
// the polynomials overlap even within the out-of-order window of one
// loop iteration.
//
//	go run elementwise_math_gen.go
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"regexp"
	"strings"
)

// constant is a 32-byte table: value (an assembler immediate) in 8 lanes.
type constant struct{ name, value string }

// constants, with the comment that introduces each group.
var constants = []struct {
	doc  string
	list []constant
}{
	{"", []constant{
		{"mOne", "$1.0"}, {"mTwo", "$2.0"}, {"mHalf", "$0.5"},
		{"mAbs", "$0x7fffffff"}, {"mSign", "$0x80000000"},
		{"mInf", "$0x7f800000"}, {"mNegInf", "$0xff800000"}, {"mNaN", "$0x7fc00000"},
		{"mBias", "$127"},
	}},
	{`exp: x = n ln2 + r, |r| <= ln2/2, n = round(x log2e) from the low bits
of x log2e + 1.5 2^23; e^r = 1 + r + E2 r² + ... + E6 r⁶ (minimax on
|r| <= 0.361, 2.5e-9). The fast path (|x| < 87) adds n into the exponent
field; the general one clamps x to [-104, 89] and scales by 2^n as two
factors, which reaches the subnormals; both give the same results where
the fast one applies.`, []constant{
		{"mExpLo", "$-104.0"}, {"mExpHi", "$89.0"},
		{"mLog2e", "$0x3fb8aa3b"}, {"mLn2Hi", "$0x3f318000"}, {"mLn2Lo", "$0xb95e8083"},
	}},
	{"", []constant{
		{"mExpFastMax", "$87.0"}, {"mShifter", "$0x4b400000"},
		{"mE2", "$0x3efffffd"}, {"mE3", "$0x3e2aa9e9"}, {"mE4", "$0x3d2aac94"},
		{"mE5", "$0x3c0944ab"}, {"mE6", "$0x3ab54e72"},
	}},
	{`log: x = 2^e m, sqrt(1/2) <= m < sqrt(2); log(m) = f - f²/2 + f³ P(f)
with f = m - 1, P of degree 7 (minimax for the relative error of log(m),
6.4e-9 with these float32 coefficients), by Estrin's scheme.`, []constant{
		{"mMinNorm", "$0x00800000"}, {"mTwo23", "$8388608.0"}, {"m23", "$23.0"},
		{"mLogFastTop", "$0xfeffffff"},
		{"mSqrtHf", "$0x3f3504f3"},
		{"mLogP0", "$0x3eaaaaaa"}, {"mLogP1", "$0xbe800113"},
		{"mLogP2", "$0x3e4cd004"}, {"mLogP3", "$0xbe2a3925"},
		{"mLogP4", "$0x3e116d19"}, {"mLogP5", "$0xbe06c293"},
		{"mLogP6", "$0x3e02ad5f"}, {"mLogP7", "$0xbd9c5a2f"},
	}},
	{`tanh(|x|) = E / (E + 2), E = expm1(2|x|) = 2^n (r + r² M(r)) + 2^n - 1
with 2|x| = n ln2 + r (M minimax on |r| <= 0.361, relative error of
expm1(r) 1.7e-8); |x| clamped to 10 (where tanh rounds to 1); sign of x.`, []constant{
		{"mTanhMax", "$10.0"},
		{"mM0", "$0x3effffff"}, {"mM1", "$0x3e2aaa4a"}, {"mM2", "$0x3d2aab52"},
		{"mM3", "$0x3c091f15"}, {"mM4", "$0x3ab5f444"},
	}},
	{`gelu: x Φ(x) with Φ(x) = E for x < 0, else 1 - E, E = erfc(|x|/√2)/2
= e^{-x²/2} R(|x|). R = s N/D, N and D of degrees 3 and 4 in a = |x|
and monic, is a minimax fit of erfcx(a/√2)/2 on [0, 5] (relative error
3.4e-8); lanes with a > 5 take instead RW = s NW/DW of degrees 4 and 5
(DW monic, NW's leading coefficient about 1), fitted on [0, 14.3]
(5.8e-9). e^{-x²/2} = 2^n e^{v/2} with n = round(-h log2e/2) for h = x²
rounded, v = -(h + 2n ln2) - l, l = x² - h, where float32's ln2 is within
2.7e-9 of ln2 (relative), so that n ln2 needs no low part; s e^{v/2} =
P(v), P of degree 5 (minimax, relative error 1e-7 with these float32
coefficients), by Estrin's scheme, the scale s folded into P; with the
rationals' float32 coefficients, P R is within 1.3e-7 of e^{-x²/2}
erfcx(a/√2)/2 for a <= 5 and 1.4e-7 beyond. The fast path takes a <= 5
and leaves l out (a relative error of at most x² 2^-25, 7.5e-7); the
general one keeps it for the lanes with a > 5, and clamps a to 15, where
E has underflowed to 0.`, []constant{
		{"mGeluMax", "$15.0"}, {"mGeluFastMax", "$5.0"},
		{"mNegHalfLog2e", "$0xbf38aa3b"}, {"m2Ln2", "$0x3fb17218"},
		{"mGeluP0", "$0x3ecc158d"}, {"mGeluP1", "$0x3e4c1588"}, {"mGeluP2", "$0x3d4c1463"},
		{"mGeluP3", "$0x3c081045"}, {"mGeluP4", "$0x3a88deb0"}, {"mGeluP5", "$0x38d8c182"},
		{"mGeluN0", "$0x421b6cef"}, {"mGeluN1", "$0x41cbbcd8"}, {"mGeluN2", "$0x40faf394"},
		{"mGeluD0", "$0x41f7cfc7"}, {"mGeluD1", "$0x4234128f"}, {"mGeluD2", "$0x41d577f2"},
		{"mGeluD3", "$0x40fa0fbe"},
		{"mGeluWN0", "$0x42f40e04"}, {"mGeluWN1", "$0x42d5bc19"}, {"mGeluWN2", "$0x4232944f"},
		{"mGeluWN3", "$0x411e43e6"}, {"mGeluWN4", "$0x3f801c60"},
		{"mGeluWD0", "$0x42c28fb5"}, {"mGeluWD1", "$0x4322d05a"}, {"mGeluWD2", "$0x42e9b6bc"},
		{"mGeluWD3", "$0x42365e27"}, {"mGeluWD4", "$0x411e23f4"},
	}},
	{`sin and cos: x = j π/2 + r, |r| <= π/4, with π/2 in four positive parts
(the first two short enough that j times them is exact for |x| <= 8192;
all positive so that x = -0 keeps r = -0); sin(r) or cos(r) by quadrant.`, []constant{
		{"mSinMax", "$8192.0"}, {"m2OverPi", "$0x3f22f983"},
		{"mPio2_1", "$0x3fc90000"}, {"mPio2_2", "$0x39fda000"},
		{"mPio2_3", "$0x33a22168"}, {"mPio2_4", "$0x27c234c5"},
		{"mSinP0", "$-1.9515295891e-4"}, {"mSinP1", "$8.3321608736e-3"},
		{"mSinP2", "$-1.6666654611e-1"},
		{"mCosP0", "$2.443315711809948e-5"}, {"mCosP1", "$-1.388731625493765e-3"},
		{"mCosP2", "$4.166664568298827e-2"},
	}},
}

// expReduce splits X = n ln2 + r: A = X log2e + 1.5 2^23, which holds
// n = round(X log2e) in its low bits, B = n and X = r.
func expReduce(x, a, b string) string {
	return strings.NewReplacer("<X>", x, "<A>", a, "<B>", b).Replace(`
	VMOVUPS mShifter<>(SB), <A>
	VFMADD231PS mLog2e<>(SB), <X>, <A>
	VSUBPS mShifter<>(SB), <A>, <B>
	VFNMADD231PS mLn2Hi<>(SB), <B>, <X>
	VFNMADD231PS mLn2Lo<>(SB), <B>, <X>`)
}

// expPoly is P = e^R for a reduced R.
func expPoly(r, p string) string {
	return strings.NewReplacer("<R>", r, "<P>", p).Replace(`
	VMOVUPS mE6<>(SB), <P>
	VFMADD213PS mE5<>(SB), <R>, <P>
	VFMADD213PS mE4<>(SB), <R>, <P>
	VFMADD213PS mE3<>(SB), <R>, <P>
	VFMADD213PS mE2<>(SB), <R>, <P>
	VFMADD213PS mOne<>(SB), <R>, <P>
	VFMADD213PS mOne<>(SB), <R>, <P>`)
}

// scaleFast is X = P 2^n for A from expReduce, when the result is normal.
func scaleFast(x, p, a string) string {
	return strings.NewReplacer("<X>", x, "<P>", p, "<A>", a).Replace(`
	VPSLLD $23, <A>, <A>
	VPADDD <A>, <P>, <X>`)
}

// scale is X = P 2^N for N holding integral floats in [-190, 128], as two
// factors, so that results down to the subnormals are scaled without
// overflowing an exponent field; N and T are clobbered. For normal
// results it equals scaleFast's.
func scale(x, p, n, t string) string {
	return strings.NewReplacer("<X>", x, "<P>", p, "<N>", n, "<T>", t).Replace(`
	VCVTPS2DQ <N>, <N>
	VPSRAD $1, <N>, <T>
	VPSUBD <T>, <N>, <N>
	VPADDD mBias<>(SB), <T>, <T>
	VPADDD mBias<>(SB), <N>, <N>
	VPSLLD $23, <T>, <T>
	VPSLLD $23, <N>, <N>
	VMULPS <T>, <P>, <P>
	VMULPS <N>, <P>, <X>`)
}

// exp is X = e^X with temporaries A, B, C; NaN stays NaN (the clamps
// keep X when it is NaN, and the polynomial carries it).
func exp(x, a, b, c string) string {
	return strings.NewReplacer("<X>", x, "<A>", a).Replace(`
	VMOVUPS mExpLo<>(SB), <A>
	VMAXPS <X>, <A>, <X>
	VMOVUPS mExpHi<>(SB), <A>
	VMINPS <X>, <A>, <X>`) + expReduce(x, a, b) + expPoly(x, a) + scale(x, a, b, c)
}

// expFast is X = e^X for |X| < 87 (the fast path's guard), NaN staying
// NaN; A and B are clobbered. It gives exp's results.
func expFast(x, a, b string) string {
	return expReduce(x, a, b) + expPoly(x, b) + scaleFast(x, b, a)
}

// expGuard sets G to the lanes of X outside the fast path of exp(±|X|)
// (|X| >= lim, or NaN).
func expGuard(x, g, lim string) string {
	return strings.NewReplacer("<X>", x, "<G>", g, "<L>", lim).Replace(`
	VANDPS mAbs<>(SB), <X>, <G>
	VCMPPS $5, <L><>(SB), <G>, <G>`)
}

// sigmoidParts sets E = e^{-|X|} and Y = the numerator of
// sigmoid(X) = Y / (1 + E): 1 for X >= 0, else E (so that large negative
// X keep their subnormal results).
func sigmoidParts(x, y, e, a, b, c string, fast bool) string {
	ex := exp(e, a, b, c)
	if fast {
		ex = expFast(e, a, b)
	}
	return strings.NewReplacer("<X>", x, "<Y>", y, "<E>", e, "<A>", a).Replace(`
	VANDPS mAbs<>(SB), <X>, <E>
	VXORPS mSign<>(SB), <E>, <E>`) + ex + strings.NewReplacer("<X>", x, "<Y>", y, "<E>", e, "<A>", a).Replace(`
	VXORPS <A>, <A>, <A>
	VCMPPS $13, <A>, <X>, <A>
	VBLENDVPS <A>, mOne<>(SB), <E>, <Y>`)
}

// kernel is one row function: func name(o, a *float32, n int).
type kernel struct {
	name, doc string
	// regs are the body's symbolic registers; {x} holds the input and
	// then the result ({in} is the input's memory operand).
	regs []string
	// ways is how many blocks of 8 one loop iteration interleaves. Each
	// way takes registers that could hold constants instead: by cycles
	// per block in cache (perf stat, BenchmarkMathRows), exp, sigmoid and
	// silu gain more from held constants (one way), log, tanh, sin and cos
	// from overlapping their long dependency chains (two).
	ways int
	// consts are constants held in the top registers for the whole row
	// (loaded once before the loop): every use of one in guard, fast and
	// body reads the register. Were they read from memory, nearly every
	// operation would issue a 32-byte load, and the load ports (two such
	// loads a cycle) would bound the row.
	consts []string
	// setup runs once before the loop, on Y15 only (the ways and the
	// held constants take the registers below it).
	setup string
	// body computes {x} for every input; fast, if set, does it for the
	// blocks whose lanes guard leaves clear.
	body, fast string
	// guard, if set, computes a mask per block into {guardReg} ("g" if
	// empty). With fast set, an iteration where some lane is set runs
	// body instead; without, the row stops before that block and the
	// function returns how many elements it wrote.
	guard, guardReg string
	// stream emits an NT twin too (name+"NT"), whose stores bypass the
	// caches, for long rows: worth it where the kernel runs faster than
	// memory (sqrt); the compute-bound ones measured no faster with it.
	stream   bool
	sig      string // the Go declaration, for the comment
	frame    string
	epilogue string
}

var kernels = []kernel{
	{
		name: "expF32AVX2", ways: 1,
		regs:   []string{"x", "a", "b", "c"},
		consts: []string{"mShifter", "mOne", "mLog2e", "mLn2Hi", "mLn2Lo", "mE2", "mE3", "mE4", "mE5", "mE6", "mAbs", "mExpFastMax"},
		guard:  expGuard("{x}", "{a}", "mExpFastMax"), guardReg: "a",
		fast: expFast("{x}", "{a}", "{b}"),
		body: exp("{x}", "{a}", "{b}", "{c}"),
	},
	{
		name: "logF32AVX2", ways: 2,
		regs:   []string{"x", "a", "b", "c", "d", "g"},
		consts: logHeld,
		// Normal finite x of either sign take the fast path: the bits of
		// |x| plus those of inf, as an int32, are at most 0xfeffffff just
		// for 2^-126 <= |x| < inf.
		// Negative x (split as if the sign bit were the exponent's) give
		// NaN by the sign of the input, loaded again.
		guard: `
	VANDPS mAbs<>(SB), {x}, {b}
	VPADDD mInf<>(SB), {b}, {b}
	VPCMPGTD mLogFastTop<>(SB), {b}, {a}`, guardReg: "a",
		fast: logSplit + logPoly + `
	VMOVUPS {in}, {b}
	VBLENDVPS {b}, mNaN<>(SB), {x}, {x}`,
		body: `
	// Subnormals are scaled by 2^23 first (their exponent then less 23).
	VCMPPS $1, mMinNorm<>(SB), {x}, {a}
	VMULPS mTwo23<>(SB), {x}, {b}
	VBLENDVPS {a}, {b}, {x}, {x}
	VANDPS m23<>(SB), {a}, {a}` + logSplit + `
	VSUBPS {a}, {b}, {b}` + logPoly + `
	// +inf stays +inf, ±0 gives -inf, x < 0 and NaN give NaN.
	VMOVUPS {in}, {d}
	VCMPPS $0, mInf<>(SB), {d}, {a}
	VBLENDVPS {a}, {d}, {x}, {x}
	VXORPS {c}, {c}, {c}
	VCMPPS $0, {c}, {d}, {a}
	VBLENDVPS {a}, mNegInf<>(SB), {x}, {x}
	VCMPPS $9, {c}, {d}, {a}
	VBLENDVPS {a}, mNaN<>(SB), {x}, {x}`,
	},
	{
		name: "sqrtF32AVX2", ways: 4, stream: true,
		doc:  "Correctly rounded, as float32(math.Sqrt(x)).",
		regs: []string{"x"},
		body: `
	VSQRTPS {x}, {x}`,
	},
	{
		name: "rsqrtF32AVX2", ways: 4,
		doc: `1 / sqrt(x) with a true square root and division (as torch's vectorised
rsqrt; not the 12-bit VRSQRTPS estimate).`,
		regs:  []string{"x"},
		setup: "VMOVUPS mOne<>(SB), Y15",
		body: `
	VSQRTPS {x}, {x}
	VDIVPS {x}, Y15, {x}`,
	},
	{
		name: "tanhF32AVX2", ways: 2,
		regs: []string{"x", "e", "u", "s", "n", "q"},
		body: `
	VANDPS mSign<>(SB), {x}, {e}
	VANDPS mAbs<>(SB), {x}, {u}
	VMOVUPS mTanhMax<>(SB), {s}
	VMINPS {u}, {s}, {u}
	VADDPS {u}, {u}, {u}` + expReduce("{u}", "{s}", "{n}") + `
	// p = expm1(r) = r + r² M(r)
	VMOVUPS mM4<>(SB), {q}
	VFMADD213PS mM3<>(SB), {u}, {q}
	VFMADD213PS mM2<>(SB), {u}, {q}
	VFMADD213PS mM1<>(SB), {u}, {q}
	VFMADD213PS mM0<>(SB), {u}, {q}
	VMULPS {u}, {u}, {n}
	VFMADD213PS {u}, {n}, {q}
	// E = 2^n p + (2^n - 1); tanh = E / (E + 2).
	VPSLLD $23, {s}, {s}
	VPADDD mOne<>(SB), {s}, {s}
	VSUBPS mOne<>(SB), {s}, {n}
	VFMADD213PS {n}, {s}, {q}
	VADDPS mTwo<>(SB), {q}, {s}
	VDIVPS {s}, {q}, {q}
	VORPS {e}, {q}, {x}`,
	},
	{
		name: "sigmoidF32AVX2", ways: 1,
		regs:   []string{"x", "y", "e", "a", "b", "c"},
		consts: expHeld,
		guard:  expGuard("{x}", "{a}", "mExpFastMax"), guardReg: "a",
		fast: sigmoidParts("{x}", "{y}", "{e}", "{a}", "{b}", "{c}", true) + sigmoidEnd,
		body: sigmoidParts("{x}", "{y}", "{e}", "{a}", "{b}", "{c}", false) + sigmoidEnd,
	},
	{
		name: "siluF32AVX2", ways: 1,
		doc:    "x sigmoid(x) as (x num) / (1 + e), one rounding fewer than the product.",
		regs:   []string{"x", "y", "e", "a", "b", "c"},
		consts: expHeld,
		guard:  expGuard("{x}", "{a}", "mExpFastMax"), guardReg: "a",
		fast: sigmoidParts("{x}", "{y}", "{e}", "{a}", "{b}", "{c}", true) + siluEnd,
		body: sigmoidParts("{x}", "{y}", "{e}", "{a}", "{b}", "{c}", false) + siluEnd,
	},
	{
		name: "geluF32AVX2", ways: 1,
		regs:   []string{"x", "a", "b", "c", "d", "e", "k", "n", "f"},
		consts: geluHeld,
		// a = |x|; lanes with a > 5 (or NaN: compared as integers) take
		// the general body.
		guard: `
	VANDPS mAbs<>(SB), {x}, {a}
	VPCMPGTD mGeluFastMax<>(SB), {a}, {k}`, guardReg: "k",
		fast: geluExp("{x}", false) + geluRational + `
	// gelu = z - ((w 2^n) R) P, w = |x|, 2^n added to w's exponent (n =
	// 0 for |x| < 0.83, so w 2^n is exact wherever the fast path
	// applies); R multiplies w while P is computed.
	VPSLLD $23, {k}, {k}
	VPADDD {a}, {k}, {b}
	VMULPS {e}, {b}, {b}` + geluTail,
		body: `
	VMOVUPS mGeluMax<>(SB), {c}
	VMINPS {a}, {c}, {a}` + geluExp("{a}", true) + geluRational + geluRationalWide + `
	// R = NW/DW where a > 5 (as the guard compares), else N/D; R 2^n as
	// two factors, which underflows to 0 for large a.
	VPCMPGTD mGeluFastMax<>(SB), {a}, {d}
	VBLENDVPS {d}, {f}, {e}, {e}
	VSUBPS mShifter<>(SB), {k}, {n}` + scale("{e}", "{e}", "{n}", "{k}") + `
	// w = |x| for x < 0 (-inf gives NaN, as inf 0), else min(x, 15) (+inf
	// gives +inf); |x| wherever the fast path applies. w (R 2^n) is the
	// fast path's (w 2^n) R wherever it applies (both exact scalings of w R).
	VANDPS mAbs<>(SB), {x}, {b}
	VMOVUPS mGeluMax<>(SB), {d}
	VMINPS {b}, {d}, {d}
	VBLENDVPS {x}, {b}, {d}, {b}
	VMULPS {e}, {b}, {b}` + geluTail,
	},
	{
		name: "sinCosF32AVX2", ways: 2,
		sig: "func sinCosF32AVX2(o, a *float32, n int, quadrant int32) int",
		doc: `sin (quadrant 0) or cos (quadrant 1) of a[0:n]; stops before the first
block of 8 holding an |x| > 8192 (or ±inf) and returns how many elements
it wrote, for the caller to do that block another way.`,
		frame:    "$0-40",
		setup:    "VBROADCASTSS quadrant+24(FP), Y15",
		epilogue: "MOVQ AX, ret+32(FP)",
		regs:     []string{"x", "j", "r", "s", "c", "g"},
		guard: `
	VANDPS mAbs<>(SB), {x}, {g}
	VCMPPS $14, mSinMax<>(SB), {g}, {g}`,
		body: `
	// j = round(x 2/π), r = x - j π/2 (j through an int32 is +0 for
	// x = -0, which keeps r = -0).
	VMULPS m2OverPi<>(SB), {x}, {j}
	VCVTPS2DQ {j}, {j}
	VCVTDQ2PS {j}, {r}
	VFNMADD231PS mPio2_1<>(SB), {r}, {x}
	VFNMADD231PS mPio2_2<>(SB), {r}, {x}
	VFNMADD231PS mPio2_3<>(SB), {r}, {x}
	VFNMADD231PS mPio2_4<>(SB), {r}, {x}
	VPADDD Y15, {j}, {j}
	VMULPS {x}, {x}, {r}
	// s = r + r³ S(r²), with the sign of r (which the sum loses for -0).
	VMOVUPS mSinP0<>(SB), {s}
	VFMADD213PS mSinP1<>(SB), {r}, {s}
	VFMADD213PS mSinP2<>(SB), {r}, {s}
	VMULPS {r}, {s}, {s}
	VFMADD213PS {x}, {x}, {s}
	VANDPS mSign<>(SB), {x}, {c}
	VORPS {c}, {s}, {s}
	// c = 1 - r²/2 + r⁴ C(r²)
	VMOVUPS mCosP0<>(SB), {c}
	VFMADD213PS mCosP1<>(SB), {r}, {c}
	VFMADD213PS mCosP2<>(SB), {r}, {c}
	VMULPS {r}, {r}, {g}
	VMULPS {g}, {c}, {c}
	VFNMADD231PS mHalf<>(SB), {r}, {c}
	VADDPS mOne<>(SB), {c}, {c}
	// Quadrant q = j (+1 for cos): q odd takes c, q & 2 negates.
	VPSLLD $31, {j}, {g}
	VBLENDVPS {g}, {c}, {s}, {s}
	VPSRLD $1, {j}, {g}
	VPSLLD $31, {g}, {g}
	VXORPS {g}, {s}, {x}`,
	},
}

// logSplit writes a positive normal {x} as 2^e m, sqrt(1/2) <= m <
// sqrt(2), on the bits: k = (bits - bits(sqrt(1/2))) >> 23 is e, and bits
// - k<<23 are m's. It leaves e in {b} and f = m - 1 (exact) in {x}.
const logSplit = `
	VPSUBD mSqrtHf<>(SB), {x}, {c}
	VPSRAD $23, {c}, {b}
	VPSLLD $23, {b}, {c}
	VPSUBD {c}, {x}, {x}
	VCVTDQ2PS {b}, {b}
	VSUBPS mOne<>(SB), {x}, {x}`

// logHeld are the constants log keeps in registers.
var logHeld = []string{"mLogP1", "mLogP3", "mLogP5", "mLogP7"}

// logPoly is log = f + (f³ P(f) + (e ln2lo - f²/2)) + e ln2hi from
// logSplit's f in {x} and e in {b}.
const logPoly = `
	// P = (P0 + P1 f) + f² (P2 + P3 f) + f⁴ ((P4 + P5 f) + f² (P6 + P7 f))
	VMULPS {x}, {x}, {c}
	VMOVUPS mLogP1<>(SB), {a}
	VFMADD213PS mLogP0<>(SB), {x}, {a}
	VMOVUPS mLogP3<>(SB), {d}
	VFMADD213PS mLogP2<>(SB), {x}, {d}
	VFMADD231PS {d}, {c}, {a}
	VMOVUPS mLogP5<>(SB), {d}
	VFMADD213PS mLogP4<>(SB), {x}, {d}
	VMOVUPS mLogP7<>(SB), {g}
	VFMADD213PS mLogP6<>(SB), {x}, {g}
	VFMADD231PS {g}, {c}, {d}
	VMULPS {c}, {c}, {g}
	VFMADD231PS {d}, {g}, {a}
	// t = e ln2lo - f²/2 beside P; f + (f³ P + t)
	VMULPS mLn2Lo<>(SB), {b}, {d}
	VFNMADD231PS mHalf<>(SB), {c}, {d}
	VMULPS {x}, {c}, {g}
	VFMADD213PS {d}, {g}, {a}
	VADDPS {a}, {x}, {x}
	VFMADD231PS mLn2Hi<>(SB), {b}, {x}`

// expHeld are the constants of exp's fast path that a row with six
// registers a block keeps in registers.
var expHeld = []string{"mShifter", "mOne", "mLog2e", "mLn2Hi", "mLn2Lo", "mE2", "mE3", "mE4", "mE5", "mE6"}

// sigmoidEnd and siluEnd finish sigmoid and silu from sigmoidParts.
const (
	sigmoidEnd = `
	VADDPS mOne<>(SB), {e}, {e}
	VDIVPS {e}, {y}, {x}`
	siluEnd = `
	VADDPS mOne<>(SB), {e}, {e}
	VMULPS {x}, {y}, {y}
	VDIVPS {e}, {y}, {x}`
)

// geluHeld are the constants gelu keeps in registers.
var geluHeld = []string{"mShifter", "mGeluP5", "mGeluP3", "mGeluP1", "mGeluN1", "mGeluD3", "mGeluD1"}

// held rewrites code's uses of the constants names, loads and memory
// operands alike, into the registers that hold them.
func held(names []string, code string) string {
	for _, c := range names {
		code = strings.ReplaceAll(code, "VMOVUPS "+c+"<>(SB),", "VMOVAPS {="+c+"},")
		code = regexp.MustCompile(`\b`+c+`<>\(SB\)`).ReplaceAllString(code, "{="+c+"}")
	}
	return code
}

// geluExp computes s e^{v/2} = P(v) into {c} from a or x in X (the
// square's source), leaving h = a² in {b} and n in the low bits of {k}:
// v = -(h + 2n ln2) (one rounding: n 2ln2 and h are exact within the FMA,
// and |v| <= ln2), P by Estrin's scheme; {d}, {e} and {n} are clobbered.
// The rounding of h is made good, v = -(h + 2n ln2) - l with l = a² - h,
// only where exact is set and there only in lanes with a > 5 (as the
// guard compares), so that the fast path's lanes get its results.
func geluExp(x string, exact bool) string {
	l, sub := "", ""
	if exact {
		l = `
	VMOVAPS {b}, {c}
	VFMSUB231PS <X>, <X>, {c}
	VPCMPGTD mGeluFastMax<>(SB), {a}, {d}
	VANDPS {d}, {c}, {c}`
		sub = `
	VSUBPS {c}, {n}, {n}`
	}
	return strings.ReplaceAll(`
	VMULPS <X>, <X>, {b}`+l+`
	VMOVUPS mShifter<>(SB), {k}
	VFMADD231PS mNegHalfLog2e<>(SB), {b}, {k}
	VSUBPS mShifter<>(SB), {k}, {n}
	VFNMSUB132PS m2Ln2<>(SB), {b}, {n}`+sub+`
	// P = (P0 + P1 v) + v² ((P2 + P3 v) + v² (P4 + P5 v))
	VMULPS {n}, {n}, {e}
	VMOVUPS mGeluP5<>(SB), {c}
	VFMADD213PS mGeluP4<>(SB), {n}, {c}
	VMOVUPS mGeluP3<>(SB), {d}
	VFMADD213PS mGeluP2<>(SB), {n}, {d}
	VFMADD213PS {d}, {e}, {c}
	VMOVUPS mGeluP1<>(SB), {d}
	VFMADD213PS mGeluP0<>(SB), {n}, {d}
	VFMADD213PS {d}, {e}, {c}`, "<X>", x)
}

// geluRational is N/D into {e} from a in {a} and h = a² in {b}, by
// Estrin's scheme with their monic leading terms added; {d} and {n} are
// clobbered.
const geluRational = `
	// N = (N0 + N1 a) + h (N2 + a)
	VMOVUPS mGeluN1<>(SB), {d}
	VFMADD213PS mGeluN0<>(SB), {a}, {d}
	VADDPS mGeluN2<>(SB), {a}, {e}
	VFMADD213PS {d}, {b}, {e}
	// D = (D0 + D1 a) + h ((D2 + D3 a) + h)
	VMOVUPS mGeluD3<>(SB), {n}
	VFMADD213PS mGeluD2<>(SB), {a}, {n}
	VADDPS {b}, {n}, {n}
	VMOVUPS mGeluD1<>(SB), {d}
	VFMADD213PS mGeluD0<>(SB), {a}, {d}
	VFMADD213PS {d}, {b}, {n}
	VDIVPS {n}, {e}, {e}`

// geluRationalWide is NW/DW into {f} from a in {a} and h = a² in {b};
// {d} and {n} are clobbered.
const geluRationalWide = `
	// NW = (NW0 + NW1 a) + h ((NW2 + NW3 a) + h NW4)
	VMOVUPS mGeluWN1<>(SB), {d}
	VFMADD213PS mGeluWN0<>(SB), {a}, {d}
	VMOVUPS mGeluWN3<>(SB), {f}
	VFMADD213PS mGeluWN2<>(SB), {a}, {f}
	VFMADD231PS mGeluWN4<>(SB), {b}, {f}
	VFMADD213PS {d}, {b}, {f}
	// DW = (DW0 + DW1 a) + h ((DW2 + DW3 a) + h (DW4 + a))
	VADDPS mGeluWD4<>(SB), {a}, {d}
	VMOVUPS mGeluWD3<>(SB), {n}
	VFMADD213PS mGeluWD2<>(SB), {a}, {n}
	VFMADD231PS {d}, {b}, {n}
	VMOVUPS mGeluWD1<>(SB), {d}
	VFMADD213PS mGeluWD0<>(SB), {a}, {d}
	VFMADD213PS {d}, {b}, {n}
	VDIVPS {n}, {f}, {f}`

// geluTail finishes from W = w 2^n R in {b} and P in {c}: gelu = x Φ =
// z - W P, z = x for x >= 0, else -0 (x = -0 included): the unsigned
// minimum of the bits of x and of -0.
const geluTail = `
	VPMINUD mSign<>(SB), {x}, {x}
	VFNMADD231PS {c}, {b}, {x}`

// constBase is the register of k's first held constant: they take the
// top registers, below Y15 where setup has that.
func constBase(k kernel) int {
	if k.setup != "" {
		return 15 - len(k.consts)
	}
	return 16 - len(k.consts)
}

// phys maps way w's symbolic registers to Y registers: way w takes the
// block of len(regs) registers after way w-1's.
func phys(k kernel, w int) *strings.Replacer {
	var pairs []string
	for i, r := range k.regs {
		pairs = append(pairs, "{"+r+"}", fmt.Sprintf("Y%d", w*len(k.regs)+i))
	}
	for i, c := range k.consts {
		pairs = append(pairs, "{="+c+"}", fmt.Sprintf("Y%d", constBase(k)+i))
	}
	pairs = append(pairs, "{in}", fmt.Sprintf("%d(SI)(AX*4)", 32*w))
	return strings.NewReplacer(pairs...)
}

// interleave emits body once per way, instruction by instruction, with
// k's held constants read from their registers; comments come once.
func interleave(b *bytes.Buffer, k kernel, body string, ways int) {
	maps := make([]*strings.Replacer, ways)
	for w := range maps {
		maps[w] = phys(k, w)
	}
	for _, line := range strings.Split(strings.TrimSpace(held(k.consts, body)), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "//") {
			fmt.Fprintf(b, "\t%s\n", line)
			continue
		}
		for _, m := range maps {
			fmt.Fprintf(b, "\t%s\n", m.Replace(line))
		}
	}
}

// emit writes kernel k; with stream set, as k.name+"NT", whose stores are
// non-temporal (VMOVNTPS: o must be 32-byte aligned), fenced before it
// returns.
func emit(b *bytes.Buffer, k kernel, stream bool) {
	ways := k.ways
	if n := ways*len(k.regs) + len(k.consts); n > 16 || k.setup != "" && n > 15 {
		log.Fatalf("%s: %d ways of %d registers do not fit", k.name, ways, len(k.regs))
	}
	name, store := k.name, "VMOVUPS"
	lbl := strings.TrimSuffix(k.name, "F32AVX2")
	if stream {
		name, store, lbl = k.name+"NT", "VMOVNTPS", lbl+"nt"
	}
	sig := k.sig
	if sig == "" {
		sig = "func " + k.name + "(o, a *float32, n int)"
	}
	sig = strings.Replace(sig, k.name, name, 1)
	frame := k.frame
	if frame == "" {
		frame = "$0-24"
	}
	gr := "{" + k.guardReg + "}"
	if k.guardReg == "" {
		gr = "{g}"
	}
	fmt.Fprintf(b, "\n// %s\n", sig)
	if stream {
		fmt.Fprintf(b, "// %s with non-temporal stores; o must be 32-byte aligned.\n", k.name)
	} else if k.doc != "" {
		for _, l := range strings.Split(k.doc, "\n") {
			fmt.Fprintf(b, "// %s\n", l)
		}
	}
	fmt.Fprintf(b, "TEXT ·%s(SB), NOSPLIT, %s\n", name, frame)
	fmt.Fprintf(b, "\tMOVQ o+0(FP), DI\n\tMOVQ a+8(FP), SI\n\tMOVQ n+16(FP), CX\n\tXORQ AX, AX\n")
	if k.setup != "" {
		fmt.Fprintf(b, "\t%s\n", k.setup)
	}
	for i, c := range k.consts {
		fmt.Fprintf(b, "\tVMOVUPS %s<>(SB), Y%d\n", c, constBase(k)+i)
	}
	x := func(w int) string { return phys(k, w).Replace("{x}") }

	// blocks emits the loop over w blocks per iteration at label l,
	// falling to next when fewer than w blocks are left.
	blocks := func(l, next string, w int) {
		fmt.Fprintf(b, "\n%s:\n", l)
		fmt.Fprintf(b, "\tLEAQ %d(AX), DX\n\tCMPQ DX, CX\n\tJGT %s\n", 8*w, next)
		for i := range w {
			fmt.Fprintf(b, "\tVMOVUPS %d(SI)(AX*4), %s\n", 32*i, x(i))
		}
		body := k.body
		if k.guard != "" {
			interleave(b, k, k.guard, w)
			g0 := phys(k, 0).Replace(gr)
			for i := 1; i < w; i++ {
				fmt.Fprintf(b, "\tVORPS %s, %s, %s\n", phys(k, i).Replace(gr), g0, g0)
			}
			fmt.Fprintf(b, "\tVMOVMSKPS %s, DX\n\tTESTL DX, DX\n", g0)
			if k.fast == "" {
				fmt.Fprintf(b, "\tJNZ %s\n", next)
			} else {
				// Guarded lanes take the general body.
				fmt.Fprintf(b, "\tJNZ %sslow\n", l)
				interleave(b, k, k.fast, w)
				for i := range w {
					fmt.Fprintf(b, "\t%s %s, %d(DI)(AX*4)\n", store, x(i), 32*i)
				}
				fmt.Fprintf(b, "\tADDQ $%d, AX\n\tJMP %s\n", 8*w, l)
				fmt.Fprintf(b, "\n%sslow:\n", l)
			}
		}
		interleave(b, k, body, w)
		for i := range w {
			fmt.Fprintf(b, "\t%s %s, %d(DI)(AX*4)\n", store, x(i), 32*i)
		}
		fmt.Fprintf(b, "\tADDQ $%d, AX\n\tJMP %s\n", 8*w, l)
	}
	if ways > 1 {
		blocks(lbl+"loop", lbl+"tail", ways)
	}
	blocks(lbl+"tail", lbl+"done", 1)
	fmt.Fprintf(b, "\n%sdone:\n", lbl)
	if k.epilogue != "" {
		fmt.Fprintf(b, "\t%s\n", k.epilogue)
	}
	if stream {
		fmt.Fprintf(b, "\tSFENCE\n")
	}
	fmt.Fprintf(b, "\tVZEROUPPER\n\tRET\n")
}

const header = `// Code generated by elementwise_math_gen.go; DO NOT EDIT.

//go:build amd64 && !purego

#include "textflag.h"

// AVX2+FMA float32 math over rows: exp, log, sqrt, rsqrt, tanh, sigmoid,
// silu, gelu, sin and cos. Every function handles n elements, n a
// multiple of 8 (the Go callers pass tails through a padded block), and
// loads each block before storing it, so o may alias a. sqrt has an NT
// twin for long rows, whose stores bypass the caches (no read for
// ownership of the output's lines). The polynomials
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
`

func main() {
	var b bytes.Buffer
	b.WriteString(header)
	for _, g := range constants {
		b.WriteString("\n")
		if g.doc != "" {
			for _, l := range strings.Split(g.doc, "\n") {
				fmt.Fprintf(&b, "// %s\n", l)
			}
		}
		for _, c := range g.list {
			fmt.Fprintf(&b, "C8(%s, %s)\n", c.name, c.value)
		}
	}
	for _, k := range kernels {
		emit(&b, k, false)
		if k.stream {
			emit(&b, k, true)
		}
	}
	if err := os.WriteFile("elementwise_math_amd64.s", b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
