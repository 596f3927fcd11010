//go:build amd64 && !purego

package cpu

import (
	"math"

	"golang.org/x/sys/cpu"
)

//go:generate go run elementwise_math_gen.go

// AVX2+FMA rows of the float32 math ops (elementwise_math_amd64.s, written
// by elementwise_math_gen.go). The scalar rows compute in float64 through
// package math, about 10 ns an element; these take 2 to 6 ns per block of
// 8 elements (BenchmarkMathRows).

// simdMath is whether the vectorised math rows can run.
var simdMath = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func expF32AVX2(o, a *float32, n int)

//go:noescape
func logF32AVX2(o, a *float32, n int)

//go:noescape
func sqrtF32AVX2(o, a *float32, n int)

//go:noescape
func rsqrtF32AVX2(o, a *float32, n int)

//go:noescape
func tanhF32AVX2(o, a *float32, n int)

//go:noescape
func sigmoidF32AVX2(o, a *float32, n int)

//go:noescape
func siluF32AVX2(o, a *float32, n int)

//go:noescape
func geluF32AVX2(o, a *float32, n int)

//go:noescape
func sinCosF32AVX2(o, a *float32, n int, quadrant int32) int

// sqrtF32AVX2NT is sqrtF32AVX2 with non-temporal stores (VMOVNTPS, o
// 32-byte aligned), fenced before it returns.
//
//go:noescape
func sqrtF32AVX2NT(o, a *float32, n int)

// mathOp names one vectorised math row. The rows call the assembly
// through a switch, not a function value, so that the padded tail block
// stays on the stack.
type mathOp int

const (
	mathExp mathOp = iota
	mathLog
	mathSqrt
	mathRsqrt
	mathTanh
	mathSigmoid
	mathSilu
	mathGelu
	mathSin
	mathCos
)

var mathOps = map[string]mathOp{
	"exp": mathExp, "log": mathLog, "sqrt": mathSqrt, "rsqrt": mathRsqrt,
	"tanh": mathTanh, "sigmoid": mathSigmoid, "silu": mathSilu, "gelu": mathGelu,
	"sin": mathSin, "cos": mathCos,
}

// simdFloatUnaryF32 returns the vectorised row of a float32 math op, or
// nil when there is none (or the CPU lacks AVX2 and FMA).
func simdFloatUnaryF32(name string) func(o, a []float32) {
	op, ok := mathOps[name]
	if !simdMath || !ok {
		return nil
	}
	return func(o, a []float32) { mathRow(op, o, a) }
}

// mathRow computes op over a into o: whole blocks of 8 in place, then the
// tail through a zero-padded block, so that an element's result does not
// depend on where it sits. sqrt's long rows store non-temporally
// (streamBlocks).
func mathRow(op mathOp, o, a []float32) {
	a = a[:len(o)]
	m := len(o) &^ 7
	if op == mathSqrt {
		unaryBlocks(o, a, m, sqrtBlocks)
	} else if m > 0 {
		mathBlocks(op, o[:m], a[:m])
	}
	if m < len(o) {
		mathPadded(op, o[m:], a[m:])
	}
}

// sqrtBlocks is sqrtF32AVX2, or its NT twin where stream is set.
func sqrtBlocks(o, a *float32, n int, stream bool) {
	if stream {
		sqrtF32AVX2NT(o, a, n)
	} else {
		sqrtF32AVX2(o, a, n)
	}
}

// mathPadded computes op over up to 8 elements through a zero-padded
// block.
func mathPadded(op mathOp, o, a []float32) {
	var blk [8]float32
	copy(blk[:], a[:len(o)])
	mathBlocks(op, blk[:], blk[:])
	copy(o, blk[:])
}

// mathBlocks runs op's assembly over len(o) elements, a multiple of 8.
func mathBlocks(op mathOp, o, a []float32) {
	po, pa, n := &o[0], &a[0], len(o)
	switch op {
	case mathExp:
		expF32AVX2(po, pa, n)
	case mathLog:
		logF32AVX2(po, pa, n)
	case mathSqrt:
		sqrtF32AVX2(po, pa, n)
	case mathRsqrt:
		rsqrtF32AVX2(po, pa, n)
	case mathTanh:
		tanhF32AVX2(po, pa, n)
	case mathSigmoid:
		sigmoidF32AVX2(po, pa, n)
	case mathSilu:
		siluF32AVX2(po, pa, n)
	case mathGelu:
		geluF32AVX2(po, pa, n)
	case mathSin:
		sinCosBlocks(o, a, 0)
	case mathCos:
		sinCosBlocks(o, a, 1)
	}
}

// sinCosBlocks is sin (quadrant 0) or cos (1) over whole blocks of 8. A
// block holding an |x| beyond the vector range reduction's (8192, or
// ±inf) is computed with package math.
func sinCosBlocks(o, a []float32, quadrant int32) {
	n := len(o)
	for i := 0; i < n; {
		i += sinCosF32AVX2(&o[i], &a[i], n-i, quadrant)
		if i == n {
			break
		}
		for j := i; j < i+8; j++ {
			x := float64(a[j])
			if quadrant == 0 {
				o[j] = float32(math.Sin(x))
			} else {
				o[j] = float32(math.Cos(x))
			}
		}
		i += 8
	}
}
