package stdlib

import (
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/tensor"
)

// vector makes an owned float32 tensor value.
func (e *propEnv) vector(vs ...float32) eval.Value {
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{len(vs)}, DType: tensor.Float32})
	copy(d.F32(), vs)
	return e.tensor(d)
}

// Python's forms of sum, max and min fold tensors with the script's
// operators and release every intermediate, on success and on failure.
func TestPythonReductionsOverTensors(t *testing.T) {
	e := newPropEnv(t)
	defer e.close()
	a, b, c := e.vector(1, 2), e.vector(10, 20), e.vector(100, 200)
	list := eval.NewList([]eval.Value{a, b, c})
	defer eval.Release(e.rt, list)

	sum, err := e.call("sum", []eval.Value{list})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.read(sum).F32(); got[0] != 111 || got[1] != 222 {
		t.Errorf("sum of a list of tensors = %v, want [111 222]", got)
	}

	// The key of a tensor is a 0-d tensor; the winner is the element itself.
	neg := Universe()["neg"]
	sumOf := Universe()["sum"]
	key := eval.Kwarg{Name: "key", Value: sumOf}
	best, err := e.call("min", []eval.Value{list}, key)
	if err != nil {
		t.Fatal(err)
	}
	if bt, ok := best.(eval.Tensor); !ok || bt.Ref != a.(eval.Tensor).Ref {
		t.Errorf("min(list, key=sum) = %v, want the first element itself", best)
	}
	eval.Release(e.rt, best)

	// A key whose results cannot be compared fails after some keys were
	// made: nothing leaks.
	_, err = e.call("max", []eval.Value{list}, eval.Kwarg{Name: "key", Value: neg})
	if err == nil || !strings.Contains(err.Error(), "max: cannot order tensors of shape [2] by >") {
		t.Errorf("max(list, key=neg) of vectors: err = %v, want an ambiguous-truth error", err)
	}
	// An element that cannot be added stops the sum midway: nothing leaks.
	mixed := eval.NewList([]eval.Value{e.vector(1), eval.String("s")})
	defer eval.Release(e.rt, mixed)
	if _, err := e.call("sum", []eval.Value{mixed}); err == nil || !strings.Contains(err.Error(), "unsupported operand types for +") {
		t.Errorf("sum([tensor, string]): err = %v", err)
	}
}

// sorted releases its keys and values when a comparison fails midway.
func TestSortedReleasesOnFailure(t *testing.T) {
	e := newPropEnv(t)
	defer e.close()
	list := eval.NewList([]eval.Value{e.vector(3), e.vector(1, 2), e.vector(2)})
	defer eval.Release(e.rt, list)
	_, err := e.call("sorted", []eval.Value{list}, eval.Kwarg{Name: "key", Value: Universe()["neg"]})
	if err == nil || !strings.Contains(err.Error(), "sorted: cannot order tensors of shape [2] by <") {
		t.Errorf("sorted with a vector key: err = %v", err)
	}
	scalars := eval.NewList([]eval.Value{e.vector(3), e.vector(1), e.vector(2)})
	defer eval.Release(e.rt, scalars)
	got, err := e.call("sorted", []eval.Value{scalars}, eval.Kwarg{Name: "reverse", Value: eval.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	defer eval.Release(e.rt, got)
	for i, want := range []float32{3, 2, 1} {
		v := got.(*eval.List).Elems[i].(eval.Tensor)
		d, err := e.rt.Read(v.Ref)
		if err != nil || d.F32()[0] != want {
			t.Errorf("sorted(reverse=true)[%d] = %v, %v; want %v", i, d, err, want)
		}
	}
}
