package stdlib

import (
	"math"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/tensor"
)

// weightsTensor makes a float32 tensor of the given rows of weights.
func weightsTensor(t *testing.T, th *eval.Thread, rows ...[]float64) eval.Value {
	t.Helper()
	elems := make([]eval.Value, len(rows))
	for i, r := range rows {
		row := make([]eval.Value, len(r))
		for j, v := range r {
			row[j] = eval.Float64(v)
		}
		elems[i] = eval.NewList(row)
	}
	var data eval.Value = eval.NewList(elems)
	if len(rows) == 1 {
		data = elems[0]
	}
	return call(t, th, "tensor", []eval.Value{data})
}

// TestMultinomial draws with replacement in proportion to the weights
// (a category of weight 0 never), per row for 2-d weights; without
// replacement every category at most once, the heavy ones first more
// often; the same seed gives the same draws.
func TestMultinomial(t *testing.T) {
	th := newTestThread(t)
	call(t, th, "seed", []eval.Value{eval.Int(3)})
	w := weightsTensor(t, th, []float64{1, 0, 3, 6})
	defer eval.Release(th.RT, w)
	const n = 100000
	got, dt := draw(t, th, "multinomial", w, eval.Int(n), eval.Bool(true))
	if dt != tensor.Int64 || len(got) != n {
		t.Fatalf("multinomial gives %d values of %v", len(got), dt)
	}
	counts := make([]int, 4)
	for _, v := range got {
		counts[int(v)]++
	}
	for i, p := range []float64{0.1, 0, 0.3, 0.6} {
		if f := float64(counts[i]) / n; math.Abs(f-p) > 0.01 {
			t.Errorf("category %d drawn %.4f of the time, want %.1f", i, f, p)
		}
	}
	if counts[1] != 0 {
		t.Errorf("a category of weight 0 was drawn %d times", counts[1])
	}

	// Without replacement: each row a permutation of the nonzero
	// categories; the heaviest comes first about 6/10 of the time.
	w2 := weightsTensor(t, th, []float64{1, 0, 3, 6}, []float64{0, 0, 5, 5})
	defer eval.Release(th.RT, w2)
	first := 0
	const rounds = 4000
	for range rounds {
		v := call(t, th, "multinomial", []eval.Value{w2, eval.Int(2)})
		d := read(t, th, v)
		if !d.Shape.Equal(tensor.Shape{2, 2}) {
			t.Fatalf("shape %v, want [2, 2]", d.Shape)
		}
		r := d.I64()
		if r[0] == r[1] || r[0] == 1 || r[1] == 1 {
			t.Fatalf("row 0 drew %v without replacement", r[:2])
		}
		if !(r[2] == 2 && r[3] == 3 || r[2] == 3 && r[3] == 2) {
			t.Fatalf("row 1 drew %v, want 2 and 3", r[2:])
		}
		if r[0] == 3 {
			first++
		}
		eval.Release(th.RT, v)
	}
	if f := float64(first) / rounds; math.Abs(f-0.6) > 0.03 {
		t.Errorf("the heaviest category came first %.3f of the time, want 0.6", f)
	}

	// The seed fixes the draws.
	again := func() []float64 {
		call(t, th, "seed", []eval.Value{eval.Int(11)})
		v, _ := draw(t, th, "multinomial", w, eval.Int(20), eval.Bool(true))
		return v
	}
	a, b := again(), again()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("draw %d: %v then %v after the same seed", i, a[i], b[i])
		}
	}
}

func TestMultinomialErrors(t *testing.T) {
	th := newTestThread(t)
	ok := weightsTensor(t, th, []float64{1, 2, 0})
	defer eval.Release(th.RT, ok)
	for _, tc := range []struct {
		weights []float64
		args    []eval.Value
		want    string
	}{
		{[]float64{1, -1}, []eval.Value{eval.Int(1)}, "weight 1 is -1: weights must be finite and not negative"},
		{[]float64{1, math.NaN()}, []eval.Value{eval.Int(1)}, "weight 1 is NaN"},
		{[]float64{0, 0}, []eval.Value{eval.Int(1)}, "the weights sum to 0"},
		{[]float64{1, 2, 0}, []eval.Value{eval.Int(3)}, "cannot draw 3 samples without replacement from 2 categories of nonzero weight"},
		{[]float64{1, 2}, []eval.Value{eval.Int(3)}, "cannot draw 3 samples from 2 categories without replacement"},
		{[]float64{1, 2}, []eval.Value{eval.Int(0)}, "num_samples must be positive, got 0"},
	} {
		w := weightsTensor(t, th, tc.weights)
		_, err := callErr(th, "multinomial", append([]eval.Value{w}, tc.args...))
		eval.Release(th.RT, w)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("weights %v %v: error %v, want %q", tc.weights, tc.args, err, tc.want)
		}
	}
	ints := call(t, th, "tensor", []eval.Value{ints(1, 2)})
	defer eval.Release(th.RT, ints)
	if _, err := callErr(th, "multinomial", []eval.Value{ints, eval.Int(1)}); err == nil || !strings.Contains(err.Error(), "must be floating point") {
		t.Errorf("int weights: %v", err)
	}
	scalar := call(t, th, "tensor", []eval.Value{eval.Float64(1)})
	defer eval.Release(th.RT, scalar)
	if _, err := callErr(th, "multinomial", []eval.Value{scalar, eval.Int(1)}); err == nil || !strings.Contains(err.Error(), "must be 1-d or 2-d") {
		t.Errorf("0-d weights: %v", err)
	}
}
