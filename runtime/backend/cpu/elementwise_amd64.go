//go:build amd64 && !purego

package cpu

import (
	"math"

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
	var k kernels
	switch name {
	case "add":
		k = kernels{addVVF32, addVSF32, addVSF32}
	case "sub":
		k = kernels{subVVF32, subVSF32, subSVF32}
	case "mul":
		k = kernels{mulVVF32, mulVSF32, mulVSF32}
	case "div":
		k = kernels{divVVF32, divVSF32, divSVF32}
	case "maximum":
		k = kernels{maxVVF32, maxVSF32, maxVSF32}
	case "minimum":
		k = kernels{minVVF32, minVSF32, minVSF32}
	default:
		return nil
	}
	return func(o, a, b []float32) error {
		n := len(o)
		m := n &^ 7
		switch {
		case m == 0:
		case len(a) == n && len(b) == n:
			k.vv(&o[0], &a[0], &b[0], m)
			return generic(o[m:], a[m:], b[m:])
		case len(a) == n:
			k.vs(&o[0], &a[0], b[0], m)
			return generic(o[m:], a[m:], b)
		case len(b) == n:
			k.sv(&o[0], &b[0], a[0], m)
			return generic(o[m:], a, b[m:])
		}
		return generic(o, a, b)
	}
}

// simdUnaryF32 returns the vectorised row of a float32 unary op (neg, abs,
// relu), or nil. generic finishes the tails.
func simdUnaryF32(name string, generic func(o, a []float32)) func(o, a []float32) {
	if !simdAVX2 {
		return nil
	}
	var f func(o, a *float32, n int)
	switch name {
	case "neg":
		f = func(o, a *float32, n int) { bitsF32AVX2(o, a, 0xffffffff, 0x80000000, n) }
	case "abs":
		f = func(o, a *float32, n int) { bitsF32AVX2(o, a, 0x7fffffff, 0, n) }
	case "relu":
		f = func(o, a *float32, n int) { clampF32AVX2(o, a, 0, float32(math.Inf(1)), n) }
	default:
		return nil
	}
	return func(o, a []float32) {
		m := len(o) &^ 7
		if m > 0 {
			f(&o[0], &a[0], m)
		}
		generic(o[m:], a[m:])
	}
}

// simdClampF32 returns the vectorised clamp row for bounds lo and hi
// (infinite when absent), or nil. generic finishes the tails.
func simdClampF32(lo, hi float32, generic func(o, a []float32)) func(o, a []float32) {
	if !simdAVX2 {
		return nil
	}
	return func(o, a []float32) {
		m := len(o) &^ 7
		if m > 0 {
			clampF32AVX2(&o[0], &a[0], lo, hi, m)
		}
		generic(o[m:], a[m:])
	}
}
