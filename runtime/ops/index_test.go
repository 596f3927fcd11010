package ops

import (
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

func at(i int) IndexItem { return IndexItem{Kind: IndexAt, At: i} }

// sl builds a slice item; nil bounds are omitted ones.
func sl(start, stop *int, step int) IndexItem {
	it := IndexItem{Kind: IndexSlice, Step: step}
	if start != nil {
		it.Start, it.HasStart = *start, true
	}
	if stop != nil {
		it.Stop, it.HasStop = *stop, true
	}
	return it
}

func p(i int) *int { return &i }

// pySlice lists the positions Python's range(*slice(...).indices(n)) visits.
func pySlice(start, stop *int, step, n int) []int {
	var s, e int
	if step > 0 {
		s, e = 0, n
		if start != nil {
			s = *start
			if s < 0 {
				s = max(s+n, 0)
			}
			s = min(s, n)
		}
		if stop != nil {
			e = *stop
			if e < 0 {
				e = max(e+n, 0)
			}
			e = min(e, n)
		}
	} else {
		s, e = n-1, -1
		if start != nil {
			s = *start
			if s < 0 {
				s = max(s+n, -1)
			}
			s = min(s, n-1)
		}
		if stop != nil {
			e = *stop
			if e < 0 {
				e = max(e+n, -1)
			}
			e = min(e, n-1)
		}
	}
	var out []int
	for i := s; (step > 0 && i < e) || (step < 0 && i > e); i += step {
		out = append(out, i)
	}
	return out
}

// TestSliceMatchesPython checks every bound/step combination in a small
// range against a direct transcription of Python's slice semantics.
func TestSliceMatchesPython(t *testing.T) {
	bounds := []*int{nil}
	for v := -7; v <= 7; v++ {
		bounds = append(bounds, p(v))
	}
	for n := 0; n <= 5; n++ {
		for _, start := range bounds {
			for _, stop := range bounds {
				for _, step := range []int{-3, -2, -1, 1, 2, 3} {
					rs, err := ResolveIndex(tensor.Shape{n}, []IndexItem{sl(start, stop, step)})
					if err != nil {
						t.Fatal(err)
					}
					want := pySlice(start, stop, step, n)
					r := rs[0]
					if r.Len != len(want) || !r.Keep {
						t.Fatalf("n=%d slice(%v,%v,%d): len %d, want %v", n, start, stop, step, r.Len, want)
					}
					for k, w := range want {
						if got := r.Start + k*r.Step; got != w {
							t.Fatalf("n=%d slice(%v,%v,%d): position %d is %d, want %d", n, start, stop, step, k, got, w)
						}
					}
				}
			}
		}
	}
}

func TestInferIndex(t *testing.T) {
	x := f32(4, 5, 6)
	wantShape(t, "index", IndexAttrs{[]IndexItem{at(1)}}, tensor.Shape{5, 6}, x)
	wantShape(t, "index", &IndexAttrs{[]IndexItem{at(-1), sl(p(1), p(3), 1), at(0)}}, tensor.Shape{2}, x)
	wantShape(t, "index", IndexAttrs{[]IndexItem{sl(nil, nil, -1), sl(nil, nil, 2)}}, tensor.Shape{4, 3, 6}, x)
	wantShape(t, "index", IndexAttrs{[]IndexItem{at(0), at(0), at(0)}}, tensor.Shape{}, x)
	wantShape(t, "index", IndexAttrs{}, tensor.Shape{4, 5, 6}, x)
	wantErr(t, "index", IndexAttrs{[]IndexItem{at(0), at(5)}}, "index 5 is out of range for dimension 1 of size 5", x)
	wantErr(t, "index", IndexAttrs{[]IndexItem{at(-5)}}, "index -5 is out of range for dimension 0 of size 4", x)
	wantErr(t, "index", IndexAttrs{[]IndexItem{at(0), at(0), at(0), at(0)}}, "too many indices", x)
	wantErr(t, "index", IndexAttrs{[]IndexItem{sl(nil, nil, 0)}}, "step cannot be zero", x)
	wantErr(t, "index", IndexAttrs{[]IndexItem{at(0)}}, "too many indices", f32())
}
