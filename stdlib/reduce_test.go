package stdlib

import (
	"math"
	"math/rand/v2"
	"testing"
	"testing/quick"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/tensor"
)

// TestSumOfPartialSumsProperty: summing over every dimension equals
// summing over one dimension and then over the rest, for each dimension
// (int64, so equality is exact), and keepdim keeps the rank.
func TestSumOfPartialSumsProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	prop := func(s propShape) bool {
		e := newPropEnv(t)
		defer e.close()
		x := randFilled(r, tensor.Int64, s)
		xv := e.tensor(x)
		defer eval.Release(e.rt, xv)
		total, err := e.call("sum", []eval.Value{xv})
		if err != nil {
			t.Errorf("sum %v: %v", s, err)
			return false
		}
		want := e.read(total).I64()[0]
		for d := range len(s) {
			part, err := e.call("sum", []eval.Value{xv}, eval.Kwarg{Name: "dim", Value: eval.Int(d)}, eval.Kwarg{Name: "keepdim", Value: eval.Bool(true)})
			if err != nil {
				t.Errorf("sum %v dim %d: %v", s, d, err)
				return false
			}
			if pt := part.(eval.Tensor); len(pt.Ref.Shape()) != len(s) || pt.Ref.Shape()[d] != 1 {
				t.Errorf("sum %v dim %d keepdim: shape %v", s, d, pt.Ref.Shape())
			}
			rest, err := e.call("sum", []eval.Value{part})
			eval.Release(e.rt, part)
			if err != nil {
				t.Errorf("sum of partial sums %v: %v", s, err)
				return false
			}
			if got := e.read(rest).I64()[0]; got != want {
				t.Errorf("sum %v: over dim %d then the rest = %d, over all = %d", s, d, got, want)
				return false
			}
		}
		return true
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 200}); err != nil {
		t.Error(err)
	}
}

// TestMaxBoundsProperty: max over a dim is at least every element along
// that dim and is the element its index names; min likewise from below.
func TestMaxBoundsProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	prop := func(s propShape) bool {
		if len(s) == 0 || tensor.Shape(s).Numel() == 0 {
			return true
		}
		e := newPropEnv(t)
		defer e.close()
		x := randFilled(r, tensor.Float32, s)
		xv := e.tensor(x)
		defer eval.Release(e.rt, xv)
		d := r.IntN(len(s))
		for _, name := range []string{"max", "min"} {
			res, err := e.call(name, []eval.Value{xv, eval.Int(d)}, eval.Kwarg{Name: "keepdim", Value: eval.Bool(true)})
			if err != nil {
				t.Errorf("%s %v dim %d: %v", name, s, d, err)
				return false
			}
			rec, ok := res.(*eval.Record)
			if !ok || !rec.Positional || len(rec.Values) != 2 {
				t.Fatalf("%s %v dim %d: got %s, want {values, indices}", name, s, d, eval.Describe(res))
			}
			vals, inds := rec.Values[0], rec.Values[1]
			eval.Retain(e.rt, vals)
			eval.Retain(e.rt, inds)
			eval.Release(e.rt, res)
			m, idx := e.read(vals), e.read(inds)
			for i := range x.Numel() {
				o := propIndex(tensor.Shape(s), m.Shape, i)
				v, mv := x.At(i), m.At(o)
				if name == "max" && v > mv || name == "min" && v < mv || math.IsNaN(mv) {
					t.Errorf("%s %v dim %d: element %v beyond %v", name, s, d, v, mv)
					return false
				}
				if along := i / tensor.Shape(s[d+1:]).Numel() % s[d]; float64(along) == idx.At(o) && v != mv {
					t.Errorf("%s %v dim %d: result %d (%v) is not element %d along the dim (%v)", name, s, d, o, mv, along, v)
					return false
				}
			}
		}
		return true
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 200}); err != nil {
		t.Error(err)
	}
}
