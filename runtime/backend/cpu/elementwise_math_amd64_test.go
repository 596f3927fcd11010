//go:build amd64 && !purego

package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// aligned32 returns n float32s from buf whose first element lies off
// elements past a 32-byte boundary (buf has room for n+16).
func aligned32(buf []float32, off, n int) []float32 {
	h := int(-uintptr(unsafe.Pointer(&buf[0]))&31) / 4
	return buf[h+off : h+off+n]
}

// TestMathRowStreamMatchesRegular runs the math rows over rows of
// streamMin elements or more (lowered here; sqrt's then store
// non-temporally) at every output offset from a 32-byte boundary, lengths
// with and without a tail, and in place, and compares every result bit
// for bit with the regular path's.
func TestMathRowStreamMatchesRegular(t *testing.T) {
	if !simdMath {
		t.Skip("no AVX2 and FMA")
	}
	saved := streamMin
	defer func() { streamMin = saved }()

	rng := rand.New(rand.NewPCG(7, 11))
	const maxN = 1000
	src := make([]float32, maxN)
	for i := range src {
		switch i % 97 {
		case 13:
			src[i] = 1e5 // sin and cos compute this block with package math
		case 40:
			src[i] = float32(math.Inf(-1))
		case 41:
			src[i] = float32(math.NaN())
		case 42:
			src[i] = 0x1p-140 // subnormal
		case 70:
			src[i] = -90 // exp's and sigmoid's general paths
		case 71:
			src[i] = 7 // gelu's general path
		default:
			src[i] = float32(rng.NormFloat64() * 3)
		}
	}
	want := make([]float32, maxN+16)
	got := make([]float32, maxN+16)
	in := make([]float32, maxN+16)
	for name, op := range mathOps {
		for _, n := range []int{256, 259, 997, maxN} {
			for off := range 8 {
				a := aligned32(in, (off*3)%8, n)
				copy(a, src)
				streamMin = math.MaxInt
				w := aligned32(want, off, n)
				mathRow(op, w, a)

				streamMin = 64
				g := aligned32(got, off, n)
				mathRow(op, g, a)
				compareBits(t, name+" out of place", n, off, g, w)

				// In place: the output is the input.
				copy(g, a)
				mathRow(op, g, g)
				compareBits(t, name+" in place", n, off, g, w)
			}
		}
	}
}

// compareBits reports the first element where got and want differ in
// their bits.
func compareBits(t *testing.T, what string, n, off int, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Errorf("%s, n %d, output offset %d: element %d is %g (%#08x), the regular path's %g (%#08x)",
				what, n, off, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
			return
		}
	}
}
