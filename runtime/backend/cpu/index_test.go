package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// randIndexItem draws an integer index or a slice (possibly out of range,
// possibly with a negative step) for a dimension of size n.
func randIndexItem(r *rand.Rand, n int) ops.IndexItem {
	if r.IntN(3) == 0 {
		return ops.IndexItem{Kind: ops.IndexAt, At: r.IntN(2*n) - n}
	}
	it := ops.IndexItem{Kind: ops.IndexSlice, Step: []int{-3, -2, -1, 1, 1, 1, 2, 3}[r.IntN(8)]}
	if r.IntN(2) == 0 {
		it.Start, it.HasStart = r.IntN(2*n+5)-n-2, true
	}
	if r.IntN(2) == 0 {
		it.Stop, it.HasStop = r.IntN(2*n+5)-n-2, true
	}
	return it
}

func TestIndexMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for trial := range 400 {
		dt := shapeDTypes[trial%len(shapeDTypes)]
		s := randShape(r, 1+r.IntN(4), 6)
		x := iotaDense(dt, s...)
		items := make([]ops.IndexItem, r.IntN(len(s)+1))
		for k := range items {
			items[k] = randIndexItem(r, s[k])
		}
		rs, err := ops.ResolveIndex(s, items)
		if err != nil {
			t.Fatal(err)
		}
		got := execShapeOp(t, "index", ops.IndexAttrs{Items: items}, x)
		want := tensor.NewDense(got.Meta)
		for i := range want.Numel() {
			oi := unravel(i, got.Shape)
			ii := make([]int, len(s))
			j := 0
			for k, rg := range rs {
				ii[k] = rg.Start
				if rg.Keep {
					ii[k] += oi[j] * rg.Step
					j++
				}
			}
			want.Set(i, x.At(ravel(ii, s)))
		}
		sameDense(t, "index", got, want)
	}
}

func TestIndexExamples(t *testing.T) {
	x := iotaDense(tensor.Int64, 3, 4) // [[1 2 3 4] [5 6 7 8] [9 10 11 12]]
	all := ops.IndexItem{Kind: ops.IndexSlice, Step: 1}
	rev := ops.IndexItem{Kind: ops.IndexSlice, Step: -1}
	cases := []struct {
		items []ops.IndexItem
		shape tensor.Shape
		want  []int64
	}{
		{[]ops.IndexItem{{Kind: ops.IndexAt, At: -1}}, tensor.Shape{4}, []int64{9, 10, 11, 12}},
		{[]ops.IndexItem{all, {Kind: ops.IndexAt, At: 1}}, tensor.Shape{3}, []int64{2, 6, 10}},
		{[]ops.IndexItem{rev, rev}, tensor.Shape{3, 4}, []int64{12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}},
		{[]ops.IndexItem{{Kind: ops.IndexSlice, Start: 1, HasStart: true, Step: 1}, {Kind: ops.IndexSlice, Step: 2}},
			tensor.Shape{2, 2}, []int64{5, 7, 9, 11}},
		{[]ops.IndexItem{{Kind: ops.IndexSlice, Start: 5, HasStart: true, Step: 1}}, tensor.Shape{0, 4}, nil},
		{[]ops.IndexItem{{Kind: ops.IndexAt, At: 2}, {Kind: ops.IndexAt, At: -4}}, tensor.Shape{}, []int64{9}},
	}
	for _, c := range cases {
		got := execShapeOp(t, "index", ops.IndexAttrs{Items: c.items}, x)
		if !got.Shape.Equal(c.shape) {
			t.Fatalf("%+v: shape %v, want %v", c.items, got.Shape, c.shape)
		}
		for i, w := range c.want {
			if got.I64()[i] != w {
				t.Fatalf("%+v: %v, want %v", c.items, got.I64(), c.want)
			}
		}
	}
}
