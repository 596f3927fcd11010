//go:build amd64 && !purego

package cpu

import (
	"math"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// AVX2 paths of the hot float32 ops (elementwise_amd64.s); Go's compiler
// does not vectorise, and eight lanes per instruction keep these ops at
// memory speed even when the core is shared.

var simdAVX2 = cpu.X86.HasAVX2

//go:noescape
func addVVF32(o, a, b *float32, n int)

//go:noescape
func subVVF32(o, a, b *float32, n int)

//go:noescape
func mulVVF32(o, a, b *float32, n int)

//go:noescape
func divVVF32(o, a, b *float32, n int)

//go:noescape
func addVSF32(o, a *float32, s float32, n int)

//go:noescape
func subVSF32(o, a *float32, s float32, n int)

//go:noescape
func mulVSF32(o, a *float32, s float32, n int)

//go:noescape
func divVSF32(o, a *float32, s float32, n int)

//go:noescape
func subSVF32(o, a *float32, s float32, n int)

//go:noescape
func divSVF32(o, a *float32, s float32, n int)

//go:noescape
func maxVVF32(o, a, b *float32, n int)

//go:noescape
func minVVF32(o, a, b *float32, n int)

//go:noescape
func maxVSF32(o, a *float32, s float32, n int)

//go:noescape
func minVSF32(o, a *float32, s float32, n int)

//go:noescape
func clampF32AVX2(o, a *float32, lo, hi float32, n int)

//go:noescape
func bitsF32AVX2(o, a *float32, and, xor uint32, n int)

// The NT twins of the loops above store with VMOVNTPS (o 32-byte
// aligned) and fence before they return; the rows use them from streamMin
// elements on.

//go:noescape
func addVVF32NT(o, a, b *float32, n int)

//go:noescape
func subVVF32NT(o, a, b *float32, n int)

//go:noescape
func mulVVF32NT(o, a, b *float32, n int)

//go:noescape
func divVVF32NT(o, a, b *float32, n int)

//go:noescape
func addVSF32NT(o, a *float32, s float32, n int)

//go:noescape
func subVSF32NT(o, a *float32, s float32, n int)

//go:noescape
func mulVSF32NT(o, a *float32, s float32, n int)

//go:noescape
func divVSF32NT(o, a *float32, s float32, n int)

//go:noescape
func subSVF32NT(o, a *float32, s float32, n int)

//go:noescape
func divSVF32NT(o, a *float32, s float32, n int)

//go:noescape
func maxVVF32NT(o, a, b *float32, n int)

//go:noescape
func minVVF32NT(o, a, b *float32, n int)

//go:noescape
func maxVSF32NT(o, a *float32, s float32, n int)

//go:noescape
func minVSF32NT(o, a *float32, s float32, n int)

//go:noescape
func clampF32AVX2NT(o, a *float32, lo, hi float32, n int)

//go:noescape
func bitsF32AVX2NT(o, a *float32, and, xor uint32, n int)

// streamMin is the row length from which the rows with NT twins (the
// loops here and sqrt) store their results with non-temporal stores: the
// output's lines are then written without being read first (no read for
// ownership), 2 bytes moved per byte of a unary op's input instead of 3,
// and do not evict the inputs from the caches. Below it the output likely
// still fits a core's share of the caches, where the next op would find
// it. The compute-bound math rows measured no faster with such stores
// (bench/RESULTS.md). A variable for the tests.
var streamMin = 1 << 20

// streamHead is how many elements o has before its first 32-byte
// boundary (float32s are 4-byte aligned), where the NT loops can start.
func streamHead(o []float32) int {
	return int(-uintptr(unsafe.Pointer(&o[0]))&31) / 4
}

// overlaps reports whether o and x share memory.
func overlaps(o, x []float32) bool {
	if len(o) == 0 || len(x) == 0 {
		return false
	}
	po, px := uintptr(unsafe.Pointer(&o[0])), uintptr(unsafe.Pointer(&x[0]))
	return po < px+uintptr(len(x))*4 && px < po+uintptr(len(o))*4
}

// streamBlocks runs the whole blocks [0, m) of a row whose output is o (m
// a multiple of 8): run(lo, n, false) over all of them, or, for rows of
// streamMin elements or more whose output shares no memory with an input
// (inPlace false; in place, the output's lines are in the cache already
// and streaming them out measured slower), run(lo, n, true), the NT
// loops, from o's first 32-byte boundary on, with the partial blocks
// before it and at m through pad(lo, hi), the regular loop over a padded
// copy; so every element takes the same instructions either way.
func streamBlocks(o []float32, m int, inPlace bool, run func(lo, n int, stream bool), pad func(lo, hi int)) {
	if len(o) < streamMin || inPlace {
		if m > 0 {
			run(0, m, false)
		}
		return
	}
	h := streamHead(o)
	if h > 0 {
		pad(0, h)
	}
	whole := (m - h) &^ 7
	if whole > 0 {
		run(h, whole, true)
	}
	if h+whole < m {
		pad(h+whole, m)
	}
}

// operand is the part [lo, hi) of an operand of a row of n elements, or
// the operand itself where it is broadcast (shorter than the row).
func operand(x []float32, lo, hi, n int) []float32 {
	if len(x) != n {
		return x
	}
	return x[lo:hi]
}

// unaryBlocks runs f, a loop over whole blocks, over a[:m] into o through
// streamBlocks.
func unaryBlocks(o, a []float32, m int, f func(o, a *float32, n int, stream bool)) {
	streamBlocks(o, m, overlaps(o, a), func(lo, n int, stream bool) {
		f(&o[lo], &a[lo], n, stream)
	}, func(lo, hi int) {
		var blk [8]float32
		copy(blk[:], a[lo:hi])
		f(&blk[0], &blk[0], 8, false)
		copy(o[lo:hi], blk[:])
	})
}

// simdRowF32 returns the vectorised row function of op name, or nil when
// there is none (or no AVX2). generic finishes the tails.
func simdRowF32(name string, generic func(o, a, b []float32) error) func(o, a, b []float32) error {
	if !simdAVX2 {
		return nil
	}
	type kernels struct {
		vv     func(o, a, b *float32, n int)
		vs, sv func(o, a *float32, s float32, n int)
	}
	var k, nt kernels
	switch name {
	case "add":
		k = kernels{addVVF32, addVSF32, addVSF32}
		nt = kernels{addVVF32NT, addVSF32NT, addVSF32NT}
	case "sub":
		k = kernels{subVVF32, subVSF32, subSVF32}
		nt = kernels{subVVF32NT, subVSF32NT, subSVF32NT}
	case "mul":
		k = kernels{mulVVF32, mulVSF32, mulVSF32}
		nt = kernels{mulVVF32NT, mulVSF32NT, mulVSF32NT}
	case "div":
		k = kernels{divVVF32, divVSF32, divSVF32}
		nt = kernels{divVVF32NT, divVSF32NT, divSVF32NT}
	case "maximum":
		k = kernels{maxVVF32, maxVSF32, maxVSF32}
		nt = kernels{maxVVF32NT, maxVSF32NT, maxVSF32NT}
	case "minimum":
		k = kernels{minVVF32, minVSF32, minVSF32}
		nt = kernels{minVVF32NT, minVSF32NT, minVSF32NT}
	default:
		return nil
	}
	return func(o, a, b []float32) error {
		n := len(o)
		m := n &^ 7
		va, vb := len(a) == n, len(b) == n
		if m == 0 || !va && !vb {
			return generic(o, a, b)
		}
		// run calls k or nt over n elements from lo; x and y are a's
		// and b's first elements (their own for a broadcast operand).
		run := func(k kernels, po, x, y *float32, n int) {
			switch {
			case va && vb:
				k.vv(po, x, y, n)
			case va:
				k.vs(po, x, *y, n)
			default:
				k.sv(po, y, *x, n)
			}
		}
		at := func(x []float32, i int) *float32 {
			if len(x) == n {
				return &x[i]
			}
			return &x[0]
		}
		inPlace := overlaps(o, a) || overlaps(o, b)
		streamBlocks(o, m, inPlace, func(lo, cnt int, stream bool) {
			kk := k
			if stream {
				kk = nt
			}
			run(kk, &o[lo], at(a, lo), at(b, lo), cnt)
		}, func(lo, hi int) {
			var blk [3][8]float32
			x, y := at(a, 0), at(b, 0)
			if va {
				copy(blk[1][:], a[lo:hi])
				x = &blk[1][0]
			}
			if vb {
				copy(blk[2][:], b[lo:hi])
				y = &blk[2][0]
			}
			run(k, &blk[0][0], x, y, 8)
			copy(o[lo:hi], blk[0][:])
		})
		return generic(o[m:], operand(a, m, n, n), operand(b, m, n, n))
	}
}

// simdUnaryF32 returns the vectorised row of a float32 unary op (neg, abs,
// relu), or nil. generic finishes the tails.
func simdUnaryF32(name string, generic func(o, a []float32)) func(o, a []float32) {
	if !simdAVX2 {
		return nil
	}
	var f func(o, a *float32, n int, stream bool)
	switch name {
	case "neg":
		f = func(o, a *float32, n int, stream bool) { bitsRow(o, a, 0xffffffff, 0x80000000, n, stream) }
	case "abs":
		f = func(o, a *float32, n int, stream bool) { bitsRow(o, a, 0x7fffffff, 0, n, stream) }
	case "relu":
		f = func(o, a *float32, n int, stream bool) { clampRowAVX2(o, a, 0, float32(math.Inf(1)), n, stream) }
	default:
		return nil
	}
	return func(o, a []float32) {
		a = a[:len(o)]
		m := len(o) &^ 7
		unaryBlocks(o, a, m, f)
		generic(o[m:], a[m:])
	}
}

// bitsRow is bitsF32AVX2, or its NT twin where stream is set.
func bitsRow(o, a *float32, and, xor uint32, n int, stream bool) {
	if stream {
		bitsF32AVX2NT(o, a, and, xor, n)
	} else {
		bitsF32AVX2(o, a, and, xor, n)
	}
}

// clampRowAVX2 is clampF32AVX2, or its NT twin where stream is set.
func clampRowAVX2(o, a *float32, lo, hi float32, n int, stream bool) {
	if stream {
		clampF32AVX2NT(o, a, lo, hi, n)
	} else {
		clampF32AVX2(o, a, lo, hi, n)
	}
}

// simdClampF32 returns the vectorised clamp row for bounds lo and hi
// (infinite when absent), or nil. generic finishes the tails.
func simdClampF32(lo, hi float32, generic func(o, a []float32)) func(o, a []float32) {
	if !simdAVX2 {
		return nil
	}
	f := func(o, a *float32, n int, stream bool) { clampRowAVX2(o, a, lo, hi, n, stream) }
	return func(o, a []float32) {
		a = a[:len(o)]
		m := len(o) &^ 7
		unaryBlocks(o, a, m, f)
		generic(o[m:], a[m:])
	}
}

//go:noescape
func hardswishF32AVX2(o, x *float32, n int, three, six float32)

// hardswishSIMD sets o = x·clamp(x+3, 0, 6)/6 (hardswishF32's block, a
// multiple of 8 long) and reports whether it could.
func hardswishSIMD(o, x []float32) bool {
	if !simdAVX2 {
		return false
	}
	if n := len(o); n > 0 {
		hardswishF32AVX2(&o[0], &x[0], n, 3, 6)
	}
	return true
}
