package stdlib

import (
	"slices"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/rng"
	"github.com/tref-lang/tref/runtime/tensor"
)

// randperm draws from the seeded stream: a permutation of 0..n-1, the same
// one for the same seed, and another one for another seed.
func TestRandpermSeeded(t *testing.T) {
	draw := func(seed uint64, n int, kw ...eval.Kwarg) *tensor.Dense {
		e := newPropEnv(t)
		defer e.close()
		e.th.RNG = rng.New(seed)
		v, err := e.call("randperm", []eval.Value{eval.Int(n)}, kw...)
		if err != nil {
			t.Fatal(err)
		}
		return e.read(v)
	}
	a, b, c := draw(7, 50), draw(7, 50), draw(8, 50)
	perm := func(d *tensor.Dense) []int64 { return slices.Clone(d.I64()) }
	pa := perm(a)
	if !slices.Equal(pa, perm(b)) {
		t.Errorf("seed 7 gave two permutations: %v and %v", pa, perm(b))
	}
	if slices.Equal(pa, perm(c)) {
		t.Errorf("seeds 7 and 8 gave the same permutation %v", pa)
	}
	sorted := slices.Clone(pa)
	slices.Sort(sorted)
	for i, v := range sorted {
		if v != int64(i) {
			t.Fatalf("randperm(50) = %v is not a permutation of 0..49", pa)
		}
	}
	if slices.Equal(pa, sorted) {
		t.Errorf("randperm(50) left 0..49 in order")
	}
	f := draw(7, 50, eval.Kwarg{Name: "dtype", Value: eval.String("float32")})
	if f.DType != tensor.Float32 || f.At(3) != float64(pa[3]) {
		t.Errorf("randperm(50, dtype=\"float32\") = %v, want %v as float32", f.Meta, pa)
	}
	if d := draw(1, 0); d.Numel() != 0 || d.DType != tensor.Int64 {
		t.Errorf("randperm(0) = %v, want int64[0]", d.Meta)
	}
}
