package stdlib

import (
	"math"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/rng"
	"github.com/tref-lang/tref/runtime/tensor"
)

// draw calls a random builtin and returns its values as float64.
func draw(t *testing.T, th *eval.Thread, name string, args ...eval.Value) ([]float64, tensor.DType) {
	t.Helper()
	v := call(t, th, name, args)
	defer eval.Release(th.RT, v)
	d := read(t, th, v)
	out := make([]float64, d.Numel())
	for i := range out {
		out[i] = d.At(i)
	}
	return out, d.DType
}

func meanStd(xs []float64) (float64, float64) {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, math.Sqrt(v / float64(len(xs)))
}

func TestRandomBuiltinsDeterministicPerSeed(t *testing.T) {
	th := newTestThread(t)
	for _, name := range []string{"rand", "randn"} {
		call(t, th, "seed", []eval.Value{eval.Int(42)})
		a, _ := draw(t, th, name, ints(100))
		b, _ := draw(t, th, name, ints(100))
		call(t, th, "seed", []eval.Value{eval.Int(42)})
		c, _ := draw(t, th, name, ints(100))
		same := true
		for i := range a {
			if a[i] != c[i] {
				t.Fatalf("%s after seed(42) differs at %d: %v vs %v", name, i, a[i], c[i])
			}
			same = same && a[i] == b[i]
		}
		if same {
			t.Errorf("%s gave the same values twice in a row", name)
		}
	}
	// A thread that never called seed uses rng.DefaultSeed: runs repeat.
	fresh := newTestThread(t)
	x, _ := draw(t, fresh, "randn", ints(5))
	want := make([]float32, 5)
	rng.New(rng.DefaultSeed).FillNormal32(want)
	for i := range x {
		if x[i] != float64(want[i]) {
			t.Fatalf("unseeded randn[%d] = %v, want %v (rng.DefaultSeed)", i, x[i], want[i])
		}
	}
}

func TestRandomBuiltinsDistributions(t *testing.T) {
	th := newTestThread(t)
	call(t, th, "seed", []eval.Value{eval.Int(7)})
	u, dt := draw(t, th, "rand", ints(200, 500))
	if dt != tensor.Float32 {
		t.Fatalf("rand gives %v", dt)
	}
	for _, v := range u {
		if v < 0 || v >= 1 {
			t.Fatalf("rand value %v outside [0, 1)", v)
		}
	}
	if m, s := meanStd(u); math.Abs(m-0.5) > 0.005 || math.Abs(s-math.Sqrt(1.0/12)) > 0.005 {
		t.Errorf("rand mean %v std %v", m, s)
	}
	n, _ := draw(t, th, "randn", ints(100000))
	if m, s := meanStd(n); math.Abs(m) > 0.015 || math.Abs(s-1) > 0.015 {
		t.Errorf("randn mean %v std %v", m, s)
	}
	n64, dt := draw(t, th, "randn", ints(1000), eval.String("float64"))
	if dt != tensor.Float64 || len(n64) != 1000 {
		t.Errorf("randn float64 gives %v", dt)
	}
	ri, dt := draw(t, th, "randint", eval.Int(-2), eval.Int(3), ints(50000))
	if dt != tensor.Int64 {
		t.Fatalf("randint gives %v", dt)
	}
	counts := map[float64]int{}
	for _, v := range ri {
		if v < -2 || v >= 3 || v != math.Trunc(v) {
			t.Fatalf("randint value %v outside [-2, 3)", v)
		}
		counts[v]++
	}
	for v := -2.0; v < 3; v++ {
		if c := counts[v]; c < 9500 || c > 10500 {
			t.Errorf("randint drew %v %d times of 50000", v, c)
		}
	}
}

func TestDropoutBuiltin(t *testing.T) {
	th := newTestThread(t)
	x := call(t, th, "ones", []eval.Value{ints(100000)})
	defer eval.Release(th.RT, x)
	y := call(t, th, "dropout", []eval.Value{x, eval.Float32(0.25)})
	defer eval.Release(th.RT, y)
	kept := 0
	for _, v := range read(t, th, y).F32() {
		switch v {
		case 0:
		case float32(1 / 0.75):
			kept++
		default:
			t.Fatalf("dropout value %v is neither 0 nor 1/(1-p)", v)
		}
	}
	if frac := float64(kept) / 100000; math.Abs(frac-0.75) > 0.01 {
		t.Errorf("dropout kept %v of the elements, want 0.75", frac)
	}
	// train=false and p=0 are the identity (the same ref, no op).
	for _, kw := range [][]eval.Kwarg{{{Name: "train", Value: eval.Bool(false)}}, {{Name: "p", Value: eval.Int(0)}}} {
		z := call(t, th, "dropout", []eval.Value{x}, kw...)
		if z.(eval.Tensor).Ref != x.(eval.Tensor).Ref {
			t.Errorf("dropout %v is not the identity", kw)
		}
		eval.Release(th.RT, z)
	}
	if _, err := callErr(th, "dropout", []eval.Value{x, eval.Float32(1.5)}); err == nil {
		t.Error("dropout with p=1.5 did not fail")
	}
	// The same seed drops the same elements.
	call(t, th, "seed", []eval.Value{eval.Int(3)})
	a := call(t, th, "dropout", []eval.Value{x})
	call(t, th, "seed", []eval.Value{eval.Int(3)})
	b := call(t, th, "dropout", []eval.Value{x})
	if msg := compareDense(read(t, th, a), read(t, th, b), 0, 0); msg != "" {
		t.Errorf("dropout after the same seed differs: %s", msg)
	}
	eval.Release(th.RT, a)
	eval.Release(th.RT, b)
}
