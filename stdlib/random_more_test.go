package stdlib

import (
	"math"
	"slices"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The samplers of random_more.go are tested by their statistics with
// fixed seeds: every bound is at least 5 standard errors of the estimate
// wide (a correct sampler fails with probability below 1e-6), and far
// narrower than the gap to a wrong distribution (p for 1-p, std for the
// variance, a range off by one).

// column gives the values of column j of a row-major [n, k] sample.
func column(v []float64, k, j int) []float64 {
	out := make([]float64, 0, len(v)/k)
	for i := j; i < len(v); i += k {
		out = append(out, v[i])
	}
	return out
}

// repeatRows is an [n, len(row)] tensor of dtype dt with row in every row.
func repeatRows(th *eval.Thread, dt tensor.DType, n int, row ...float64) eval.Value {
	vals := make([]float64, 0, n*len(row))
	for range n {
		vals = append(vals, row...)
	}
	return hostTensor(th, dt, tensor.Shape{n, len(row)}, vals...)
}

func TestBernoulliStatistics(t *testing.T) {
	th := newTestThread(t)
	call(t, th, "seed", []eval.Value{eval.Int(11)})
	const n = 40000
	ps := []float64{0, 0.1, 0.5, 0.9, 1}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		probs := repeatRows(th, dt, n, ps...)
		got, gdt := draw(t, th, "bernoulli", probs)
		eval.Release(th.RT, probs)
		if gdt != dt || len(got) != n*len(ps) {
			t.Fatalf("bernoulli of %v probabilities gives %d values of %v", dt, len(got), gdt)
		}
		for j, p := range ps {
			col := column(got, len(ps), j)
			ones := 0
			for _, v := range col {
				if v != 0 && v != 1 {
					t.Fatalf("bernoulli value %v is neither 0 nor 1", v)
				}
				ones += int(v)
			}
			f := float64(ones) / n
			// p = 0 and p = 1 are exact; otherwise 5 standard errors
			// (sqrt(p(1-p)/n) <= 0.0025).
			if (p == 0 || p == 1) && f != p || math.Abs(f-p) > 0.0125 {
				t.Errorf("%v: probability %v drawn 1 %.4f of the time", dt, p, f)
			}
		}
	}
	// The p form: input's shape and dtype, values ignored.
	x := hostTensor(th, tensor.Int64, tensor.Shape{n}, 7)
	got, dt := draw(t, th, "bernoulli", x, eval.Float32(0.3))
	eval.Release(th.RT, x)
	if dt != tensor.Int64 || len(got) != n {
		t.Fatalf("bernoulli(int64 input, p) gives %d values of %v", len(got), dt)
	}
	if m, _ := meanStd(got); math.Abs(m-0.3) > 0.012 {
		t.Errorf("bernoulli(x, p=0.3) mean %v", m)
	}
}

func TestNormalStatistics(t *testing.T) {
	th := newTestThread(t)
	call(t, th, "seed", []eval.Value{eval.Int(12)})
	const n = 40000
	// tensor/tensor, broadcast: mean [n, 3], std [3].
	means := []float64{-3, 0, 10}
	stds := []float64{0.5, 1, 4}
	mean := repeatRows(th, tensor.Float32, n, means...)
	std := hostTensor(th, tensor.Float32, tensor.Shape{3}, stds...)
	got, dt := draw(t, th, "normal", mean, std)
	eval.Release(th.RT, mean)
	eval.Release(th.RT, std)
	if dt != tensor.Float32 || len(got) != 3*n {
		t.Fatalf("normal gives %d values of %v", len(got), dt)
	}
	for j := range means {
		col := column(got, 3, j)
		m, s := meanStd(col)
		// Standard errors: std/sqrt(n) for the mean, std/sqrt(2n) for
		// the std.
		if math.Abs(m-means[j]) > 5*stds[j]/math.Sqrt(n) || math.Abs(s-stds[j]) > 5*stds[j]/math.Sqrt(2*n) {
			t.Errorf("normal column %d: mean %v std %v, want %v and %v", j, m, s, means[j], stds[j])
		}
		// Normal, not merely of that mean and std: 68.27% within one std.
		within := 0
		for _, v := range col {
			if math.Abs(v-means[j]) < stds[j] {
				within++
			}
		}
		if f := float64(within) / n; math.Abs(f-0.6827) > 0.012 {
			t.Errorf("normal column %d: %.4f within one std", j, f)
		}
	}
	// float/float with a size and a dtype; float/tensor in std's dtype.
	got, dt = draw(t, th, "normal", eval.Float64(2), eval.Float64(3), ints(n), eval.String("float64"))
	if m, s := meanStd(got); dt != tensor.Float64 || math.Abs(m-2) > 5*3/math.Sqrt(n) || math.Abs(s-3) > 5*3/math.Sqrt(2*n) {
		t.Errorf("normal(2, 3, [n], float64): %v mean %v std %v", dt, m, s)
	}
	sd := hostTensor(th, tensor.Float64, tensor.Shape{n}, slices.Repeat([]float64{0.25}, n)...)
	got, dt = draw(t, th, "normal", eval.Float64(-1), sd)
	eval.Release(th.RT, sd)
	if m, s := meanStd(got); dt != tensor.Float64 || math.Abs(m+1) > 5*0.25/math.Sqrt(n) || math.Abs(s-0.25) > 5*0.25/math.Sqrt(2*n) {
		t.Errorf("normal(-1, std 0.25): %v mean %v std %v", dt, m, s)
	}
}

func TestRandintLikeStatistics(t *testing.T) {
	th := newTestThread(t)
	call(t, th, "seed", []eval.Value{eval.Int(13)})
	const n = 60000
	x := hostTensor(th, tensor.Int32, tensor.Shape{n})
	defer eval.Release(th.RT, x)
	got, dt := draw(t, th, "randint_like", x, eval.Int(-3), eval.Int(3))
	if dt != tensor.Int32 || len(got) != n {
		t.Fatalf("randint_like gives %d values of %v", len(got), dt)
	}
	counts := map[float64]int{}
	for _, v := range got {
		if v < -3 || v >= 3 {
			t.Fatalf("randint_like value %v outside [-3, 3)", v)
		}
		counts[v]++
	}
	// 10000 expected each, standard deviation about 91.
	for v := -3.0; v < 3; v++ {
		if c := counts[v]; c < 9500 || c > 10500 {
			t.Errorf("randint_like drew %v %d times of %d", v, c, n)
		}
	}
	// One bound is high; a float input gives floats.
	f := hostTensor(th, tensor.Float32, tensor.Shape{n})
	defer eval.Release(th.RT, f)
	got, dt = draw(t, th, "randint_like", f, eval.Int(2))
	if m, _ := meanStd(got); dt != tensor.Float32 || math.Abs(m-0.5) > 0.011 || slices.Max(got) != 1 || slices.Min(got) != 0 {
		t.Errorf("randint_like(x, 2): %v mean %v", dt, m)
	}
}

// TestRandomMoreDeterministic: a seed repeats each sampler; two draws in
// a row differ; a call refused for its arguments draws nothing.
func TestRandomMoreDeterministic(t *testing.T) {
	th := newTestThread(t)
	p := hostTensor(th, tensor.Float32, tensor.Shape{64}, slices.Repeat([]float64{0.5}, 64)...)
	defer eval.Release(th.RT, p)
	bad := hostTensor(th, tensor.Float32, tensor.Shape{2}, 0.5, 2)
	defer eval.Release(th.RT, bad)
	cases := []struct {
		name string
		args []eval.Value
	}{
		{"bernoulli", []eval.Value{p}},
		{"normal", []eval.Value{p, p}},
		{"normal", []eval.Value{eval.Float64(0), eval.Float64(1), ints(64)}},
		{"randint_like", []eval.Value{p, eval.Int(1000)}},
	}
	for _, c := range cases {
		call(t, th, "seed", []eval.Value{eval.Int(99)})
		a, _ := draw(t, th, c.name, c.args...)
		b, _ := draw(t, th, c.name, c.args...)
		call(t, th, "seed", []eval.Value{eval.Int(99)})
		if _, err := callErr(th, "bernoulli", []eval.Value{bad}); err == nil {
			t.Fatal("bernoulli of a probability 2 did not fail")
		}
		if _, err := callErr(th, "normal", []eval.Value{p, eval.Float64(-1)}); err == nil {
			t.Fatal("normal with std -1 did not fail")
		}
		again, _ := draw(t, th, c.name, c.args...)
		if !slices.Equal(a, again) {
			t.Errorf("%s after seed(99) differs (a failed call drew from the stream?)", c.name)
		}
		if slices.Equal(a, b) {
			t.Errorf("%s gave the same values twice in a row", c.name)
		}
	}
}
