package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSIMDCompareMatchesGeneric checks the vectorised float32 comparisons
// against the generic rows for lengths 0..140 (several 32-element blocks
// and every tail), each operand layout, with NaN, ±0 and ±inf operands.
func TestSIMDCompareMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	special := []float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), 1, -1}
	pick := func() float32 {
		if rng.IntN(3) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float32(rng.IntN(5) - 2) // many ties
	}
	for _, name := range []string{"eq", "ne", "lt", "le", "gt", "ge"} {
		generic := compareRow[float32](name)
		simd := simdCompareF32(name, generic)
		if simd == nil {
			t.Skip("no vectorised comparisons on this machine")
		}
		for n := range 141 {
			a, b := make([]float32, n), make([]float32, n)
			for i := range a {
				a[i], b[i] = pick(), pick()
			}
			for _, s := range special {
				for _, l := range []struct {
					name string
					x, y []float32
				}{{"vv", a, b}, {"vs", a, []float32{s}}, {"sv", []float32{s}, b}} {
					want, got := make([]uint8, n), make([]uint8, n)
					if err := generic(want, l.x, l.y); err != nil {
						t.Fatal(err)
					}
					if err := simd(got, l.x, l.y); err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("%s %s n=%d s=%v: %v, want %v (a %v, b %v)", name, l.name, n, s, got, want, l.x, l.y)
					}
				}
			}
		}
	}
}

// TestSIMDWhereMatchesGeneric checks the vectorised where on 32-bit words
// (bit patterns, NaN payloads included) against the generic row.
func TestSIMDWhereMatchesGeneric(t *testing.T) {
	simd := simdWhereU32(whereRow[uint32])
	if simd == nil {
		t.Skip("no vectorised where on this machine")
	}
	rng := rand.New(rand.NewPCG(33, 34))
	for n := range 141 {
		c := make([]uint8, n)
		a, b := make([]uint32, n), make([]uint32, n)
		for i := range c {
			c[i] = []uint8{0, 1, 2, 255}[rng.IntN(4)]
			a[i], b[i] = rng.Uint32(), rng.Uint32()
		}
		s := []uint32{0x7fc00001}
		for _, l := range []struct {
			name string
			x, y []uint32
		}{{"vv", a, b}, {"vs", a, s}, {"sv", s, b}, {"ss", s, []uint32{7}}} {
			want, got := make([]uint32, n), make([]uint32, n)
			whereRow(want, c, l.x, l.y)
			simd(got, c, l.x, l.y)
			if !slices.Equal(got, want) {
				t.Fatalf("where %s n=%d: %x, want %x", l.name, n, got, want)
			}
			if len(l.x) == n { // in place over a
				alias := slices.Clone(l.x)
				simd(alias, c, alias, l.y)
				if !slices.Equal(alias, want) {
					t.Fatalf("where %s n=%d in place: %x, want %x", l.name, n, alias, want)
				}
			}
		}
	}
}
