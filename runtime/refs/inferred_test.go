package refs_test

import (
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// TestSubmitInferred: an op submitted with its known result meta runs as
// Submit's does, and the checks on the inputs still apply.
func TestSubmitInferred(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 4, TrackRefs: true})
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{3}, DType: tensor.Float32})
	copy(d.F32(), []float32{1, -2, 3})
	x := rt.FromHost(refs.Site{}, d)
	want, err := rt.Submit(refs.Site{}, ops.Neg, nil, x)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rt.SubmitInferred(refs.Site{}, ops.Neg, nil, want.Meta(), x)
	if err != nil {
		t.Fatal(err)
	}
	if &got.Meta().Shape[0] != &want.Meta().Shape[0] {
		t.Error("the known meta's shape was not taken as given")
	}
	a, err := rt.Read(want)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rt.Read(got)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if a.At(i) != b.At(i) {
			t.Errorf("element %d: %v, want %v", i, b.At(i), a.At(i))
		}
	}
	rt.Release(want)
	rt.Release(got)
	rt.Release(x)
	if _, err := rt.SubmitInferred(refs.Site{}, ops.Neg, nil, want.Meta(), x); err == nil {
		t.Error("a freed input was taken")
	}
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs live", n)
	}
}
