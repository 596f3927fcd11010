//go:build amd64 && !purego

package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
)

// TestSIMDRowsStream runs the AVX2 arithmetic, unary and clamp rows over
// rows of streamMin elements or more (lowered here), where they store
// non-temporally from o's first 32-byte boundary on, at every output
// offset from such a boundary, with and without a tail, broadcast and in
// place, and compares every result bit for bit with the regular path's
// (NaN payloads included).
func TestSIMDRowsStream(t *testing.T) {
	if !simdAVX2 {
		t.Skip("no AVX2")
	}
	saved := streamMin
	defer func() { streamMin = saved }()
	// regular runs f with regular stores only.
	regular := func(f func()) {
		streamMin = math.MaxInt
		f()
		streamMin = 64
	}
	streamMin = 64

	rng := rand.New(rand.NewPCG(3, 5))
	special := []float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1))}
	const maxN = 300
	src := func() []float32 {
		x := make([]float32, maxN)
		for i := range x {
			x[i] = float32(rng.NormFloat64()) + 0.5
			if rng.IntN(8) == 0 {
				x[i] = special[rng.IntN(len(special))]
			}
		}
		return x
	}
	xa, xb := src(), src()
	s := []float32{1.75}
	bufO, bufA, bufB := make([]float32, maxN+16), make([]float32, maxN+16), make([]float32, maxN+16)
	want := make([]float32, maxN)

	for _, name := range []string{"add", "sub", "mul", "div", "maximum", "minimum"} {
		simd := simdRowF32(name, arithRow[float32](name))
		for _, n := range []int{64, 67, 256, maxN} {
			for off := range 8 {
				o := aligned32(bufO, off, n)
				a := aligned32(bufA, (off+5)%8, n)
				b := aligned32(bufB, (off+2)%8, n)
				copy(a, xa)
				copy(b, xb)
				for _, l := range []struct {
					name string
					x, y []float32
				}{{"vv", a, b}, {"vs", a, s}, {"sv", s, b}} {
					w := want[:n]
					regular(func() {
						if err := simd(w, l.x, l.y); err != nil {
							t.Fatal(err)
						}
					})
					if err := simd(o, l.x, l.y); err != nil {
						t.Fatal(err)
					}
					compareBits(t, name+" "+l.name, n, off, o, w)
				}
				// In place, into either operand.
				w := want[:n]
				regular(func() {
					if err := simd(w, a, b); err != nil {
						t.Fatal(err)
					}
				})
				copy(o, a)
				if err := simd(o, o, b); err != nil {
					t.Fatal(err)
				}
				compareBits(t, name+" in place (a)", n, off, o, w)
				copy(o, b)
				if err := simd(o, a, o); err != nil {
					t.Fatal(err)
				}
				compareBits(t, name+" in place (b)", n, off, o, w)
			}
		}
	}

	type row = func(o, a []float32)
	cases := map[string]func() (row, row){}
	for _, name := range []string{"neg", "abs", "relu"} {
		cases[name] = func() (row, row) {
			g := keepUnaryRow[float32](name)
			return g, simdUnaryF32(name, g)
		}
	}
	cases["clamp"] = func() (row, row) {
		g := clampRow[float32](ops.ClampAttrs{Min: -0.5, Max: 1, HasMin: true, HasMax: true})
		return g, simdClampF32(-0.5, 1, g)
	}
	for name, mk := range cases {
		_, simd := mk()
		for _, n := range []int{64, 67, 256, maxN} {
			for off := range 8 {
				o := aligned32(bufO, off, n)
				a := aligned32(bufA, (off+3)%8, n)
				copy(a, xa)
				w := want[:n]
				regular(func() { simd(w, a) })
				simd(o, a)
				compareBits(t, name, n, off, o, w)
				copy(o, a)
				simd(o, o)
				compareBits(t, name+" in place", n, off, o, w)
			}
		}
	}
}
