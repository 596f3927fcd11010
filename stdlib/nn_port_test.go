package stdlib

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The random builtins of nn_port_random.go (their values are not torch's,
// so the goldens hold only their evaluation mode and errors) are tested
// by their structure and statistics with fixed seeds. As in
// random_more_test.go every statistical bound is at least 5 standard
// errors wide and far narrower than the gap to a wrong result (p for
// 1-p, a channel's elements drawn apart, another scale or slope range).

// ramp is a float32 tensor of shape s holding 1 + (i mod 7) at flat
// position i: nonzero, and telling neighbours apart.
func ramp(th *eval.Thread, s tensor.Shape) (eval.Value, []float64) {
	vals := make([]float64, s.Numel())
	for i := range vals {
		vals[i] = float64(1 + i%7)
	}
	return hostTensor(th, tensor.Float32, s, vals...), vals
}

// callFloats calls a builtin and reads its result as float64s.
func callFloats(t *testing.T, th *eval.Thread, name string, args []eval.Value, kwargs ...eval.Kwarg) []float64 {
	t.Helper()
	v := call(t, th, name, args, kwargs...)
	defer eval.Release(th.RT, v)
	d := read(t, th, v)
	out := make([]float64, d.Numel())
	for i := range out {
		out[i] = d.At(i)
	}
	return out
}

// TestNNPortChannelDropout: the channel dropouts zero whole channels (the
// runs of block elements) with probability p and multiply the others by
// exactly float32(1/(1-p)), for each shape torch 1.13 takes.
func TestNNPortChannelDropout(t *testing.T) {
	th := newTestThread(t)
	call(t, th, "seed", []eval.Value{eval.Int(21)})
	const p = 0.3
	scale := float64(float32(1 / (1 - p)))
	for _, c := range []struct {
		name  string
		shape tensor.Shape
		block int // the elements of one channel, contiguous
	}{
		{"dropout1d", tensor.Shape{40, 500, 3}, 3},
		{"dropout1d", tensor.Shape{20000, 2}, 2}, // unbatched [C, L]
		{"dropout2d", tensor.Shape{100, 200, 2, 2}, 4},
		{"dropout2d", tensor.Shape{100, 200, 3}, 3}, // [N, C, L], as torch 1.13
		{"dropout2d", tensor.Shape{200, 100}, 1},    // [N, C]: each element
		{"dropout2d", tensor.Shape{20, 1000, 1, 2, 1}, 2},
		{"dropout3d", tensor.Shape{10, 2000, 1, 2, 2}, 4},
		{"dropout3d", tensor.Shape{20000, 2, 1, 1}, 2}, // unbatched [C, D, H, W]
		{"dropout3d", tensor.Shape{20000, 3, 1}, 3},    // another rank: unbatched
		{"dropout3d", tensor.Shape{20000}, 1},
	} {
		x, vals := ramp(th, c.shape)
		got := callFloats(t, th, c.name, []eval.Value{x, eval.Float64(p)})
		eval.Release(th.RT, x)
		dropped, blocks := 0, len(vals)/c.block
		for b := range blocks {
			zero := got[b*c.block] == 0
			if zero {
				dropped++
			}
			for i := b * c.block; i < (b+1)*c.block; i++ {
				want := float64(float32(vals[i]) * float32(scale))
				if zero && got[i] != 0 || !zero && got[i] != want {
					t.Fatalf("%s%v: element %d of channel %d is %v (the channel's first %v, the input %v, scaled %v)",
						c.name, c.shape, i, b, got[i], got[b*c.block], vals[i], want)
				}
			}
		}
		// 5 standard errors: sqrt(0.21/20000) = 0.0032.
		if f := float64(dropped) / float64(blocks); math.Abs(f-p) > 0.017 {
			t.Errorf("%s%v: %.4f of the channels dropped, want %v", c.name, c.shape, f, p)
		}
	}
	// p = 1 zeroes everything; training=false and p = 0 give the input.
	x, vals := ramp(th, tensor.Shape{4, 3, 2})
	defer eval.Release(th.RT, x)
	if got := callFloats(t, th, "dropout1d", []eval.Value{x, eval.Float64(1)}); slices.Max(got) != 0 || slices.Min(got) != 0 {
		t.Errorf("dropout1d with p = 1 gives %v", got)
	}
	for _, name := range []string{"dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"} {
		if got := callFloats(t, th, name, []eval.Value{x, eval.Float64(0.5), eval.Bool(false)}); !slices.Equal(got, vals) {
			t.Errorf("%s with training=false changes the input: %v", name, got)
		}
		if got := callFloats(t, th, name, []eval.Value{x, eval.Float64(0), eval.Bool(true)}); !slices.Equal(got, vals) {
			t.Errorf("%s with p = 0 changes the input: %v", name, got)
		}
	}
}

// TestNNPortAlphaDropout: alpha_dropout gives x·a + α·a·p where it keeps
// an element and α·a·(p-1) where it drops one (α = 1.7580993408473766,
// a = 1/sqrt((α²·p + 1)(1-p))), dropping a fraction p, so that standard
// normal inputs keep mean 0 and variance 1; feature_alpha_dropout does it
// per channel.
func TestNNPortAlphaDropout(t *testing.T) {
	th := newTestThread(t)
	call(t, th, "seed", []eval.Value{eval.Int(22)})
	const n = 200000
	for _, p := range []float64{0.1, 0.5} {
		const alpha = 1.7580993408473766
		a := 1 / math.Sqrt((alpha*alpha*p+1)*(1-p))
		x := call(t, th, "randn", []eval.Value{ints(n)})
		in := callFloats(t, th, "reshape", []eval.Value{x, ints(-1)})
		got := callFloats(t, th, "alpha_dropout", []eval.Value{x, eval.Float64(p), eval.Bool(true)})
		eval.Release(th.RT, x)
		dropped := 0
		for i, v := range got {
			keep := in[i]*a + alpha*a*p
			switch {
			case math.Abs(v-alpha*a*(p-1)) < 1e-6:
				dropped++
			case math.Abs(v-keep) > 1e-5*(1+math.Abs(keep)):
				t.Fatalf("p = %v: element %d is %v, neither kept (%v) nor dropped (%v)", p, i, v, keep, alpha*a*(p-1))
			}
		}
		// 5 standard errors: sqrt(0.25/n) = 0.0011.
		if f := float64(dropped) / n; math.Abs(f-p) > 0.006 {
			t.Errorf("p = %v: %.4f dropped", p, f)
		}
		// The mean's standard error is 1/sqrt(n) = 0.0022; the standard
		// deviation's at most 0.0015 (p = 0.5's two modes).
		if m, s := meanStd(got); math.Abs(m) > 0.012 || math.Abs(s-1) > 0.012 {
			t.Errorf("p = %v: mean %v and standard deviation %v, want 0 and 1", p, m, s)
		}
	}
	// feature_alpha_dropout: one draw per channel [n, c] of [n, c, 3].
	x, vals := ramp(th, tensor.Shape{100, 200, 3})
	got := callFloats(t, th, "feature_alpha_dropout", []eval.Value{x, eval.Float64(0.5), eval.Bool(true)})
	eval.Release(th.RT, x)
	const p, alpha = 0.5, 1.7580993408473766
	a := 1 / math.Sqrt((alpha*alpha*p+1)*(1-p))
	dropped := 0
	for b := range len(vals) / 3 {
		drop := math.Abs(got[3*b]-alpha*a*(p-1)) < 1e-6
		if drop {
			dropped++
		}
		for i := 3 * b; i < 3*b+3; i++ {
			want := vals[i]*a + alpha*a*p
			if drop {
				want = alpha * a * (p - 1)
			}
			if math.Abs(got[i]-want) > 1e-5*(1+math.Abs(want)) {
				t.Fatalf("feature_alpha_dropout: element %d of channel %d is %v, want %v", i, b, got[i], want)
			}
		}
	}
	if f := float64(dropped) / float64(len(vals)/3); math.Abs(f-p) > 0.018 {
		t.Errorf("feature_alpha_dropout: %.4f of the channels dropped", f)
	}
}

// TestNNPortRReLU: in training each element <= 0 is multiplied by a
// slope uniform in [lower, upper), drawn for each element; positive ones
// and NaN pass unchanged.
func TestNNPortRReLU(t *testing.T) {
	th := newTestThread(t)
	call(t, th, "seed", []eval.Value{eval.Int(23)})
	const n, lower, upper = 40000, 0.1, 0.4
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = -float64(1 + i%5)
	}
	vals[0], vals[1], vals[2] = 3, math.NaN(), 0
	x := hostTensor(th, tensor.Float64, tensor.Shape{n}, vals...)
	got := callFloats(t, th, "rrelu", []eval.Value{x, eval.Float64(lower), eval.Float64(upper), eval.Bool(true)})
	eval.Release(th.RT, x)
	if got[0] != 3 || !math.IsNaN(got[1]) || got[2] != 0 {
		t.Errorf("rrelu in training of 3, NaN, 0 gives %v", got[:3])
	}
	slopes := make([]float64, 0, n)
	for i := 3; i < n; i++ {
		s := got[i] / vals[i]
		if !(s >= lower && s < upper) {
			t.Fatalf("element %d: slope %v outside [%v, %v)", i, s, lower, upper)
		}
		slopes = append(slopes, s)
	}
	// A uniform on [0.1, 0.4): mean 0.25 (standard error 0.3/sqrt(12n) =
	// 0.00043), standard deviation 0.3/sqrt(12) = 0.0866.
	if m, s := meanStd(slopes); math.Abs(m-0.25) > 0.0025 || math.Abs(s-0.0866) > 0.0025 {
		t.Errorf("slopes of mean %v and standard deviation %v, want 0.25 and 0.0866", m, s)
	}
}

// TestNNPortGumbelSoftmax: the argmax of logits + Gumbel noise is a draw
// of softmax(logits) (the Gumbel-max trick), whatever tau; a soft sample
// is a distribution along dim, a hard one the one-hot of its maximum.
func TestNNPortGumbelSoftmax(t *testing.T) {
	th := newTestThread(t)
	call(t, th, "seed", []eval.Value{eval.Int(24)})
	const n = 20000
	probs := []float64{0.2, 0.3, 0.5}
	logits := make([]float64, 0, 3*n)
	for range n {
		for _, p := range probs {
			logits = append(logits, math.Log(p))
		}
	}
	// Along dim 0 of [3, n]: the same logits transposed.
	cols := make([]float64, 3*n)
	for i := range n {
		for j := range 3 {
			cols[j*n+i] = logits[3*i+j]
		}
	}
	for _, c := range []struct {
		vals  []float64
		shape tensor.Shape
		dim   int
		tau   float64
	}{{logits, tensor.Shape{n, 3}, -1, 1}, {cols, tensor.Shape{3, n}, 0, 0.3}} {
		x := hostTensor(th, tensor.Float32, c.shape, c.vals...)
		kw := []eval.Kwarg{{Name: "tau", Value: eval.Float64(c.tau)}, {Name: "dim", Value: eval.Int(c.dim)}}
		soft := callFloats(t, th, "gumbel_softmax", []eval.Value{x}, kw...)
		hard := callFloats(t, th, "gumbel_softmax", []eval.Value{x}, append(kw, eval.Kwarg{Name: "hard", Value: eval.Bool(true)})...)
		eval.Release(th.RT, x)
		at := func(v []float64, i, j int) float64 {
			if c.dim == 0 {
				return v[j*n+i]
			}
			return v[3*i+j]
		}
		var wins [3]int
		for i := range n {
			sum := 0.0
			for j := range 3 {
				s := at(soft, i, j)
				if !(s >= 0 && s <= 1) {
					t.Fatalf("dim %d: soft sample %d has %v", c.dim, i, s)
				}
				sum += s
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Fatalf("dim %d: soft sample %d sums to %v", c.dim, i, sum)
			}
			ones := 0
			for j := range 3 {
				if h := at(hard, i, j); h == 1 {
					ones++
					wins[j]++
				} else if h != 0 {
					t.Fatalf("dim %d: hard sample %d has %v", c.dim, i, h)
				}
			}
			if ones != 1 {
				t.Fatalf("dim %d: hard sample %d has %d ones", c.dim, i, ones)
			}
		}
		// 5 standard errors: sqrt(0.25/n) = 0.0035.
		for j, p := range probs {
			if f := float64(wins[j]) / n; math.Abs(f-p) > 0.018 {
				t.Errorf("dim %d, tau %v: class %d drawn %.4f of the time, want %v", c.dim, c.tau, j, f, p)
			}
		}
	}
}

// TestNNPortRandomDeterministic: a seed repeats each random builtin; two
// draws in a row differ; a call refused for its arguments draws nothing.
func TestNNPortRandomDeterministic(t *testing.T) {
	th := newTestThread(t)
	x, _ := ramp(th, tensor.Shape{8, 16, 2})
	defer eval.Release(th.RT, x)
	neg := call(t, th, "neg", []eval.Value{x})
	defer eval.Release(th.RT, neg)
	half, yes := eval.Float64(0.5), eval.Bool(true)
	cases := []struct {
		name string
		args []eval.Value
	}{
		{"rrelu", []eval.Value{neg, eval.Float64(0.1), eval.Float64(0.3), yes}},
		{"dropout1d", []eval.Value{x, half}},
		{"dropout2d", []eval.Value{x, half}},
		{"dropout3d", []eval.Value{x, half}},
		{"alpha_dropout", []eval.Value{x, half, yes}},
		{"feature_alpha_dropout", []eval.Value{x, half, yes}},
		{"gumbel_softmax", []eval.Value{x}},
	}
	four := call(t, th, "ones", []eval.Value{ints(2, 2, 2, 2)})
	defer eval.Release(th.RT, four)
	for _, c := range cases {
		call(t, th, "seed", []eval.Value{eval.Int(99)})
		a := callFloats(t, th, c.name, c.args)
		b := callFloats(t, th, c.name, c.args)
		call(t, th, "seed", []eval.Value{eval.Int(99)})
		if _, err := callErr(th, "dropout2d", []eval.Value{x, eval.Float64(1.5)}); err == nil {
			t.Fatal("dropout2d with p = 1.5 did not fail")
		}
		if _, err := callErr(th, "rrelu", []eval.Value{x, eval.Float64(0.5), eval.Float64(0.1), yes}); err == nil {
			t.Fatal("rrelu with lower > upper did not fail")
		}
		if _, err := callErr(th, "dropout1d", []eval.Value{four, half}); err == nil {
			t.Fatal("dropout1d of a 4-d input did not fail")
		}
		again := callFloats(t, th, c.name, c.args)
		if !slices.Equal(a, again) {
			t.Errorf("%s after seed(99) differs (a failed call drew from the stream?)", c.name)
		}
		if slices.Equal(a, b) {
			t.Errorf("%s gave the same values twice in a row", c.name)
		}
	}
}

// runChecks runs a script of asserts and fails the test on its error.
func runChecks(t *testing.T, src string) {
	t.Helper()
	rt := refs.New(&cpu.Device{}, refs.Options{})
	var out bytes.Buffer
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: Universe(), Stdout: &out})
	defer in.Close()
	if err := in.RunSource("nn_port.tr", []byte(src)); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
}

// TestNNPortRandomGradients: the gradient of a dropout is its noise (the
// output over the input), of rrelu in training its slope, of a hard
// gumbel_softmax the soft sample's, each redrawn after the same seed.
func TestNNPortRandomGradients(t *testing.T) {
	runChecks(t, `
let x = arange(1.0, 49.0).reshape(2, 4, 3, 2)
for name in ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"] {
    let f = {dropout1d: dropout1d, dropout2d: dropout2d, dropout3d: dropout3d, alpha_dropout: alpha_dropout, feature_alpha_dropout: feature_alpha_dropout}[name]
    let xi = x
    if name == "dropout1d" {
        xi = x.reshape(2, 4, 6)
    }
    seed(7)
    let y = f(xi, 0.4, true)
    seed(7)
    let g = grad(fn(z) => f(z, 0.4, true).sum())(xi)
    seed(7)
    let shifted = f(zeros_like(xi), 0.4, true)
    # y = x·g + shift: the gradient is the noise
    assert allclose(y, xi * g + shifted), name
    assert any(g == 0) and any(g > 0), name
}
let v = -arange(1.0, 101.0)
seed(8)
let y = rrelu(v, 0.2, 0.5, training=true)
seed(8)
assert allclose(grad(fn(z) => rrelu(z, 0.2, 0.5, training=true).sum())(v), y / v)
let logits = arange(12.0).reshape(4, 3) / 4
let w = arange(12.0).reshape(4, 3)
for tau in [0.5, 2.0] {
    seed(9)
    let gh = grad(fn(z) => (gumbel_softmax(z, tau=tau, hard=true) * w).sum())(logits)
    seed(9)
    let gs = grad(fn(z) => (gumbel_softmax(z, tau=tau) * w).sum())(logits)
    assert allclose(gh, gs)
    seed(9)
    let y1 = gumbel_softmax(logits)
    seed(9)
    # the same noise at another temperature
    assert allclose(gumbel_softmax(logits, tau=tau), softmax(log(y1) / tau, dim=-1), atol=1e-6)
}
`)
}

// TestNNPortFitsTheHostLimit: multilabel_margin_loss's pairs of classes
// are checked against the host limit before any is made.
func TestNNPortFitsTheHostLimit(t *testing.T) {
	_, err := runLimited(t, `print(multilabel_margin_loss(ones(1, 20000), zeros(1, 20000, dtype="int64")))`)
	if want := "multilabel_margin_loss: 1 samples of 20000 classes: allocating"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an error with %q", err, want)
	}
}
