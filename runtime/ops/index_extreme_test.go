package ops

import (
	"math"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

// TestSliceExtremeBounds slices with the int64 extremes as bounds and
// steps: the count of selected elements used to overflow (a negative
// length, or an empty slice where Python selects one element).
func TestSliceExtremeBounds(t *testing.T) {
	const maxI, minI = math.MaxInt64, math.MinInt64
	for _, tt := range []struct {
		start, stop *int
		step        int
		want        []int
	}{
		{nil, nil, maxI, []int{0}},
		{nil, nil, minI, []int{2}},
		{p(minI), p(maxI), maxI, []int{0}},
		{p(maxI), p(minI), minI, []int{2}},
		{p(maxI), nil, 1, nil},
		{p(minI), nil, -1, nil},
		{nil, nil, -maxI, []int{2}},
		{p(1), nil, minI, []int{1}},
		{nil, nil, -2, []int{2, 0}},
	} {
		rs, err := ResolveIndex(tensor.Shape{3}, []IndexItem{sl(tt.start, tt.stop, tt.step)})
		if err != nil {
			t.Fatal(err)
		}
		r := rs[0]
		if r.Len != len(tt.want) {
			t.Fatalf("slice(%v, %v, %d) of 3: %d elements, want %v", deref(tt.start), deref(tt.stop), tt.step, r.Len, tt.want)
		}
		for k, w := range tt.want {
			if got := r.Start + k*r.Step; got != w {
				t.Fatalf("slice(%v, %v, %d) of 3: element %d is %d, want %d", deref(tt.start), deref(tt.stop), tt.step, k, got, w)
			}
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return "none"
	}
	return *p
}
